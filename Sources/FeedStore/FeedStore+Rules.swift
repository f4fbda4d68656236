/// Judges an entry by one account's filter rules for a feed (DESIGN §15): the store applies them as
/// entries arrive and when they change, without knowing their syntax (AggregatorCore's matcher does).
public protocol EntryRules: Sendable {
    /// Whether `blocklist` (a pattern) matches the entry's title, URL or author, or `keeplist` (a
    /// pattern) matches none of them. Nil or empty rules hide nothing.
    func hides(title: String?, url: String?, author: String?, blocklist: String?, keeplist: String?) -> Bool
}

extension FeedStore {
    /// The rules of the subscriptions to `feed` that have any.
    private func subscriptionRules(feed: Int64, account: Int64? = nil) throws(StoreError)
        -> [(account: Int64, blocklist: String?, keeplist: String?)] {
        var rules: [(account: Int64, blocklist: String?, keeplist: String?)] = []
        try database.statement("""
            SELECT account_id, blocklist_rules, keeplist_rules FROM subscriptions
            WHERE feed_id = ?1 AND (blocklist_rules IS NOT NULL OR keeplist_rules IS NOT NULL)
              AND (?2 IS NULL OR account_id = ?2)
            """).query([.integer(feed), SQLValue(account)]) { row in
            rules.append((row.int64(at: 0), row.text(at: 1), row.text(at: 2)))
        }
        return rules
    }

    /// Hides from each follower with rules the arrived entries its rules hide (inside the ingest's
    /// transaction: an entry is never seen before its rules judged it).
    func applyRules(feed: Int64, to arrived: [(id: Int64, entry: IncomingEntry)]) throws(StoreError) {
        guard let entryRules else { return }
        let followers = try subscriptionRules(feed: feed)
        guard !followers.isEmpty else { return }
        for (account, blocklist, keeplist) in followers {
            for (id, entry) in arrived where entryRules.hides(title: entry.title, url: entry.url, author: entry.author,
                                                             blocklist: blocklist, keeplist: keeplist) {
                try hideByRule(id, account: account)
            }
        }
    }

    /// Sets an account's filter rules for its subscription `id` ("" clears one; nil leaves it) and
    /// judges the feed's stored entries by them again: what the old rules hid comes back, what the
    /// new ones hide goes. Returns how many entries the rules now hide.
    @discardableResult
    public func setRules(subscription id: Int64, account: Int64, blocklist: String?, keeplist: String?) throws(StoreError) -> Int {
        try database.transaction { () throws(StoreError) -> Int in
            let feed = try feedID(ofSubscription: id, account: account)
            if let blocklist {
                try database.statement("UPDATE subscriptions SET blocklist_rules = ?2 WHERE id = ?1")
                    .run([.integer(id), SQLValue(blocklist.isEmpty ? nil : blocklist)])
            }
            if let keeplist {
                try database.statement("UPDATE subscriptions SET keeplist_rules = ?2 WHERE id = ?1")
                    .run([.integer(id), SQLValue(keeplist.isEmpty ? nil : keeplist)])
            }
            // What the rules hid among the feed's entries comes back first.
            var ruled: [Int64] = []
            try database.statement("""
                SELECT m.entry_id FROM entry_marks m INDEXED BY entry_marks_hidden
                WHERE m.account_id = ?2 AND m.hidden = 1 AND m.by_rule = 1
                  AND EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = m.entry_id AND s.feed_id = ?1)
                """).query([.integer(feed), .integer(account)]) { ruled.append($0.int64(at: 0)) }
            for entry in ruled {
                try moveHiddenCount(entry, account: account, by: -1)
                try database.statement("DELETE FROM entry_marks WHERE account_id = ?1 AND entry_id = ?2")
                    .run([.integer(account), .integer(entry)])
            }
            guard let entryRules, let (_, blocklist, keeplist) = try subscriptionRules(feed: feed, account: account).first else {
                return 0
            }
            var hidden: [Int64] = []
            try database.statement("""
                SELECT e.id, e.title, e.url, e.author FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                JOIN entries e ON e.id = s.entry_id WHERE s.feed_id = ?1 AND st.removed = 0
                """).query([.integer(feed)]) { row in
                if entryRules.hides(title: row.text(at: 1), url: row.text(at: 2), author: row.text(at: 3),
                                    blocklist: blocklist, keeplist: keeplist) {
                    hidden.append(row.int64(at: 0))
                }
            }
            var count = 0
            for entry in hidden where try hideByRule(entry, account: account) { count += 1 }
            return count
        }
    }

    /// Hides an entry from the account by a rule, unless it starred it or hides it already; a read
    /// mark gives way (a hidden entry is neither read nor unread). Returns whether it hid it.
    @discardableResult
    private func hideByRule(_ entry: Int64, account: Int64) throws(StoreError) -> Bool {
        var mark: (read: Bool, starred: Bool, hidden: Bool)?
        try database.statement("SELECT read, starred, hidden FROM entry_marks WHERE account_id = ?1 AND entry_id = ?2")
            .query([.integer(account), .integer(entry)]) { row in
                mark = (row.int64(at: 0) != 0, row.int64(at: 1) != 0, row.int64(at: 2) != 0)
            }
        if let mark, mark.starred || mark.hidden { return false }
        if mark?.read == true {
            try database.statement("""
                UPDATE subscriptions SET read_count = read_count - 1
                WHERE account_id = ?1 AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)
                """).run([.integer(account), .integer(entry)])
        }
        try database.statement("""
            INSERT INTO entry_marks(account_id, entry_id, hidden, by_rule, changed_at) VALUES (?1, ?2, 1, 1, unixepoch())
            ON CONFLICT(account_id, entry_id) DO UPDATE SET read = 0, hidden = 1, by_rule = 1, changed_at = unixepoch()
            """).run([.integer(account), .integer(entry)])
        try moveHiddenCount(entry, account: account, by: 1)
        return true
    }

    /// Moves the account's hidden counts of every subscription whose feed carries the entry.
    private func moveHiddenCount(_ entry: Int64, account: Int64, by change: Int64) throws(StoreError) {
        try database.statement("""
            UPDATE subscriptions SET hidden_count = hidden_count + ?3
            WHERE account_id = ?1 AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)
            """).run([.integer(account), .integer(entry), .integer(change)])
    }
}
