import Foundation

/// The SQL the two backends speak differently: the store writes what they share once and asks the
/// dialect for the rest (docs/ARCHITECTURE.md, "Storage").
enum SQLDialect: Sendable, Equatable {
    case sqlite, postgres

    /// The dialect of the database at `path`: a PostgreSQL URI's, else an SQLite file's.
    static func of(_ path: String) -> SQLDialect {
        PostgresConnection.isURI(path) ? .postgres : .sqlite
    }

    /// Whether its databases are files (SQLite's) rather than a server's.
    var isAFile: Bool { self == .sqlite }

    /// `path` fit to show: a URI without its password.
    func shown(_ path: String) -> String {
        self == .postgres ? PostgresConnection.withoutPassword(path) : path
    }

    /// The text of `key` in the JSON object held in text column `column` (NULL when absent).
    func jsonField(_ column: String, _ key: String) -> String {
        self == .sqlite ? "json_extract(\(column), '$.\(key)')" : "(\(column)::jsonb ->> '\(key)')"
    }

    /// The integers of the JSON array `array` (a text expression), as a one-column query.
    func jsonIntegers(_ array: String) -> String {
        self == .sqlite
            ? "SELECT value FROM json_each(\(array))"
            : "SELECT value::bigint FROM jsonb_array_elements_text((\(array))::jsonb) AS elements(value)"
    }
}

/// One connection to a database, as the store uses it: SQLite's file (`SQLiteConnection`) or a
/// PostgreSQL server (`PostgresConnection`). Not thread-safe: one owner at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Where the data lives, for messages: a path, or a URI without its password.
    var location: String { get }
    /// Runs statements that take no parameters and return nothing of interest.
    func execute(_ sql: String) throws(StoreError)
    /// Compiles one statement, with parameters written `?1`, `?2`, ….
    func prepare(_ sql: String) throws(StoreError) -> any SQLStatement
    /// Starts a write transaction that holds the write lock from its first statement.
    func beginWrite() throws(StoreError)
    /// Rows the last statement inserted, updated or deleted.
    func changedRows() throws(StoreError) -> Int
    /// Waits for the answers of the statements sent ahead (PostgreSQL's pipeline), throwing the first
    /// error among them; nothing to wait for on SQLite.
    func drain() throws(StoreError)
    /// Copies the database to a new file at `path` while it is in use, when the backend can (SQLite's
    /// online backup); false when it cannot (the caller then copies it by `DatabaseCopy`).
    func backUpOnline(to path: String) throws(StoreError) -> Bool
}

/// A compiled statement: values bound, then its rows read one at a time.
protocol SQLStatement: AnyObject {
    /// Clears earlier bindings and binds `values` to `?1`, `?2`, … in order.
    func bind(_ values: [SQLValue]) throws(StoreError)
    /// Advances to the next row (running the statement at the first call); false when there are no more.
    func step() throws(StoreError) -> Bool
    /// Ends the current run, so the statement can be bound again.
    func reset()
    /// Binds `values` and runs the statement, its rows (if any) unread. PostgreSQL sends it without
    /// waiting for the answer (`PostgresConnection`'s pipeline); an error comes with a later call.
    func execute(_ values: [SQLValue]) throws(StoreError)
    func isNull(at column: Int32) -> Bool
    func int64(at column: Int32) -> Int64
    func double(at column: Int32) -> Double
    func text(at column: Int32) -> String?
    func blob(at column: Int32) -> Data
    /// The columns of the current row, with their names and typed values (to copy rows as they are).
    var columnCount: Int32 { get }
    func columnName(at column: Int32) -> String
    func value(at column: Int32) -> SQLValue
}

/// A value bound to a statement parameter.
enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The placeholders of an `IN (…)` list of `ids`, whose values are appended to `values` (bound,
    /// never written into the SQL): `?3,?4,?5`.
    static func placeholders(for ids: some Sequence<Int64>, appendingTo values: inout [SQLValue]) -> String {
        ids.map { id -> String in
            values.append(.integer(id))
            return "?\(values.count)"
        }.joined(separator: ",")
    }

    /// `(?1, ?2, …), (…), …`: the placeholders of a many-row `VALUES` of `count` rows of `columns`
    /// values each, bound in row order.
    static func rowPlaceholders(_ count: Int, columns: Int) -> String {
        (0..<count).map { row in
            "(" + (1...columns).map { "?\(row * columns + $0)" }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    init(_ text: String?) { self = text.map(SQLValue.text) ?? .null }
    init(_ number: Int64?) { self = number.map(SQLValue.integer) ?? .null }
    init(_ flag: Bool) { self = .integer(flag ? 1 : 0) }
}
