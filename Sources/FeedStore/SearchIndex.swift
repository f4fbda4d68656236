/// The full-text index `entries_fts` (contentless FTS5 over title, plain text and author).
///
/// Its rowid is not the entry id but an order key, `max(sort_at, 0) · 2^29 + id`, so the index walks
/// its matches newest or oldest first by itself, stops after a page, and takes cursors and
/// `since`/`before` as rowid ranges: a search's first page costs about the same for a word in 0.1 %
/// or in 50 % of a million entries. Entries dated before 1970 sort as if dated 1970 in searches.
enum SearchIndex {
    /// Entry ids stay below this (536,870,912), so the id can be read back from a key.
    static let idLimit: Int64 = 1 << 29

    /// The key of an entry.
    static func key(sortAt: Int64, id: Int64) -> Int64 { max(sortAt, 0) * idLimit + id }

    /// The key as SQL, computed from a row of `entries` aliased `alias`.
    static func keySQL(_ alias: String) -> String { "(max(\(alias).sort_at, 0) * \(idLimit) + \(alias).id)" }

    /// The entry id of a key, as SQL.
    static func entryIDSQL(_ key: String) -> String { "(\(key) % \(idLimit))" }

    /// bm25 with the title weighted highest, then the author, then the text (lower is better).
    static let scoreSQL = "bm25(entries_fts, 10.0, 1.0, 2.0)"
}

extension FeedStore {
    /// Indexes a stored entry's title, plain text and author (read from its row, with its key).
    func indexText(_ id: Int64, _ title: String?, _ body: String?, _ author: String?) throws(StoreError) {
        try database.statement("""
            INSERT INTO entries_fts(rowid, title, body, author)
            SELECT \(SearchIndex.keySQL("e")), ?2, ?3, ?4 FROM entries e WHERE e.id = ?1
            """).run([.integer(id), SQLValue(title), SQLValue(body), SQLValue(author)])
    }

    /// Takes an entry out of the index: a contentless index needs the indexed values again to do so.
    func unindexText(_ id: Int64) throws(StoreError) {
        try database.statement("""
            INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
            SELECT 'delete', \(SearchIndex.keySQL("e")), e.title, e.search_text, e.author
            FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE e.id = ?1 AND st.removed = 0
            """).run([.integer(id)])
    }
}
