import CSQLite
import Foundation

/// One SQLite connection, opened the way the store needs it: WAL, `synchronous=NORMAL`,
/// foreign keys on and a busy timeout. Not thread-safe: one owner (the writer actor, or one reader).
final class Database {
    let path: String
    private let handle: OpaquePointer

    /// Opens (and with `create`, creates) the database at `path` and applies pending migrations
    /// (up to `schemaVersion`: tests build older databases with it).
    /// - Throws: `StoreError` naming what is wrong with the file and what to do.
    init(path: String, create: Bool = true, readOnly: Bool = false,
         schemaVersion: Int64 = Migrations.currentVersion) throws(StoreError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened, status == SQLITE_OK else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)  // SQLite hands out a handle even when opening fails
            throw Self.openError(path: path, code: status, message: message)
        }
        handle = opened
        do {
            sqlite3_busy_timeout(handle, 5_000)
            try configure(readOnly: readOnly)
            if !readOnly { try Migrations.apply(to: self, upTo: schemaVersion) }
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        try? commitHeld()  // what it holds are whole feeds
        cache.removeAll()  // statements are finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// The page size of a database this build creates (one that exists keeps its own). An entry's row
    /// holds a few KB (summary, content and their plain text): on 4 KB pages most rows run onto
    /// overflow pages, and every page is a WAL frame and a write of its own. On 16 KB pages a cold
    /// ingest of the N=1000 farm is 13–25 % faster (the file as large); at a million entries the file
    /// is 7 % smaller and queries as fast (measured).
    static let newPageSize = 16384

    private func configure(readOnly: Bool) throws(StoreError) {
        // Set before WAL mode, which fixes it. The first statement that reads the header follows: a file
        // that is not SQLite fails there, not at open.
        if !readOnly {
            try execute("PRAGMA page_size = \(Self.newPageSize)")
            try execute("PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA synchronous = NORMAL")
        try execute("PRAGMA foreign_keys = ON")
    }

    // MARK: - Statements

    /// Runs one or more statements that take no parameters and return nothing of interest.
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw error(code: status, message: message.map { String(cString: $0) }, sql: sql)
        }
    }

    private var cache: [String: Statement] = [:]

    /// The compiled statement for `sql`, prepared once per connection and reused.
    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let cached = cache[sql] { return cached }
        let compiled = try prepare(sql)
        cache[sql] = compiled
        return compiled
    }

    /// Compiles `sql` into a statement bound to this connection.
    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(code: status, message: nil, sql: sql)
        }
        return Statement(handle: statement, database: self)
    }

    /// The single integer a query returns, e.g. `PRAGMA user_version`.
    func integer(_ sql: String) throws(StoreError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.int64(at: 0)
    }

    /// The integer the one row of a query with parameters holds (nil for no row, or NULL).
    func integer(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int64? {
        var found: Int64?
        try statement(sql).query(values) { row in found = row.optionalInt64(at: 0) }
        return found
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. A
    /// transaction `heldTransaction` kept open is committed first.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try commitHeld()
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The transaction `heldTransaction` keeps open: when it began, how many calls it holds and how
    /// many entries they wrote; nil when none is open.
    private(set) var held: (since: ContinuousClock.Instant, calls: Int, entries: Int)?

    /// Runs `body` inside a transaction kept open after it returns, so that the next calls' changes
    /// share one commit (begun when none is open): a refresh round's feeds are written in a few large
    /// commits rather than many small ones, which rewrite the same index pages each time. `entries`
    /// counts what a result wrote. `commitHeld()` ends it; so does any `transaction`, and closing the
    /// connection. When `body` fails, everything held is rolled back with it (a savepoint per call
    /// would keep the earlier calls' changes, but SQLite then journals every page a second time: a
    /// third slower).
    func heldTransaction<T>(_ body: () throws(StoreError) -> T, entries: (T) -> Int) throws(StoreError) -> T {
        if held == nil {
            try execute("BEGIN IMMEDIATE")
            held = (.now, 0, 0)
        }
        do {
            let result = try body()
            held?.calls += 1
            held?.entries += entries(result)
            return result
        } catch {
            held = nil
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Commits what `heldTransaction` kept open, if anything.
    func commitHeld() throws(StoreError) {
        guard held != nil else { return }
        held = nil
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// What `onCommit` calls, kept alive as long as the connection can call it.
    private var commitAction: CommitAction?

    private final class CommitAction {
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
    }

    /// Calls `action` at every commit of a write on this connection, just before the commit completes
    /// (SQLite's commit hook; it must not use the connection).
    func onCommit(_ action: @escaping () -> Void) {
        let box = CommitAction(action)
        commitAction = box
        sqlite3_commit_hook(handle, { context in
            Unmanaged<CommitAction>.fromOpaque(context!).takeUnretainedValue().action()
            return 0  // non-zero would turn the commit into a rollback
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Runs `body` with the raw connection, for the few C APIs that need it (backup).
    func withHandle<T>(_ body: (OpaquePointer) -> T) -> T { body(handle) }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: - Errors

    func error(code: Int32, message: String?, sql: String?) -> StoreError {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        return Self.classify(path: path, code: code, message: text, sql: sql)
    }

    private static func openError(path: String, code: Int32, message: String) -> StoreError {
        if code & 0xff == SQLITE_CANTOPEN {
            return StoreError(.cannotOpen, code: code, message:
                "cannot open database \(path): \(message) (check that the directory exists and is writable)")
        }
        return classify(path: path, code: code, message: message, sql: nil)
    }

    static func classify(path: String, code: Int32, message: String, sql: String?) -> StoreError {
        switch code & 0xff {
        case SQLITE_NOTADB:
            return StoreError(.notADatabase, code: code, message:
                "\(path) is not an SQLite database (point --database at another file, or move this one away)")
        case SQLITE_CORRUPT:
            return StoreError(.corrupt, code: code, message:
                "database \(path) is corrupt: \(message) (restore it from a backup, or try sqlite3's .recover)")
        case SQLITE_READONLY:
            return StoreError(.readOnly, code: code, message:
                "database \(path) is read-only: \(message) (give the daemon's user write access to it and its directory)")
        default:
            let context = sql.map { " in `\($0.prefix(80))`" } ?? ""
            return StoreError(.sqlite, code: code, message: "database \(path): \(message)\(context)")
        }
    }
}

@available(*, unavailable)
extension Database: Sendable {}
