/// The id of one kind of the store's rows, a type of its own for each kind, so that an id of one
/// kind, or a count, cannot be passed for another's: the store, the service and the front ends
/// pass these where a bare integer used to compile. A literal is one (`1`, the first admin); an
/// `Int64` becomes one only by `init(_:)`, where it was read (a row, a route parameter, a payload).
public struct TypedID<Kind>: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: Int64) {
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (left: TypedID, right: TypedID) -> Bool { left.rawValue < right.rawValue }
}

/// The kinds of `TypedID`.
public enum IDKind {
    /// An account (`accounts.id`).
    public enum Account {}
    /// A stored entry (`entries.id`): apps cache it; marks, edits, pages and media positions name it.
    public enum Entry {}
    /// An account's subscription to a feed (`subscriptions.id`): what apps and the CLI call a feed's
    /// id (Miniflux's `feed_id`, Google Reader's `feed/ID`, Fever's `feed_id`).
    public enum Subscription {}
    /// A feed itself (`feeds.id`): a fetch identity, one for every account whose subscription shares
    /// it, known to the store, the scheduler and the refresh pipeline, never to an account.
    public enum Feed {}
}

public typealias AccountID = TypedID<IDKind.Account>
public typealias EntryID = TypedID<IDKind.Entry>
public typealias SubscriptionID = TypedID<IDKind.Subscription>
public typealias FeedID = TypedID<IDKind.Feed>

extension SQLValue {
    /// An id bound as the integer the database keeps; the names say which kind a statement binds.
    static func account(_ id: AccountID) -> SQLValue { .integer(id.rawValue) }
    static func entry(_ id: EntryID) -> SQLValue { .integer(id.rawValue) }
    static func subscription(_ id: SubscriptionID) -> SQLValue { .integer(id.rawValue) }
    static func feed(_ id: FeedID) -> SQLValue { .integer(id.rawValue) }

    /// The placeholders of an `IN (…)` list of ids (`placeholders(for:appendingTo:)`).
    static func placeholders<Kind>(for ids: some Sequence<TypedID<Kind>>, appendingTo values: inout [SQLValue]) -> String {
        placeholders(for: ids.lazy.map(\.rawValue), appendingTo: &values)
    }
}

extension Statement {
    /// The id in `column`, of the kind the caller expects.
    func id<Kind>(at column: Int32) -> TypedID<Kind> { TypedID(int64(at: column)) }
    func optionalID<Kind>(at column: Int32) -> TypedID<Kind>? { optionalInt64(at: column).map { TypedID($0) } }

    func accountID(at column: Int32) -> AccountID { id(at: column) }
    func entryID(at column: Int32) -> EntryID { id(at: column) }
    func subscriptionID(at column: Int32) -> SubscriptionID { id(at: column) }
    func optionalSubscriptionID(at column: Int32) -> SubscriptionID? { optionalID(at: column) }
    func feedID(at column: Int32) -> FeedID { id(at: column) }
}
