import Foundation

/// The full-text index, one per backend.
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
enum SearchIndex {
    /// The index in a FROM clause, as `m`.
    static func table(_ dialect: SQLDialect) -> String {
        dialect == .sqlite ? "entries_fts m" : "entry_search m"
    }

    /// On PostgreSQL, every match of the query bound as `parameter`, as `m` (its `entry_id`): found by
    /// the GIN index first, whatever order is asked for after (`OFFSET 0` keeps the planner from
    /// folding it into a walk of the dates).
    static func listedMatches(_ parameter: String) -> String {
        "(SELECT entry_id FROM entry_search WHERE document @@ \(parameter)::tsquery OFFSET 0) m"
    }

    /// The entry id of an index row of `m`.
    static func entryID(_ dialect: SQLDialect) -> String {
        dialect == .sqlite ? "m.rowid" : "m.entry_id"
    }

    /// `m` matches the query bound as `parameter` (`SearchQuery.bound(for:)`).
    static func matches(_ dialect: SQLDialect, _ parameter: String) -> String {
        dialect == .sqlite ? "entries_fts MATCH \(parameter)" : "m.document @@ \(parameter)::tsquery"
    }

    /// The ids of the entries matching the query bound as `parameter`, for `IN (…)`.
    static func matchingIDs(_ dialect: SQLDialect, _ parameter: String) -> String {
        dialect == .sqlite
            ? "SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(parameter)"
            : "SELECT entry_id FROM entry_search WHERE document @@ \(parameter)::tsquery"
    }

    /// Whether entry `entry` matches the query bound as `parameter`.
    static func entryMatches(_ dialect: SQLDialect, _ parameter: String, entry: String) -> String {
        dialect == .sqlite
            ? "EXISTS (SELECT 1 FROM entries_fts WHERE entries_fts MATCH \(parameter) AND rowid = \(entry))"
            : "EXISTS (SELECT 1 FROM entry_search WHERE document @@ \(parameter)::tsquery AND entry_id = \(entry))"
    }

    /// A row of `m`'s relevance, lower is better: bm25 with the title weighted highest, then the
    /// author, then the text; on PostgreSQL ts_rank by the same weights' order, negated.
    static func score(_ dialect: SQLDialect, _ parameter: String) -> String {
        dialect == .sqlite ? "bm25(entries_fts, 10.0, 1.0, 2.0)" : "-ts_rank(m.document, \(parameter)::tsquery)"
    }

    // Text versions (docs/SECURITY.md): each has an index of its own, `entry_versions_fts` keyed by the
    // version's id on SQLite, `entry_version_search` on PostgreSQL. A search matches an entry by the
    // text the account reads: the row's (indexed above) unless it reads a version, else the version's.

    /// The versions' index in a FROM clause, as `f`, joined to the versions `v` it indexes.
    static func versionTable(_ dialect: SQLDialect) -> String {
        dialect == .sqlite
            ? "entry_versions_fts f JOIN entry_versions v ON v.id = f.rowid"
            : "entry_version_search f JOIN entry_versions v ON v.id = f.version_id"
    }

    /// `f` matches the query bound as `parameter`.
    static func versionMatches(_ dialect: SQLDialect, _ parameter: String) -> String {
        dialect == .sqlite ? "entry_versions_fts MATCH \(parameter)" : "f.document @@ \(parameter)::tsquery"
    }

    /// A row of `f`'s relevance, as `score` weighs it (within the versions' own index).
    static func versionScore(_ dialect: SQLDialect, _ parameter: String) -> String {
        dialect == .sqlite ? "bm25(entry_versions_fts, 10.0, 1.0, 2.0)" : "-ts_rank(f.document, \(parameter)::tsquery)"
    }
}

extension FeedStore {
    /// Indexes an entry's title, plain text and author.
    func indexText(_ id: Int64, _ title: String?, _ body: String?, _ author: String?) throws(StoreError) {
        switch database.dialect {
        case .sqlite:
            try database.statement("INSERT INTO entries_fts(rowid, title, body, author) VALUES (?1, ?2, ?3, ?4)")
                .run([.integer(id), SQLValue(title), SQLValue(body), SQLValue(author)])
        case .postgres:
            try SearchText.insert([.integer(id), .text(SearchText.document(title: title, author: author, body: body))],
                                  into: database)
        }
    }

    /// Indexes entry `id`'s version for `feed`, just written with `entry`'s text (on PostgreSQL; SQLite's
    /// triggers have), and notes that the entry has versions.
    func indexVersion(of id: Int64, feed: Int64, _ entry: IncomingEntry) throws(StoreError) {
        if database.dialect == .postgres {
            try database.statement("""
                INSERT INTO entry_version_search(version_id, document)
                SELECT id, ?3::tsvector FROM entry_versions WHERE entry_id = ?1 AND feed_id = ?2
                ON CONFLICT (version_id) DO UPDATE SET document = excluded.document
                """).run([.integer(id), .integer(feed), .text(SearchText.document(of: entry))])
        }
        try database.statement("UPDATE entry_state SET versioned = 1 WHERE entry_id = ?1 AND versioned = 0").run([.integer(id)])
    }

