import Foundation

/// The full-text index, one per backend: the SQL of each (`SQLDialect.search`), so that nothing outside
/// this folder asks which backend it talks to.
///
/// On SQLite, `entries_fts`: contentless FTS5 over title, plain text and author, keyed by entry id, so
/// it is written in increasing rowid order, the order FTS5 writes fastest. Migration 5 keyed it by
/// date instead (`max(sort_at, 0) · 2^29 + id`), which let a search walk it newest first; but FTS5
/// flushes its pending terms whenever a rowid goes down and stores rowid deltas as varints (~6 bytes a
/// match instead of 1–2), so a cold round's ingest took twice as long and the index grew by a third.
/// Migration 6 went back to ids; searches in date order rank their matches by the date kept in
/// `entry_state` instead.
///
/// On PostgreSQL, `entry_search`: a `tsvector` per entry under a GIN index, title weighted A, author
/// B, text C. Its words are cut and folded here (`SearchText`), as FTS5's unicode61 tokenizer with
/// `remove_diacritics 2` cuts and folds them, so a query matches the same entries on both.
protocol SearchSQL: Sendable {
    /// The index in a FROM clause, as `m`.
    func table() -> String
    /// The entry id of an index row of `m`.
    func entryID() -> String
    /// `m` matches the query bound as `parameter` (`SearchQuery.bound(for:)`).
    func matches(_ parameter: String) -> String
    /// The ids of the entries matching the query bound as `parameter`, for `IN (…)`.
    func matchingIDs(_ parameter: String) -> String
    /// Whether entry `entry` matches the query bound as `parameter`.
    func entryMatches(_ parameter: String, entry: String) -> String
    /// A row of `m`'s relevance, lower is better: bm25 with the title weighted highest, then the
    /// author, then the text; on PostgreSQL ts_rank by the same weights' order, negated.
    func score(_ parameter: String) -> String

    // Text versions (docs/SECURITY.md): each has an index of its own, `entry_versions_fts` keyed by the
    // version's id on SQLite, `entry_version_search` on PostgreSQL. A search matches an entry by the
    // text the account reads: the row's (indexed above) unless it reads a version, else the version's.

    /// The versions' index in a FROM clause, as `f`, joined to the versions `v` it indexes.
    func versionTable() -> String
    /// `f` matches the query bound as `parameter`.
    func versionMatches(_ parameter: String) -> String
    /// A row of `f`'s relevance, as `score` weighs it (within the versions' own index).
    func versionScore(_ parameter: String) -> String

    /// Indexes an entry's title, plain text and author.
    func index(_ id: Int64, title: String?, body: String?, author: String?, in database: Database) throws(StoreError)
    /// Indexes entry `id`'s version for `feed`, just written with `entry`'s text.
    func indexVersion(of id: Int64, feed: Int64, _ entry: IncomingEntry, in database: Database) throws(StoreError)
    /// Indexes the versions (of entry `entry`, else all) not indexed yet.
    func indexVersions(entry: Int64?, in database: Database) throws(StoreError)
    /// Takes the live entries among `ids` (a fixed subquery or list, with its parameters) out of the index.
    func unindex(where ids: String, _ values: [SQLValue], in database: Database) throws(StoreError)

    /// `query` as this backend's index reads it.
    func bound(_ query: SearchQuery) -> SQLValue
    /// Every match of the query bound as `parameter`, as `m`, for a search that lists its matches and
    /// then sorts them; nil where the index cannot be read so (SQLite's walk is as fast).
    func listedMatches(_ parameter: String) -> String?
    /// Whether the search bound as `query` matches so few entries that listing them all and sorting
    /// them costs less than walking the dates until `limit` of them are found.
    func hasFewMatches(_ query: SQLValue, limit: Int, in database: Database) throws(StoreError) -> Bool
    /// Statements around a search's query (set, reset), or nil: the plan a search needs depends on its words.
    var searchSession: (set: String, reset: String)? { get }
    /// Indexes every live entry (and version) of a database whose rows were just copied in.
    func rebuildIndex(in database: Database) throws(StoreError)
    /// Whether an entry's index document is built in Swift (`SearchText.document`), and so may be
    /// built ahead, off the writer.
    var buildsDocuments: Bool { get }
}

/// The live entries' id, title, text and author, for indexing them all.
private let liveEntries = "SELECT e.id, e.title, e.search_text, e.author FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE st.removed = 0"

extension SQLDialect {
    /// The full-text index's SQL on this backend.
    var search: any SearchSQL {
        switch self {
        case .sqlite: SQLiteSearch()
        case .postgres: PostgresSearch()
        }
    }
}

