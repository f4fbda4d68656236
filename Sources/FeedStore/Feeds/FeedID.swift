/// The id of a feed itself (`feeds.id`): a fetch identity, one for every account whose subscription
/// shares it, known to the store, the scheduler and the refresh pipeline, never to an account (which
/// names its feeds by `SubscriptionID`). A literal is one; an `Int64` becomes one only by
/// `FeedID(_:)`, where it was read.
public struct FeedID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: Int64) {
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (left: FeedID, right: FeedID) -> Bool { left.rawValue < right.rawValue }
}

extension SQLValue {
    /// A feed's id, bound as the integer the database keeps.
    static func feed(_ feed: FeedID) -> SQLValue { .integer(feed.rawValue) }
}

extension Statement {
    /// The feed id in `column`.
    func feedID(at column: Int32) -> FeedID { FeedID(int64(at: column)) }
}
