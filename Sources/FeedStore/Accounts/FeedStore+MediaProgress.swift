import Foundation

extension FeedStore {
    /// Records where `account` stopped in an entry's enclosure (`index`: its position in the entry);
    /// 0 forgets it. - Returns: false when the account has no such entry.
    public func setMediaProgression(_ seconds: Int64, account: AccountID, entryID: EntryID, index: Int) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            var exists = false
            try database.statement("""
                SELECT 1 FROM entry_state st WHERE st.entry_id = ?1 AND \(AccountScope.visible(account: "?2"))
                """).query([.entry(entryID), .account(account)]) { _ in exists = true }
            guard exists else { return false }
            if seconds == 0 {
                try database.statement("DELETE FROM media_progress WHERE account_id = ?1 AND entry_id = ?2 AND enclosure = ?3")
                    .run([.account(account), .entry(entryID), .integer(Int64(index))])
            } else {
                try database.statement("""
                    INSERT INTO media_progress(account_id, entry_id, enclosure, seconds) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT(account_id, entry_id, enclosure) DO UPDATE SET seconds = excluded.seconds
                    """).run([.account(account), .entry(entryID), .integer(Int64(index)), .integer(seconds)])
            }
            return true
        }
    }
}

extension StoreReader {
    /// Where `account` stopped in the enclosures of `entryIDs`: entry id → enclosure index → seconds.
    public func mediaProgressions(account: AccountID, entryIDs: [EntryID]) throws(StoreError) -> [EntryID: [Int: Int64]] {
        var found: [EntryID: [Int: Int64]] = [:]
        try queryRows(of: account, entryIDs: entryIDs) { ids in
            "SELECT entry_id, enclosure, seconds FROM media_progress WHERE account_id = ?1 AND entry_id IN (\(ids))"
        } row: { row in found[row.entryID(at: 0), default: [:]][Int(row.int64(at: 1))] = row.int64(at: 2) }
        return found
    }

    /// Runs `sql` (given the placeholders of a list of entry ids; the account is `?1`) over `entryIDs`
    /// in chunks of 10,000 (SQLite binds at most 32,766 values a statement), calling `row` for each row.
    func queryRows(of account: AccountID, entryIDs: [EntryID], sql: (String) -> String,
                   row: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        for start in stride(from: 0, to: entryIDs.count, by: 10_000) {
            var values: [SQLValue] = [.account(account)]
            let placeholders = SQLValue.placeholders(for: entryIDs[start..<min(start + 10_000, entryIDs.count)], appendingTo: &values)
            try database.statement(sql(placeholders)).query(values, row: row)
        }
    }
}
