/// The full-text index `entries_fts`: contentless FTS5 over title, plain text and author, keyed by
/// entry id, so it is written in increasing rowid order, the order FTS5 writes fastest.
///
/// Migration 5 keyed it by date instead (`max(sort_at, 0) · 2^29 + id`), which let a search walk it
/// newest first; but FTS5 flushes its pending terms whenever a rowid goes down and stores rowid deltas
/// as varints (~6 bytes a match instead of 1–2), so a cold round's ingest took twice as long and the
/// index grew by a third. Migration 6 went back to ids; searches in date order rank their matches by
/// the date kept in `entry_state` instead.
enum SearchIndex {
    /// bm25 with the title weighted highest, then the author, then the text (lower is better).
    static let scoreSQL = "bm25(entries_fts, 10.0, 1.0, 2.0)"
}

extension FeedStore {
    /// Indexes an entry's title, plain text and author.
    func indexText(_ id: Int64, _ title: String?, _ body: String?, _ author: String?) throws(StoreError) {
        try database.statement("INSERT INTO entries_fts(rowid, title, body, author) VALUES (?1, ?2, ?3, ?4)")
            .run([.integer(id), SQLValue(title), SQLValue(body), SQLValue(author)])
    }

    /// Takes an entry out of the index: a contentless index needs the indexed values again to do so.
    func unindexText(_ id: Int64) throws(StoreError) {
        try database.statement("""
            INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
            SELECT 'delete', e.id, e.title, e.search_text, e.author
            FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE e.id = ?1 AND st.removed = 0
            """).run([.integer(id)])
    }
}
