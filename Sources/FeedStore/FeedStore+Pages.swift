import Foundation

extension FeedStore {
    /// Keeps the article extracted from entry `id`'s page (sanitized HTML), replacing an older one.
    /// - Returns: false when the entry is gone (or expired) meanwhile.
    public func keepPage(entryID id: Int64, content: String, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            guard try database.integer("SELECT count(*) FROM entry_state WHERE entry_id = ?1 AND removed = 0",
                                       [.integer(id)]) == 1 else { return false }
            try database.statement("""
                INSERT INTO entry_pages(entry_id, content, fetched_at) VALUES (?1, ?2, ?3)
                ON CONFLICT(entry_id) DO UPDATE SET content = excluded.content, fetched_at = excluded.fetched_at
                """).run([.integer(id), .text(content), .integer(Int64(now.timeIntervalSince1970))])
            return true
        }
    }

    /// From now on `account` sees entry `id`'s page instead of its feed's content.
    public func showPage(entryID id: Int64, account: Int64) throws(StoreError) {
        try database.statement("INSERT INTO page_readers(account_id, entry_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
            .run([.integer(account), .integer(id)])
    }
}

extension StoreReader {
    /// The article kept from entry `id`'s page, if one was extracted.
    public func page(entryID id: Int64) throws(StoreError) -> String? {
        var content: String?
        try database.statement("SELECT content FROM entry_pages WHERE entry_id = ?1").query([.integer(id)]) { row in
            content = row.text(at: 0)
        }
        return content
    }

    /// The pages `account` asked to see instead of the feeds' content, of those of `entryIDs` that have one.
    public func pages(account: Int64, entryIDs: [Int64]) throws(StoreError) -> [Int64: String] {
        var pages: [Int64: String] = [:]
        try queryRows(of: account, entryIDs: entryIDs) { ids in
            """
            SELECT p.entry_id, p.content FROM page_readers r JOIN entry_pages p ON p.entry_id = r.entry_id
            WHERE r.account_id = ?1 AND r.entry_id IN (\(ids))
            """
        } row: { row in pages[row.int64(at: 0)] = row.text(at: 1) ?? "" }
        return pages
    }
}
