import Foundation

extension FeedStore {
    /// Marks the given articles of the account read/unread and/or starred/unstarred (nil leaves a
    /// flag as it is); ids of entries the account does not see change nothing.
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(ids: [EntryID], account: AccountID, read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        // SQLite binds at most 32,766 values a statement: long lists (Fever marks whatever the
        // client names) go in chunks, each in its own transaction.
        var changed = 0
        for start in stride(from: 0, to: ids.count, by: 10_000) {
            var values: [SQLValue] = [.account(account)]
            let placeholders = SQLValue.placeholders(for: ids[start..<min(start + 10_000, ids.count)], appendingTo: &values)
            changed += try setFlags(account: account, read: read, starred: starred, from: "entry_state st",
                                    where: ["st.removed = 0", "st.entry_id IN (\(placeholders))",
                                            AccountScope.visible(account: "?1")], values: values)
        }
        return changed
    }

    /// Marks every article matching `filter` (its account's), e.g. a whole category older than a date.
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(_ filter: ArticleFilter, read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        var values: [SQLValue] = []
        let accountWide = filter.feedID == nil && filter.category == nil && !filter.uncategorized
        var ownEntriesFirst = false
        if accountWide { ownEntriesFirst = try StoreReader.share(of: filter.account, in: database) < 0.2 }
        let selection = try filter.bulkSelection(binding: &values, dialect: database.dialect, ownEntriesFirst: ownEntriesFirst)
        return try setFlags(account: filter.account, read: read, starred: starred, from: selection.from,
                            where: selection.conditions, values: values)
    }

    /// Sets the account's flags on the entries (`entry_state st`) that `from` and `conditions` select,
    /// in one transaction. Only marks whose flag changes are written; the subscriptions' read counts
    /// and the entries' star counts move by exactly those.
    private func setFlags(account: AccountID, read: Bool?, starred: Bool?, from: String, where conditions: [String],
                          values: [SQLValue]) throws(StoreError) -> Int {
        guard read != nil || starred != nil else { return 0 }
        return try database.transaction { () throws(StoreError) -> Int in
            try changeFlags(account: account, read: read, starred: starred, from: from, where: conditions, values: values)
        }
    }

    /// `setFlags` inside a transaction the caller holds.
    func changeFlags(account: AccountID, read: Bool?, starred: Bool?, from: String, where conditions: [String],
                     values: [SQLValue]) throws(StoreError) -> Int {
        guard read != nil || starred != nil else { return 0 }
        // The account's current flags, as columns of the selected rows (no mark: unread, not starred).
        let currentRead = "coalesce((SELECT read FROM entry_marks WHERE account_id = \(account) AND entry_id = st.entry_id), 0)"
        let currentStarred = "coalesce((SELECT starred FROM entry_marks WHERE account_id = \(account) AND entry_id = st.entry_id), 0)"
        // Fixed text: 0 or 1 and the account's id (an integer), never user input.
        let readChanges = read.map { "CASE WHEN \(currentRead) != \($0 ? 1 : 0) THEN 1 ELSE 0 END" } ?? "0"
        let starredChanges = starred.map { "CASE WHEN \(currentStarred) != \($0 ? 1 : 0) THEN 1 ELSE 0 END" } ?? "0"
        // The rows that change, collected once before any flag moves (a filter may test the very
        // flags being set): the updates and the counters all read them.
        try database.execute("""
            CREATE TEMP TABLE IF NOT EXISTS marked (
                entry_id INTEGER PRIMARY KEY, read_changes INTEGER NOT NULL, starred_changes INTEGER NOT NULL);
            DELETE FROM marked;
            """)
        try database.prepare("""
            INSERT INTO marked
            SELECT * FROM (SELECT st.entry_id, \(readChanges) AS r, \(starredChanges) AS s
                           FROM \(from) WHERE \(conditions.joined(separator: " AND "))) AS changing
            WHERE r != 0 OR s != 0 ON CONFLICT DO NOTHING
            """).run(values)
        let now = SQLValue.integer(Int64(Date().timeIntervalSince1970))
        try database.statement("""
            INSERT INTO entry_marks(account_id, entry_id, read, starred, changed_at)
            SELECT ?1, entry_id, coalesce(?2, 0), coalesce(?3, 0), ?4 FROM marked WHERE true
            ON CONFLICT(account_id, entry_id) DO UPDATE SET
                read = coalesce(?2, entry_marks.read), starred = coalesce(?3, entry_marks.starred), changed_at = ?4
            """).run([.account(account), read.map(SQLValue.init) ?? .null, starred.map(SQLValue.init) ?? .null, now])
        if let read { try countReads(account: account, by: read ? 1 : -1) }
        if let starred {
            try database.statement("""
                UPDATE entry_state SET stars = stars + ?1 WHERE entry_id IN (SELECT entry_id FROM marked WHERE starred_changes != 0)
                """).run([.integer(starred ? 1 : -1)])
        }
        let changed = Int(try database.integer("SELECT count(*) FROM marked") ?? 0)
        // A star moves the account's starred orphans; a read only while it has any.
        if changed > 0 {
            let hasOrphans = try database.integer("SELECT starred_orphans FROM accounts WHERE id = ?1", [.account(account)]) ?? 0 > 0
            if starred != nil || hasOrphans { try Counters.recountStarredOrphans(account: account, database) }
        }
        return changed
    }

