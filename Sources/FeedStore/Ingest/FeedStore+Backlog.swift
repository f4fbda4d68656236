extension FeedStore {
    /// A new subscription to a feed already stored shows, unread, the entries of the feed's latest
    /// document, as subscribing alone would have (docs/ARCHITECTURE.md); the older backlog others accumulated is
    /// hidden from the account. An entry it sees through another of its feeds, or marked (starred),
    /// stays; one this document carries that it had hidden comes back. Then the subscription's read
    /// and hidden counts are counted once, here: entries it read through another feed count as read.
    /// Another account's imported entries are always hidden (`hideOthersImports`), whatever the feed's
    /// fetch history. Call inside the transaction that made the subscription.
    func showLatestDocumentOnly(feed: Int64, account: AccountID, now: Int64) throws(StoreError) {
        let values: [SQLValue] = [.integer(feed), .account(account)]
        let knowsLatest = try database.integer(
            "SELECT count(*) FROM feed_latest WHERE feed_id = ?1", [.integer(feed)]) == 1
        if knowsLatest {
            let latest = database.dialect.jsonIntegers("(SELECT entries FROM feed_latest WHERE feed_id = ?1)")
            try database.prepare("""
                UPDATE subscriptions SET hidden_count = hidden_count - (
                    SELECT count(*) FROM entry_marks m INDEXED BY entry_marks_hidden
                    JOIN entry_sources s ON s.entry_id = m.entry_id AND s.feed_id = subscriptions.feed_id
                    WHERE m.account_id = ?2 AND m.hidden = 1 AND m.entry_id IN (\(latest)))
                WHERE account_id = ?2 AND feed_id != ?1 AND hidden_count > 0
                """).run(values)
            try database.prepare("""
                DELETE FROM entry_marks WHERE account_id = ?2 AND hidden = 1 AND entry_id IN (\(latest))
                """).run(values)
            try database.prepare("""
                INSERT INTO entry_marks(account_id, entry_id, hidden, changed_at)
                SELECT ?2, s.entry_id, 1, ?3 FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                WHERE s.feed_id = ?1 AND st.removed = 0 AND s.entry_id NOT IN (\(latest))
                  AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?2 AND m.entry_id = s.entry_id)
                  AND NOT EXISTS (SELECT 1 FROM entry_sources o CROSS JOIN subscriptions u ON u.feed_id = o.feed_id
                                  WHERE o.entry_id = s.entry_id AND u.account_id = ?2 AND u.feed_id != ?1)
                """).run(values + [.integer(now)])
        }
        try hideOthersImports(feed: feed, account: account, now: now)
        try database.prepare("""
            UPDATE subscriptions SET
                read_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                              JOIN entry_marks m ON m.account_id = ?2 AND m.entry_id = s.entry_id
                              WHERE s.feed_id = ?1 AND st.removed = 0 AND m.read = 1),
                hidden_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                                JOIN entry_marks m ON m.account_id = ?2 AND m.entry_id = s.entry_id
                                WHERE s.feed_id = ?1 AND st.removed = 0 AND m.hidden = 1)
            WHERE account_id = ?2 AND feed_id = ?1
            """).run(values)
    }

    /// Hides from `account` the feed's entries other accounts imported (docs/SECURITY.md: imported entries
    /// are the importer's alone; `entries.imported_by`).
    private func hideOthersImports(feed: Int64, account: AccountID, now: Int64) throws(StoreError) {
        try database.prepare("""
            INSERT INTO entry_marks(account_id, entry_id, hidden, changed_at)
            SELECT ?2, s.entry_id, 1, ?3 FROM entry_sources s JOIN entries e ON e.id = s.entry_id
            WHERE s.feed_id = ?1 AND e.imported_by IS NOT NULL AND e.imported_by <> ?2
              AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?2 AND m.entry_id = s.entry_id)
            """).run([.integer(feed), .account(account), .integer(now)])
    }
}
