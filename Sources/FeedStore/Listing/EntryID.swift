/// An entry's id, a type of its own as an account's is (`AccountID`): apps cache it, marks, edits,
/// pages and media positions name it, and a feed's id or a count cannot stand in for it. A literal
/// is one; an `Int64` becomes one only by `EntryID(_:)`, where it was read.
public struct EntryID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int64

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: Int64) {
        rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (left: EntryID, right: EntryID) -> Bool { left.rawValue < right.rawValue }
}

extension SQLValue {
    /// An entry's id, bound as the integer the database keeps.
    static func entry(_ entry: EntryID) -> SQLValue { .integer(entry.rawValue) }
}

extension SQLValue {
    /// The placeholders of an `IN (…)` list of entry ids (`placeholders(for:appendingTo:)`).
    static func placeholders(for ids: some Sequence<EntryID>, appendingTo values: inout [SQLValue]) -> String {
        placeholders(for: ids.lazy.map(\.rawValue), appendingTo: &values)
    }
}

extension Statement {
    /// The entry id in `column`.
    func entryID(at column: Int32) -> EntryID { EntryID(int64(at: column)) }
}
