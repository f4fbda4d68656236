import Foundation

extension FeedStore {
    /// Records `account`'s own title and/or content for entry `id` (nil keeps what it had, if any).
    /// - Returns: false when the account has no such entry.
    public func editEntry(id: EntryID, title: String?, content: String?, account: AccountID, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            var exists = false
            try database.statement("""
                SELECT 1 FROM entry_state st WHERE st.entry_id = ?1 AND st.removed = 0 AND \(AccountScope.visible(account: "?2"))
                """).query([.entry(id), .account(account)]) { _ in exists = true }
            guard exists else { return false }
            try recordEdit(id.rawValue, title: title, content: content, account: account, now: Int64(now.timeIntervalSince1970))
            return true
        }
    }

    /// Writes the account's edit of entry `id` (nil keeps what it had), in the caller's transaction.
    func recordEdit(_ id: Int64, title: String?, content: String?, account: AccountID, now: Int64) throws(StoreError) {
        try database.statement("""
            INSERT INTO entry_edits(account_id, entry_id, title, content, edited_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(account_id, entry_id) DO UPDATE SET title = coalesce(excluded.title, entry_edits.title),
                content = coalesce(excluded.content, entry_edits.content),
                edited_at = excluded.edited_at
            """).run([.account(account), .integer(id), SQLValue(title), SQLValue(content), .integer(now)])
    }
}

extension StoreReader {
    /// `account`'s own titles and contents of those of `entryIDs` it edited.
    public func entryEdits(account: AccountID, entryIDs: [EntryID]) throws(StoreError) -> [EntryID: (title: String?, content: String?)] {
        var edits: [EntryID: (title: String?, content: String?)] = [:]
        try queryRows(of: account, entryIDs: entryIDs) { ids in
            "SELECT entry_id, title, content FROM entry_edits WHERE account_id = ?1 AND entry_id IN (\(ids))"
        } row: { row in edits[row.entryID(at: 0)] = (row.text(at: 1), row.text(at: 2)) }
        return edits
    }
}