/// SQLite's index: FTS5 tables (`entries_fts`, and `entry_versions_fts`, which triggers keep).
struct SQLiteSearch: SearchSQL {
    func table() -> String { "entries_fts m" }
    func entryID() -> String { "m.rowid" }
    func matches(_ parameter: String) -> String { "entries_fts MATCH \(parameter)" }
    func matchingIDs(_ parameter: String) -> String { "SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(parameter)" }
    func entryMatches(_ parameter: String, entry: String) -> String {
        "EXISTS (SELECT 1 FROM entries_fts WHERE entries_fts MATCH \(parameter) AND rowid = \(entry))"
    }
    func score(_ parameter: String) -> String { "bm25(entries_fts, 10.0, 1.0, 2.0)" }
    func versionTable() -> String { "entry_versions_fts f JOIN entry_versions v ON v.id = f.rowid" }
    func versionMatches(_ parameter: String) -> String { "entry_versions_fts MATCH \(parameter)" }
    func versionScore(_ parameter: String) -> String { "bm25(entry_versions_fts, 10.0, 1.0, 2.0)" }

    func index(_ id: Int64, title: String?, body: String?, author: String?, in database: Database) throws(StoreError) {
        try database.statement("INSERT INTO entries_fts(rowid, title, body, author) VALUES (?1, ?2, ?3, ?4)")
            .run([.integer(id), SQLValue(title), SQLValue(body), SQLValue(author)])
    }

    /// The versions' triggers index them as they are written.
    func indexVersion(of id: Int64, feed: Int64, _ entry: IncomingEntry, in database: Database) throws(StoreError) {}
    func indexVersions(entry: Int64?, in database: Database) throws(StoreError) {}

    func bound(_ query: SearchQuery) -> SQLValue { .text(query.expression) }
    func listedMatches(_ parameter: String) -> String? { nil }
    func hasFewMatches(_ query: SQLValue, limit: Int, in database: Database) throws(StoreError) -> Bool { false }
    var searchSession: (set: String, reset: String)? { nil }
    var buildsDocuments: Bool { false }

    /// The versions' triggers indexed them as they were copied.
    func rebuildIndex(in database: Database) throws(StoreError) {
        try database.execute("INSERT INTO entries_fts(rowid, title, body, author) \(liveEntries)")
    }

    /// A contentless FTS5 index is told the indexed values again to take them out.
    func unindex(where ids: String, _ values: [SQLValue], in database: Database) throws(StoreError) {
        try database.statement("""
            INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
            SELECT 'delete', e.id, e.title, e.search_text, e.author
            FROM entries e JOIN entry_state st ON st.entry_id = e.id
            WHERE st.removed = 0 AND e.id IN (\(ids))
            """).run(values)
    }
}

/// PostgreSQL's index: a `tsvector` per entry (`entry_search`) and per version (`entry_version_search`)
/// under GIN indexes, documents built by `SearchText`.
struct PostgresSearch: SearchSQL {
    func table() -> String { "entry_search m" }
    func entryID() -> String { "m.entry_id" }
    func matches(_ parameter: String) -> String { "m.document @@ \(parameter)::tsquery" }
    func matchingIDs(_ parameter: String) -> String { "SELECT entry_id FROM entry_search WHERE document @@ \(parameter)::tsquery" }
    func entryMatches(_ parameter: String, entry: String) -> String {
        "EXISTS (SELECT 1 FROM entry_search WHERE document @@ \(parameter)::tsquery AND entry_id = \(entry))"
    }
    func score(_ parameter: String) -> String { "-ts_rank(m.document, \(parameter)::tsquery)" }
    func versionTable() -> String { "entry_version_search f JOIN entry_versions v ON v.id = f.version_id" }
    func versionMatches(_ parameter: String) -> String { "f.document @@ \(parameter)::tsquery" }
    func versionScore(_ parameter: String) -> String { "-ts_rank(f.document, \(parameter)::tsquery)" }

    func bound(_ query: SearchQuery) -> SQLValue { .text(query.tsquery) }
    var buildsDocuments: Bool { true }

    /// Found by the GIN index first, whatever order is asked for after (`OFFSET 0` keeps the planner
    /// from folding it into a walk of the dates).
    func listedMatches(_ parameter: String) -> String? {
        "(SELECT entry_id FROM entry_search WHERE document @@ \(parameter)::tsquery OFFSET 0) m"
    }

