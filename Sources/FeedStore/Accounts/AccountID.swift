/// An account's id, a type of its own: the store, the service and the front ends pass it where a
/// bare integer could be a feed's, an entry's or a count, and a mix-up would not compile. A literal
/// (`1`, the first admin) is one; an `Int64` becomes one only by `AccountID(_:)`, where it was read.
public struct AccountID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: Int64) {
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (left: AccountID, right: AccountID) -> Bool { left.rawValue < right.rawValue }
}

extension SQLValue {
    /// An account's id, bound as the integer the database keeps.
    static func account(_ account: AccountID) -> SQLValue { .integer(account.rawValue) }
}

extension Statement {
    /// The account id in `column`.
    func accountID(at column: Int32) -> AccountID { AccountID(int64(at: column)) }
}