    /// Moves the account's read counts by `change` for every entry of `marked` whose read flag
    /// changed, in each of its subscriptions whose feed carries the entry (one update per feed).
    private func countReads(account: AccountID, by change: Int) throws(StoreError) {
        let perFeed = try countsPerFeed("""
            SELECT s.feed_id, count(*) FROM marked t JOIN entry_sources s ON s.entry_id = t.entry_id
            WHERE t.read_changes != 0 GROUP BY s.feed_id
            """)
        let update = try database.statement(
            "UPDATE subscriptions SET read_count = read_count + ?3 WHERE account_id = ?1 AND feed_id = ?2")
        for (feed, count) in perFeed {
            try update.run([.account(account), .integer(feed), .integer(count * Int64(change))])
        }
    }

    /// The rows of `sql`: a feed id and how many of the entries in question it carries (a mark
    /// moves a counter in each subscription whose feed carries the entry: one update per feed).
    func countsPerFeed(_ sql: String) throws(StoreError) -> [(feed: Int64, count: Int64)] {
        var perFeed: [(feed: Int64, count: Int64)] = []
        try database.statement(sql).query { row in perFeed.append((row.int64(at: 0), row.int64(at: 1))) }
        return perFeed
    }
}

extension FeedStore {
    /// Hides every entry the account has read and not starred (Miniflux's "flush history"): gone
    /// from all its listings and counts, as a backlog it never subscribed to is; still stored for
    /// everyone else. A hidden entry is neither read nor unread: its read is counted out of the
    /// subscriptions' read counts and into their hidden counts.
    /// - Returns: how many entries it hid.
    @discardableResult
    public func flushHistory(account: AccountID, now: Date = Date()) throws(StoreError) -> Int {
        try database.transaction { () throws(StoreError) -> Int in
            try database.execute("""
                CREATE TEMP TABLE IF NOT EXISTS flushed (entry_id INTEGER PRIMARY KEY);
                DELETE FROM flushed;
                """)
            try database.statement("""
                INSERT INTO flushed SELECT entry_id FROM entry_marks
                WHERE account_id = ?1 AND read = 1 AND starred = 0 AND hidden = 0
                """).run([.account(account)])
            let perFeed = try countsPerFeed("""
                SELECT s.feed_id, count(*) FROM flushed t JOIN entry_sources s ON s.entry_id = t.entry_id GROUP BY s.feed_id
                """)
            let move = try database.statement("""
                UPDATE subscriptions SET read_count = read_count - ?3, hidden_count = hidden_count + ?3
                WHERE account_id = ?1 AND feed_id = ?2
                """)
            for (feed, count) in perFeed {
                try move.run([.account(account), .integer(feed), .integer(count)])
            }
            try database.statement("""
                UPDATE entry_marks SET read = 0, hidden = 1, changed_at = ?2
                WHERE account_id = ?1 AND entry_id IN (SELECT entry_id FROM flushed)
                """).run([.account(account), .integer(Int64(now.timeIntervalSince1970))])
            return Int(try database.integer("SELECT count(*) FROM flushed") ?? 0)
        }
    }
}
