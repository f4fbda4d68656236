import Foundation

/// `aggregatord copy-database`: a whole database copied into an empty one, SQLite or PostgreSQL
/// either way (docs/ARCHITECTURE.md), with its ids and id sequences (apps cache ids). The source is read in
/// one snapshot, the target written in one transaction: a copy is whole or not made.
public enum DatabaseCopy {
    /// The tables, parents before children (foreign keys hold at every row).
    static let tables = ["accounts", "icons", "feeds", "feed_latest", "categories", "entries", "entry_state", "entry_sources",
                         "entry_versions", "subscriptions", "entry_marks", "entry_edits", "entry_pages", "page_readers",
                         "media_progress",
                         "api_tokens", "web_sessions", "store_totals"]
    /// Those whose ids come from a sequence that never gives an id out twice.
    static let sequencedTables = ["accounts", "api_tokens", "web_sessions", "icons", "entries", "categories", "feeds",
                                  "subscriptions", "entry_versions"]

    /// How far a copy got: a table copied, or the search index about to be built (the longest step:
    /// ~100 s of a 1,000,000-entry copy, which printed nothing meanwhile).
    public enum Progress: Sendable, Equatable {
        case copied(table: String, rows: Int)
        case indexing(entries: Int)
    }

    /// What a copy copied: rows per table.
    public struct Counts: Sendable {
        public var rows: [String: Int] = [:]

        /// The counts, as a line to print.
        public var summary: String {
            [("accounts", "accounts"), ("feeds", "feeds"), ("subscriptions", "subscriptions"), ("entries", "entries"),
             ("entry_marks", "marks"), ("api_tokens", "tokens")]
                .map { "\($0.1)=\(rows[$0.0] ?? 0)" }.joined(separator: " ")
        }
    }

    /// Copies `source` into `target` (each an SQLite path or a PostgreSQL URI), calling `progress`
    /// after each table and before indexing the entries for search. A PostgreSQL source that daemons are connected to
    /// is refused unless `whileInUse` (a backup: its snapshot is one moment's even while they write).
    /// - Throws: `StoreError` when the source is not at this build's schema version, the target is not
    ///   empty, or either cannot be opened, read or written; the target is then left as it was.
    public static func copy(from source: String, to target: String, whileInUse: Bool = false,
                            progress: (Progress) -> Void = { _ in }) throws(StoreError) -> Counts {
        guard FeedStore.location(of: source) != FeedStore.location(of: target) || source != target else {
            throw StoreError(.cannotOpen, message: "the source and the target are the same database")
        }
        let from = try openSource(source, whileInUse: whileInUse)
        try requireEmpty(target)
        let to = try Database(path: target)
        try from.execute(from.dialect == .sqlite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? from.execute("ROLLBACK") }
        return try to.transaction { () throws(StoreError) -> Counts in
            // The rows a new database starts with (account 1, the totals) come from the source instead.
            try to.execute("DELETE FROM store_totals; DELETE FROM accounts")
            var counts = Counts()
            for table in tables {
                counts.rows[table] = try copyRows(of: table, from: from, to: to)
                progress(.copied(table: table, rows: counts.rows[table] ?? 0))
            }
            try copySequences(from: from, to: to)
            progress(.indexing(entries: counts.rows["entries"] ?? 0))
            try rebuildSearchIndex(of: to)
            return counts
        }
    }

