import Foundation

/// The store's connection to its database, whichever backend holds it (`SQLConnection`): compiled
/// statements kept for reuse, transactions, and the group commits held open across calls. Not
/// thread-safe: one owner (the writer actor, or one reader).
final class Database {
    /// The database as configured: a file path, or a PostgreSQL URI (which may hold a password: never
    /// shown; messages name `location`).
    let path: String
    let connection: any SQLConnection
    var dialect: SQLDialect { connection.dialect }
    /// Where the data lives, for messages.
    var location: String { connection.location }

    /// Opens (and with `create`, creates) the database at `path` and applies pending migrations
    /// (up to `schemaVersion`: tests build older databases with it). `limits`: PostgreSQL's waits.
    /// - Throws: `StoreError` naming what is wrong and what to do.
    init(path: String, create: Bool = true, readOnly: Bool = false,
         schemaVersion: Int64 = Migrations.currentVersion, limits: DatabaseLimits = .current) throws(StoreError) {
        self.path = path
        if PostgresConnection.isURI(path) {
            connection = try PostgresConnection(uri: path, limits: limits)
        } else {
            connection = try SQLiteConnection(path: path, create: create, readOnly: readOnly)
        }
        do {
            if !readOnly { try Migrations.apply(to: self, upTo: schemaVersion) }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        try? commitHeld()  // what it holds are whole feeds
        close()
    }

    /// A PostgreSQL connection closes when the last statement holding it goes; SQLite's closes now (a
    /// statement still held keeps it open until finalized: `sqlite3_close_v2`).
    private func close() {
        cache.removeAll()  // statements are finalized before the connection closes
        (connection as? SQLiteConnection)?.close()
    }

    // MARK: - Statements

    /// Runs one or more statements that take no parameters and return nothing of interest.
    func execute(_ sql: String) throws(StoreError) {
        try connection.execute(sql)
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
        Statement(try connection.prepare(sql))
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
    /// transaction `heldTransaction` kept open is committed first. `body` must change nothing but
    /// the database (what it declares inside is made afresh), for it may run again from the start
    /// (docs/RELIABILITY.md, "Conflicts" and "The database restarting"):
    /// - when PostgreSQL undid the transaction to end a deadlock or a serialization failure
    ///   (`StoreError.Kind.conflict`): up to three more times, each after 5 to 50 ms at random (two
    ///   daemons storing the same new entries at once deadlock now and then);
    /// - once, when the connection was lost before COMMIT was sent: the server rolled it back, and the
    ///   failure made a new connection. Lost after COMMIT was sent, whether it committed is unknown:
    ///   that is never run again.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try commitHeld()
        var mayRunAfterLoss = dialect == .postgres
        let result = try againAfterConflicts { () throws(StoreError) -> T in
            do throws(StoreError) {
                return try uncommitted(body)
            } catch where error.kind == .cannotOpen && mayRunAfterLoss {
                mayRunAfterLoss = false
                return try uncommitted(body)
            }
        }
        do {
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `body` in a transaction begun here and left open; rolled back when it throws.
    private func uncommitted<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            try connection.beginWrite()
            return try body()
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
            try connection.beginWrite()
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

    /// Calls `action` at every commit of a write (SQLite only: what it serves, the checkpointer, is too).
    func onCommit(_ action: @escaping () -> Void) {
        (connection as? SQLiteConnection)?.onCommit(action)
    }

    /// Rows the last statement inserted, updated or deleted (on PostgreSQL, once the statements sent
    /// ahead are answered: their errors are thrown here).
    func changes() throws(StoreError) -> Int { try connection.changedRows() }
}

@available(*, unavailable)
extension Database: Sendable {}

/// Runs `run`, and again while PostgreSQL undoes it to end a deadlock or a serialization failure
/// (`StoreError.Kind.conflict`), up to three more times, each after 5 to 50 ms at random
/// (docs/RELIABILITY.md, "Conflicts"). `run` must be a whole transaction, so that nothing of an
/// undone run stays: `Database.transaction`'s body, or a statement run alone.
func againAfterConflicts<T>(_ run: () throws(StoreError) -> T) throws(StoreError) -> T {
    var retries = 0
    while true {
        do {
            return try run()
        } catch where error.kind == .conflict && retries < 3 {
            retries += 1
            usleep(useconds_t.random(in: 5_000...50_000))
        }
    }
}
