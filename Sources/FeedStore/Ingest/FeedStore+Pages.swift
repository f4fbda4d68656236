import Foundation

extension FeedStore {
    /// Keeps the article extracted from entry `id`'s page (sanitized HTML), replacing an older one;
    /// `nonPublic` when its fetch reached a non-public address (`KeptPage`).
    /// - Returns: false when the entry is gone (or expired) meanwhile.
    public func keepPage(entryID entry: EntryID, content: String, nonPublic: Bool = false, now: Date = Date()) throws(StoreError) -> Bool {
        let id = entry.rawValue
        return try database.transaction { () throws(StoreError) -> Bool in
            guard try database.integer("SELECT count(*) FROM entry_state WHERE entry_id = ?1 AND removed = 0",
                                       [.integer(id)]) == 1 else { return false }
            try database.statement("""
                INSERT INTO entry_pages(entry_id, content, fetched_at, non_public) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(entry_id) DO UPDATE SET content = excluded.content, fetched_at = excluded.fetched_at,
                    non_public = excluded.non_public
                """).run([.integer(id), .text(content), .integer(Int64(now.timeIntervalSince1970)), SQLValue(nonPublic)])
            return true
        }
    }

    /// From now on `account` sees entry `id`'s page instead of its feed's content.
    public func showPage(entryID id: EntryID, account: AccountID) throws(StoreError) {
        try database.statement("INSERT INTO page_readers(account_id, entry_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
            .run([.account(account), .entry(id)])
    }
}

/// An article kept from an entry's page, and whether its fetch reached a non-public address: then
/// it is shown only to accounts whose own fetches may reach one (docs/SECURITY.md, "Pages and icons").
public struct KeptPage: Sendable, Equatable {
    public var content: String
    public var nonPublic: Bool
}

extension StoreReader {
    /// The article kept from entry `id`'s page, if one was extracted.
    public func page(entryID id: EntryID) throws(StoreError) -> KeptPage? {
        var page: KeptPage?
        try database.statement("SELECT content, non_public FROM entry_pages WHERE entry_id = ?1").query([.entry(id)]) { row in
            page = KeptPage(content: row.text(at: 0) ?? "", nonPublic: row.int64(at: 1) != 0)
        }
        return page
    }

    /// The pages `account` asked to see instead of the feeds' content, of those of `entryIDs` that have
    /// one; a page kept from a non-public address only with `nonPublic` (the rule may have changed).
    public func pages(account: AccountID, entryIDs: [EntryID], nonPublic: Bool) throws(StoreError) -> [EntryID: String] {
        var pages: [EntryID: String] = [:]
        try queryRows(of: account, entryIDs: entryIDs) { ids in
            """
            SELECT p.entry_id, p.content FROM page_readers r JOIN entry_pages p ON p.entry_id = r.entry_id
            WHERE r.account_id = ?1 AND r.entry_id IN (\(ids)) AND (p.non_public = 0 OR \(nonPublic ? "1" : "0") = 1)
            """
        } row: { row in pages[row.entryID(at: 0)] = row.text(at: 1) ?? "" }
        return pages
    }
}