    /// The source, opened without changing it, at this build's schema version.
    private static func openSource(_ source: String, whileInUse: Bool) throws(StoreError) -> Database {
        let database = try Database(path: source, create: false, readOnly: true)
        let version: Int64?
        switch database.dialect {
        case .sqlite:
            version = try database.integer("PRAGMA user_version")
        case .postgres:
            version = try database.integer("""
                SELECT CASE WHEN to_regclass('aggregator_schema') IS NULL THEN 0 ELSE 1 END
                """) == 1 ? try database.integer("SELECT max(version) FROM aggregator_schema") : 0
            try database.execute("SET application_name = 'aggregatord copy-database'")
        }
        guard version == Migrations.currentVersion else {
            throw StoreError(.newerSchema, message: "\(database.location) has schema version \(version ?? 0), not this build's "
                + "\(Migrations.currentVersion): \((version ?? 0) == 0 ? "it holds no aggregator data" : "start this aggregatord on it once to bring it up to date (or use the matching build)")")
        }
        if database.dialect == .postgres, !whileInUse, let others = try database.integer("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'aggregatord'
            """), others > 0 {
            throw StoreError(.cannotOpen, message: "\(database.location) is in use by \(others) aggregatord connection(s): "
                + "stop the daemons first (a copy of a database being written would not be one moment's)")
        }
        return database
    }

    /// Refuses a target that holds anything: a copy never merges into or overwrites data.
    private static func requireEmpty(_ target: String) throws(StoreError) {
        if PostgresConnection.isURI(target) {
            let connection = try PostgresConnection(uri: target)
            let statement = try connection.prepare("""
                SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
                AND tablename IN ('aggregator_schema', 'feeds', 'entries', 'accounts')
                """)
            try statement.bind([])
            let found = try statement.step() ? statement.int64(at: 0) : 0
            statement.reset()
            guard found == 0 else {
                throw StoreError(.cannotOpen, message: "\(connection.location) already holds aggregator tables "
                    + "(copy into a new, empty database: createdb NAME)")
            }
        } else if let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? nil, size > 0 {
            throw StoreError(.cannotOpen, message: "\(target) already exists (copy into a new file, or remove it first)")
        }
    }

    /// Copies a table's rows: SQLite steps through them; from PostgreSQL they come through a cursor, a
    /// few thousand at a time (libpq holds a whole result in memory).
    private static func copyRows(of table: String, from: Database, to: Database) throws(StoreError) -> Int {
        var columns: [String] = []
        var pending: [SQLValue] = []
        var count = 0
        // 64 rows a statement: on PostgreSQL a round trip costs more than a row.
        let rowsPerInsert = 64
        func insertPending() throws(StoreError) {
            guard !pending.isEmpty else { return }
            let placeholders = SQLValue.rowPlaceholders(pending.count / columns.count, columns: columns.count)
            try to.statement("INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES \(placeholders)").run(pending)
            pending.removeAll(keepingCapacity: true)
        }
        func copy(_ row: Statement) throws(StoreError) {
            if columns.isEmpty { columns = (0..<row.columnCount).map { row.columnName(at: $0) } }
            pending += (0..<row.columnCount).map { row.value(at: $0) }
            count += 1
            if pending.count >= rowsPerInsert * columns.count { try insertPending() }
        }
        switch from.dialect {
        case .sqlite:
            try from.prepare("SELECT * FROM \(table)").query { row throws(StoreError) in try copy(row) }
        case .postgres:
            try from.execute("DECLARE copying NO SCROLL CURSOR FOR SELECT * FROM \(table)")
            let fetch = try from.prepare("FETCH FORWARD 2000 FROM copying")
            var fetched: Int
            repeat {
                fetched = 0
                try fetch.query { row throws(StoreError) in
                    fetched += 1
                    try copy(row)
                }
            } while fetched > 0
            try from.execute("CLOSE copying")
        }
        try insertPending()
        return count
    }

    /// Each id sequence resumes where the source's did: an id given out there (then deleted) is never
    /// given out again here.
    private static func copySequences(from: Database, to: Database) throws(StoreError) {
        for table in sequencedTables {
            let last: Int64?
            switch from.dialect {
            case .sqlite:
                last = try from.integer("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(table)])
            case .postgres:
                last = try from.integer("""
                    SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(table)_id_seq
                    """)
            }
            let highest = max(last ?? 0, try to.integer("SELECT coalesce(max(id), 0) FROM \(table)") ?? 0)
            guard highest > 0 else { continue }
            switch to.dialect {
            case .sqlite:
                try to.statement("DELETE FROM sqlite_sequence WHERE name = ?1").run([.text(table)])
                try to.statement("INSERT INTO sqlite_sequence(name, seq) VALUES (?1, ?2)").run([.text(table), .integer(highest)])
            case .postgres:
                _ = try to.integer("SELECT setval(pg_get_serial_sequence('\(table)', 'id'), ?1)", [.integer(highest)])
            }
        }
    }

    /// The full-text index of the copied entries, built in the target's own form.
    private static func rebuildSearchIndex(of database: Database) throws(StoreError) {
        let live = "FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE st.removed = 0"
        switch database.dialect {
        case .sqlite:
            try database.execute("INSERT INTO entries_fts(rowid, title, body, author) SELECT e.id, e.title, e.search_text, e.author \(live)")
        case .postgres:
            // The GIN index is built once at the end (4 times faster than entry by entry, measured), from
            // one pass through a cursor (batches by id would each be planned on tables without statistics).
            try database.execute("DROP INDEX entry_search_documents")
            try database.execute("DECLARE indexing NO SCROLL CURSOR FOR SELECT e.id, e.title, e.search_text, e.author \(live)")
            let fetch = try database.prepare("FETCH FORWARD 64 FROM indexing")
            while true {
                var documents: [SQLValue] = []
                try fetch.query { row in
                    documents += [.integer(row.int64(at: 0)), .text(SearchText.document(title: row.text(at: 1), author: row.text(at: 3),
                                                                                        body: row.text(at: 2)))]
                }
                guard !documents.isEmpty else { break }
                try PostgresSearch.insert(documents, into: database)
            }
            try database.execute("CLOSE indexing")
            try database.execute("CREATE INDEX entry_search_documents ON entry_search USING gin(document)")
            // The versions' (on SQLite, their triggers indexed them as they were copied).
            try database.dialect.search.indexVersions(entry: nil, in: database)
        }
    }
}
