/// Entry counters kept by the writer as entries change, so listings of feeds, categories and
/// accounts read them instead of counting rows (which took a second at 1M entries): each feed's live
/// entries, the server's, and per subscription how many of its feed's live entries the account read.
/// A subscription's unread count is then its feed's count minus its read count: an arriving entry
/// writes its feed's counter once, however many accounts follow the feed (docs/ARCHITECTURE.md).
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
        // Those of the feed's followers who starred the entry see it through the feed now, not as an orphan.
        var starrers: [AccountID] = []
        try database.statement("""
            SELECT m.account_id FROM entry_marks m JOIN subscriptions u ON u.account_id = m.account_id AND u.feed_id = ?2
            WHERE m.entry_id = ?1 AND m.starred = 1
            """).query([.integer(entryID), .integer(feed)]) { row in starrers.append(row.accountID(at: 0)) }
        for account in starrers { try Counters.recountStarredOrphans(account: account, database) }
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
        try database.statement("UPDATE accounts SET \(starredOrphansAssignment(account: "accounts.id"))").run([])
    }

    /// `(starred_orphans, starred_orphans_unread) = …` for the account whose id `account` holds: the
    /// entries it starred that none of its feeds carries (any more), and how many of them it has not
    /// read. Kept on the account, for its totals: counted at read time they cost a probe per starred
    /// entry (~3.5 ms for 1,000, most of an unread page's total). Counted again whenever what they
    /// depend on changes for the account: its stars, its reads while it has any, its subscriptions,
    /// and a feed it follows gaining an entry it starred (`recountStarredOrphans`).
    private static func starredOrphansAssignment(account: String) -> String {
        """
        (starred_orphans, starred_orphans_unread) = (
            SELECT count(*), coalesce(sum(CASE WHEN m.read = 0 THEN 1 ELSE 0 END), 0)
            FROM entry_marks m INDEXED BY entry_marks_starred JOIN entry_state st ON st.entry_id = m.entry_id
            WHERE m.account_id = \(account) AND m.starred = 1 AND st.removed = 0
              AND coalesce(st.feed_id NOT IN (SELECT feed_id FROM subscriptions WHERE account_id = \(account)), TRUE)
              AND NOT EXISTS (SELECT 1 FROM entry_sources s CROSS JOIN subscriptions u ON u.feed_id = s.feed_id
                              WHERE s.entry_id = m.entry_id AND u.account_id = \(account)))
        """
    }

    /// Counts the account's starred orphans again (`starredOrphansAssignment`), in the caller's transaction.
    static func recountStarredOrphans(account: AccountID, _ database: Database) throws(StoreError) {
        try database.statement("UPDATE accounts SET \(starredOrphansAssignment(account: "?1")) WHERE id = ?1")
            .run([.account(account)])
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
