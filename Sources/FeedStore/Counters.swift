/// Entry counters kept by the writer as entries change, so listings of feeds, categories and
/// accounts read them instead of counting rows (which took a second at 1M entries): each feed's live
/// entries, the server's, and per subscription how many of its feed's live entries the account read.
/// A subscription's unread count is then its feed's count minus its read count: an arriving entry
/// writes its feed's counter once, however many accounts follow the feed (DESIGN §12).
///
/// A transaction collects its changes here and applies them once before it commits.
struct CounterChanges {
    private let database: Database
    private var entries = 0
    private var feeds: [Int64: Int] = [:]

    init(database: Database) {
        self.database = database
    }

    /// An entry was stored (`change` +1) or expired (-1): it counts once in each feed carrying it.
    /// `primaryFeed` and `sources` are its `entry_state` values.
    mutating func entryChanged(_ entryID: Int64, primaryFeed: Int64?, sources: Int, by change: Int) throws(StoreError) {
        entries += change
        if sources <= 1 {
            // Most entries: one source, the primary feed, known without a query.
            if sources == 1, let primaryFeed { feeds[primaryFeed, default: 0] += change }
            return
        }
        try database.statement("SELECT feed_id FROM entry_sources WHERE entry_id = ?1").query([.integer(entryID)]) { row in
            feeds[row.int64(at: 0), default: 0] += change
        }
    }

    /// `feed` now carries an entry other feeds carried already: it counts there too, read (or hidden)
    /// for the accounts that read (or hid) it already (a write per such reader, none per follower).
    mutating func sourceAdded(_ entryID: Int64, feed: Int64) throws(StoreError) {
        feeds[feed, default: 0] += 1
        try database.statement("""
            UPDATE subscriptions SET
                read_count = read_count + (SELECT read FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?1),
                hidden_count = hidden_count + (SELECT hidden FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?1)
            WHERE feed_id = ?2
              AND account_id IN (SELECT account_id FROM entry_marks WHERE entry_id = ?1 AND (read = 1 OR hidden = 1))
            """).run([.integer(entryID), .integer(feed)])
    }

    /// Writes the collected changes; call once, inside the transaction that made them.
    func apply() throws(StoreError) {
        if entries != 0 {
            try database.statement("UPDATE store_totals SET entries = entries + ?1 WHERE id = 1").run([.integer(Int64(entries))])
        }
        let feedUpdate = try database.statement("UPDATE feeds SET entry_count = entry_count + ?2 WHERE id = ?1")
        for (id, change) in feeds where change != 0 {
            try feedUpdate.run([.integer(id), .integer(Int64(change))])
        }
    }
}

/// Counters rebuilt from the rows (tests compare the result with the counters as kept).
enum Counters {
    static func recountAll(_ database: Database) throws(StoreError) {
        try database.execute("""
            UPDATE feeds SET entry_count = (
                SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                WHERE s.feed_id = feeds.id AND st.removed = 0);
            UPDATE store_totals SET entries = (SELECT count(*) FROM entry_state WHERE removed = 0);
            UPDATE subscriptions SET read_count = (
                SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                JOIN entry_marks m ON m.entry_id = s.entry_id AND m.account_id = subscriptions.account_id
                WHERE s.feed_id = subscriptions.feed_id AND st.removed = 0 AND m.read = 1);
            UPDATE subscriptions SET hidden_count = (
                SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                JOIN entry_marks m ON m.entry_id = s.entry_id AND m.account_id = subscriptions.account_id
                WHERE s.feed_id = subscriptions.feed_id AND st.removed = 0 AND m.hidden = 1);
            UPDATE entry_state SET stars = (SELECT count(*) FROM entry_marks m WHERE m.entry_id = entry_state.entry_id AND m.starred = 1);
            """)
    }

    /// Forgets every account's marks on an entry that expires, and the reads (and hidings) they counted.
    static func forgetMarks(ofExpiring entryID: Int64, _ database: Database) throws(StoreError) {
        try database.statement("""
            UPDATE subscriptions SET
                read_count = read_count - (SELECT read FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?1),
                hidden_count = hidden_count - (SELECT hidden FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?1)
            WHERE feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?1)
              AND account_id IN (SELECT account_id FROM entry_marks WHERE entry_id = ?1 AND (read = 1 OR hidden = 1))
            """).run([.integer(entryID)])
        try database.statement("DELETE FROM entry_marks WHERE entry_id = ?1").run([.integer(entryID)])
    }
}
