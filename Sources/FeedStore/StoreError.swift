/// Why the store could not do what was asked. `description` says which and what to do about it.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    /// What kind of failure this is, for callers that react differently.
    public enum Kind: Sendable, Equatable {
        case notADatabase, corrupt, newerSchema, readOnly, cannotOpen, sqlite
        /// A search, cursor or filter the user gave cannot be used.
        case invalidQuery
        /// The feed or entry named does not exist.
        case notFound
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
