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
        try Database.requireEmpty(target)
        let to = try Database(path: target)
        try from.beginSnapshot()
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
            try to.dialect.search.rebuildIndex(in: to)
            return counts
        }
    }

    /// The source, opened without changing it, at this build's schema version.
    private static func openSource(_ source: String, whileInUse: Bool) throws(StoreError) -> Database {
        let database = try Database(path: source, create: false, readOnly: true)
        let version = try database.schemaVersionForCopy()
        guard version == Migrations.currentVersion else {
            throw StoreError(.newerSchema, message: "\(database.location) has schema version \(version ?? 0), not this build's "
                + "\(Migrations.currentVersion): \((version ?? 0) == 0 ? "it holds no aggregator data" : "start this aggregatord on it once to bring it up to date (or use the matching build)")")
        }
        if !whileInUse, let others = try database.daemonConnections(), others > 0 {
            throw StoreError(.cannotOpen, message: "\(database.location) is in use by \(others) aggregatord connection(s): "
                + "stop the daemons first (a copy of a database being written would not be one moment's)")
        }
        return database
    }

    /// Copies a table's rows (`Database.eachRow`).
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
        try from.eachRow(of: table) { row throws(StoreError) in try copy(row) }
        try insertPending()
        return count
    }

    /// Each id sequence resumes where the source's did: an id given out there (then deleted) is never
    /// given out again here.
    private static func copySequences(from: Database, to: Database) throws(StoreError) {
        for table in sequencedTables {
            let last = try from.lastSequencedID(of: table)
            let highest = max(last ?? 0, try to.integer("SELECT coalesce(max(id), 0) FROM \(table)") ?? 0)
            if highest > 0 { try to.resumeSequence(of: table, after: highest) }
        }
    }
}
