/// The id of an account's subscription to a feed: what apps and the CLI call a feed's id (Miniflux's
/// `feed_id`, Google Reader's `feed/ID`, Fever's `feed_id`). Not the id of the feed itself (a fetch
/// identity, `feeds.id`, which several accounts' subscriptions share and no account sees): the two
/// were easy to mix up while both were integers. A literal is one; an `Int64` becomes one only by
/// `SubscriptionID(_:)`, where it was read.
public struct SubscriptionID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: Int64) {
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (left: SubscriptionID, right: SubscriptionID) -> Bool { left.rawValue < right.rawValue }
}

extension SQLValue {
    /// A subscription's id, bound as the integer the database keeps.
    static func subscription(_ subscription: SubscriptionID) -> SQLValue { .integer(subscription.rawValue) }
}

extension Statement {
    /// The subscription id in `column`.
    func subscriptionID(at column: Int32) -> SubscriptionID { SubscriptionID(int64(at: column)) }
    func optionalSubscriptionID(at column: Int32) -> SubscriptionID? { optionalInt64(at: column).map { SubscriptionID($0) } }
}