    /// By the planner's estimate: matches² ≤ limit × entries (a walk reads about limit × entries /
    /// matches rows, more where the matches are old). A word in 0.3 % of 1,000,000 entries: 190–530 ms
    /// walked (its matches were old), 25 ms listed; one in 6 %: 5 ms walked, 490 ms listed.
    func hasFewMatches(_ query: SQLValue, limit: Int, in database: Database) throws(StoreError) -> Bool {
        var plan = ""
        try database.statement("EXPLAIN (FORMAT JSON) SELECT 1 FROM entry_search WHERE document @@ ?1::tsquery")
            .query([query]) { row in plan += row.text(at: 0) ?? "" }
        let entries = try database.integer(
            "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'entry_search'::regclass") ?? 0
        guard let json = try? JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: Any]],
              let rows = (json.first?["Plan"] as? [String: Any])?["Plan Rows"] as? NSNumber, entries > 0 else { return false }
        let matches = rows.int64Value
        return matches * matches <= Int64(limit) * entries
    }

    /// PostgreSQL plans a prepared statement once for every value after its fifth run, but a search's
    /// best plan depends on its words: the walk of the dates that suits a common word reads most of
    /// the index for a rare one (a word in 6 % of 1,000,000 entries by relevance: 15 ms planned for
    /// it, 260 ms with the plan made for any word).
    var searchSession: (set: String, reset: String)? { ("SET plan_cache_mode = force_custom_plan", "RESET plan_cache_mode") }

    func index(_ id: Int64, title: String?, body: String?, author: String?, in database: Database) throws(StoreError) {
        try Self.insert([.integer(id), .text(SearchText.document(title: title, author: author, body: body))], into: database)
    }

    func indexVersion(of id: Int64, feed: Int64, _ entry: IncomingEntry, in database: Database) throws(StoreError) {
        try database.statement("""
            INSERT INTO entry_version_search(version_id, document)
            SELECT id, ?3::tsvector FROM entry_versions WHERE entry_id = ?1 AND feed_id = ?2
            ON CONFLICT (version_id) DO UPDATE SET document = excluded.document
            """).run([.integer(id), .integer(feed), .text(SearchText.document(of: entry))])
    }

    /// A few at a time.
    func indexVersions(entry: Int64?, in database: Database) throws(StoreError) {
        let unindexed = try database.statement("""
            SELECT v.id, v.title, v.author, v.search_text FROM entry_versions v
            WHERE v.id > ?1 AND (?2::bigint IS NULL OR v.entry_id = ?2)
              AND NOT EXISTS (SELECT 1 FROM entry_version_search f WHERE f.version_id = v.id)
            ORDER BY v.id LIMIT 64
            """)
        var last: Int64 = 0
        while true {
            var documents: [SQLValue] = []
            try unindexed.query([.integer(last), entry.map(SQLValue.integer) ?? .null]) { row in
                last = row.int64(at: 0)
                documents += [.integer(last), .text(SearchText.document(title: row.text(at: 1), author: row.text(at: 2),
                                                                        body: row.text(at: 3)))]
            }
            guard !documents.isEmpty else { return }
            try Self.insert(documents, into: database, table: "entry_version_search", key: "version_id")
        }
    }

    func unindex(where ids: String, _ values: [SQLValue], in database: Database) throws(StoreError) {
        try database.statement("DELETE FROM entry_search WHERE entry_id IN (\(ids))").run(values)
    }

    /// The GIN index is built once at the end (4 times faster than entry by entry, measured), from one
    /// pass through a cursor (batches by id would each be planned on tables without statistics).
    func rebuildIndex(in database: Database) throws(StoreError) {
        try database.execute("DROP INDEX entry_search_documents")
        try database.execute("DECLARE indexing NO SCROLL CURSOR FOR \(liveEntries)")
        let fetch = try database.prepare("FETCH FORWARD 64 FROM indexing")
        while true {
            var documents: [SQLValue] = []
            try fetch.query { row in
                documents += [.integer(row.int64(at: 0)), .text(SearchText.document(title: row.text(at: 1), author: row.text(at: 3),
                                                                                    body: row.text(at: 2)))]
            }
            guard !documents.isEmpty else { break }
            try Self.insert(documents, into: database)
        }
        try database.execute("CLOSE indexing")
        try database.execute("CREATE INDEX entry_search_documents ON entry_search USING gin(document)")
        try indexVersions(entry: nil, in: database)
    }

    /// Inserts (or replaces) index documents: per entry, its id and its `document` (per version in
    /// `entry_version_search`, its id).
    static func insert(_ documents: [SQLValue], into database: Database,
                       table: String = "entry_search", key: String = "entry_id") throws(StoreError) {
        let count = documents.count / 2
        guard count > 0 else { return }
        let rows = (0..<count).map { "(?\($0 * 2 + 1), ?\($0 * 2 + 2)::tsvector)" }.joined(separator: ", ")
        try database.statement("""
            INSERT INTO \(table)(\(key), document) VALUES \(rows)
            ON CONFLICT (\(key)) DO UPDATE SET document = excluded.document
            """).run(documents)
    }
}
