/// Why the store could not do what was asked. `description` says which and what to do about it.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    /// What kind of failure this is, for callers that react differently.
    public enum Kind: Sendable, Equatable {
        case notADatabase, corrupt, newerSchema, readOnly, cannotOpen
        /// The database refused or failed a statement (an error in the SQL, a constraint).
        case failed
        /// A search, cursor or filter the user gave cannot be used.
        case invalidQuery
        /// The feed or entry named does not exist.
        case notFound
        /// The database kept the statement waiting past a limit (`DatabaseLimits`: a lock held
        /// elsewhere, a statement too long) or is locked: asking again later may work.
        case busy
        /// PostgreSQL undid the transaction to end a deadlock or a serialization failure (`40P01`,
        /// `40001`): run again, it may well pass (`Database.transaction` does).
        case conflict
    }

    public let kind: Kind
    /// SQLite's result code, or 0 when the failure is ours.
    public let code: Int32
    public let message: String

    public init(_ kind: Kind, code: Int32 = 0, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