    /// Indexes the versions entry `id`'s other sources just kept of its row's text.
    func indexCopiedVersions(of id: Int64) throws(StoreError) {
        try SearchText.indexVersions(database, entry: id)
        try database.statement("UPDATE entry_state SET versioned = 1 WHERE entry_id = ?1 AND versioned = 0").run([.integer(id)])
    }

    /// Takes an entry out of the index: a contentless FTS5 index needs the indexed values again.
    func unindexText(_ id: Int64) throws(StoreError) {
        try unindexText(where: "?1", [.integer(id)])
    }

    /// Takes out of the index the live entries among `ids` (a fixed subquery or list with its
    /// parameters: the statement is kept for reuse).
    func unindexText(where ids: String, _ values: [SQLValue]) throws(StoreError) {
        switch database.dialect {
        case .sqlite:
            try database.statement("""
                INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
                SELECT 'delete', e.id, e.title, e.search_text, e.author
                FROM entries e JOIN entry_state st ON st.entry_id = e.id
                WHERE st.removed = 0 AND e.id IN (\(ids))
                """).run(values)
        case .postgres:
            try database.statement("DELETE FROM entry_search WHERE entry_id IN (\(ids))").run(values)
        }
    }
}

/// Text cut into words as FTS5's unicode61 tokenizer cuts it (letters, digits and private-use
/// characters are word characters; anything else separates), lowercased and without diacritics,
/// words separated by one space: what PostgreSQL's `simple` configuration then indexes as they are.
enum SearchText {
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

    /// On PostgreSQL, indexes the versions (of entry `entry`, else all) that have no index document
    /// yet, a few at a time; SQLite's triggers index each version as it is written.
    static func indexVersions(_ database: Database, entry: Int64? = nil) throws(StoreError) {
        guard database.dialect == .postgres else { return }
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
                documents += [.integer(last), .text(document(title: row.text(at: 1), author: row.text(at: 2), body: row.text(at: 3)))]
            }
            guard !documents.isEmpty else { return }
            try insert(documents, into: database, table: "entry_version_search", key: "version_id")
        }
    }

    /// The document of an entry: its title, author and plain text.
    static func document(of entry: IncomingEntry) -> String {
        document(title: entry.title, author: entry.author, body: entry.searchText)
    }

    /// An entry's index document as a `tsvector` literal: its words with their positions, weighted A
    /// in the title, B in the author, C in the text, positions running on from one to the next as
    /// `to_tsvector` joined with `||` numbers them. Built here, not by `to_tsvector` on the server:
    /// reading the literal costs the server a sixth (measured), and the words are exactly those
    /// `words` cuts, as a query's are. Each occurrence is written as it comes (`'a':1A 'b':2A
    /// 'a':3A`): the server sorts and merges them, keeps 256 positions a word and clamps positions
    /// at 16,383. Words of 2 KB or more and text past 512 KB of document are left out (PostgreSQL's
    /// limits are 2 KB and 1 MB).
    static func document(title: String?, author: String?, body: String?) -> String {
        var output: [UInt8] = []
        var position = 0
        for (text, weight) in [(title, UInt8(ascii: "A")), (author, UInt8(ascii: "B")), (body, UInt8(ascii: "C"))] {
            let cut = wordBytes(text)
            var start = 0
            // Each word of `cut` (one space between words), as it comes: no array of them is made.
            while start < cut.count {
                var end = start
                while end < cut.count, cut[end] != UInt8(ascii: " ") { end += 1 }
                position += 1
                if end - start < 2046, output.count < 512 * 1024 {
                    if !output.isEmpty { output.append(UInt8(ascii: " ")) }
                    output.append(UInt8(ascii: "'"))
                    output += cut[start..<end]
                    output += [UInt8(ascii: "'"), UInt8(ascii: ":")]
                    output += String(min(position, 16383)).utf8
                    output.append(weight)
                }
                start = end + 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func words(_ text: String?) -> String {
        String(decoding: wordBytes(text), as: UTF8.self)
    }

    /// `words(_:)` as UTF-8 bytes.
    private static func wordBytes(_ text: String?) -> [UInt8] {
        guard let text, !text.isEmpty else { return [] }
        // Most text is ASCII: cut and lowercased byte by byte, without Foundation's folding (most of
        // the client's time in a PostgreSQL ingest before).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text) }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var output: [UInt8] = []
        output.reserveCapacity(folded.utf8.count)
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            // ASCII by value: asking Unicode's tables of every scalar was a fifth of a PostgreSQL
            // ingest of the farm's (partly non-ASCII) feeds, appending to a scalar view another tenth.
            let isWord = scalar.isASCII ? isASCIIWordByte(UInt8(scalar.value)) : isWordScalar(scalar)
            guard isWord else {
                pendingSpace = true
                continue
            }
            if pendingSpace, !output.isEmpty { output.append(UInt8(ascii: " ")) }
            pendingSpace = false
            UTF8.encode(scalar) { output.append($0) }
        }
        return output
    }

    private static func isASCIIWordByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
    }

    private static func asciiWords(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            if isASCIIWordByte(byte) {
                if pendingSpace, !output.isEmpty { output.append(UInt8(ascii: " ")) }
                pendingSpace = false
                output.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            } else {
                pendingSpace = true
            }
        }
        return output
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }
}
