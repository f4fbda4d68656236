import Foundation

/// What filter rules see of an entry.
public struct RuledEntry: Sendable {
    public var title: String?
    public var url: String?
    public var author: String?
    /// Its content, else its summary.
    public var content: String?
    /// Its date (published, else first seen).
    public var date: Date?

    public init(title: String?, url: String?, author: String?, content: String?, date: Date?) {
        (self.title, self.url, self.author, self.content, self.date) = (title, url, author, content, date)
    }

    /// An arriving entry as rules see it (its date: published, else now).
    public init(_ entry: IncomingEntry) {
        self.init(title: entry.title, url: entry.url, author: entry.author, content: entry.content ?? entry.summary,
                  date: entry.published ?? Date())
    }
}

/// One follower's rules for a feed (`FeedStore.rulesByFeed`).
public struct FollowerRules: Sendable {
    public var account: AccountID
    public var rules: RuleSet
}

/// One account's rules for one feed (docs/ARCHITECTURE.md): the feed's `blocklist`/`keeplist` (a pattern each)
/// and the account's own `blockFilters`/`keepFilters` (Miniflux's `Field=pattern` lines).
public struct RuleSet: Sendable, Equatable {
    public var blocklist: String?
    public var keeplist: String?
    public var blockFilters: String?
    public var keepFilters: String?

    public init(blocklist: String? = nil, keeplist: String? = nil, blockFilters: String? = nil, keepFilters: String? = nil) {
        (self.blocklist, self.keeplist, self.blockFilters, self.keepFilters) = (blocklist, keeplist, blockFilters, keepFilters)
    }

    public var isEmpty: Bool { [blocklist, keeplist, blockFilters, keepFilters].allSatisfy { $0?.isEmpty ?? true } }
}

/// Judges an entry by one account's rules for a feed: the store applies them as entries arrive and
/// when they change, without knowing their syntax (AggregatorCore's matcher does).
public protocol EntryRules: Sendable {
    /// Whether `rules` hide the entry.
    func hides(_ entry: RuledEntry, by rules: RuleSet) -> Bool
}

/// The SQL of a subscription's rules (`u`) and its account's filters (`a`), written once for the
/// queries that read them.
enum RuleColumns {
    /// The four columns `ruleSet(_:at:)` reads.
    static func select(_ dialect: SQLDialect) -> String {
        """
        u.blocklist_rules, u.keeplist_rules, \(dialect.jsonField("a.settings", "block_filter_entry_rules")),
        \(dialect.jsonField("a.settings", "keep_filter_entry_rules"))
        """
    }

    /// The subscription or its account has some (a cheap test; empty ones are left out by `RuleSet.isEmpty`).
    static let present = "(u.blocklist_rules IS NOT NULL OR u.keeplist_rules IS NOT NULL OR a.settings LIKE '%filter_entry_rules%')"

    static func ruleSet(_ row: Statement, at first: Int32) -> RuleSet {
        RuleSet(blocklist: row.text(at: first), keeplist: row.text(at: first + 1), blockFilters: row.text(at: first + 2),
                keepFilters: row.text(at: first + 3))
    }
}

extension FeedStore {
    /// The rules of the subscriptions to `feed` that have any (the feed's or their account's).
    private func subscriptionRules(feed: Int64) throws(StoreError) -> [(account: AccountID, rules: RuleSet)] {
        var rules: [(account: AccountID, rules: RuleSet)] = []
        try database.statement("""
            SELECT u.account_id, \(RuleColumns.select(database.dialect))
            FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE u.feed_id = ?1 AND \(RuleColumns.present)
            """).query([.integer(feed)]) { row in
            let set = RuleColumns.ruleSet(row, at: 1)
            if !set.isEmpty { rules.append((row.accountID(at: 0), set)) }
        }
        return rules
    }

    /// Hides from each follower with rules the arrived entries its rules hide, in the ingest's
    /// transaction: an entry is never seen before its rules judged it. With verdicts made before the
    /// writer (`IncomingFeed.ruleVerdicts`: the daemon's rounds) no regex runs here; without, the
    /// entries are judged here.
    func applyRules(_ feed: IncomingFeed, to arrived: [(id: Int64, index: Int)]) throws(StoreError) {
        if let verdicts = feed.ruleVerdicts {
            for (account, hidden) in verdicts where !hidden.isEmpty {
                for (id, index) in arrived where hidden.contains(index) { try hideByRule(id, account: account) }
            }
            return
        }
        guard let entryRules else { return }
        for (account, rules) in try subscriptionRules(feed: feed.feedID.rawValue) {
            for (id, index) in arrived where entryRules.hides(RuledEntry(feed.entries[index]), by: rules) {
                try hideByRule(id, account: account)
            }
        }
    }

    /// Every feed's followers that have rules (their subscription's, or their account's filters), for a
    /// round to judge its documents by before they reach the writer.
    public func rulesByFeed() throws(StoreError) -> [FeedID: [FollowerRules]] {
        var rules: [FeedID: [FollowerRules]] = [:]
        try database.statement("""
            SELECT u.feed_id, u.account_id, \(RuleColumns.select(database.dialect))
            FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE \(RuleColumns.present)
            """).query { row in
            let set = RuleColumns.ruleSet(row, at: 2)
            if !set.isEmpty { rules[row.feedID(at: 0), default: []].append(FollowerRules(account: row.accountID(at: 1), rules: set)) }
        }
        return rules
    }

    /// Hides an entry from the account by a rule, unless it starred it or hides it already; a read
    /// mark gives way (a hidden entry is neither read nor unread). Returns whether it hid it.
    @discardableResult
    private func hideByRule(_ entry: Int64, account: AccountID) throws(StoreError) -> Bool {
        try hide(entry, from: account, byRule: true)
    }

    /// `hideByRule`, or (`byRule` false) a hiding no rule change takes back.
    @discardableResult
    func hide(_ entry: Int64, from account: AccountID, byRule: Bool) throws(StoreError) -> Bool {
        var mark: (read: Bool, starred: Bool, hidden: Bool)?
        try database.statement("SELECT read, starred, hidden FROM entry_marks WHERE account_id = ?1 AND entry_id = ?2")
            .query([.account(account), .integer(entry)]) { row in
                mark = (row.int64(at: 0) != 0, row.int64(at: 1) != 0, row.int64(at: 2) != 0)
            }
        if let mark, mark.starred || mark.hidden { return false }
        if mark?.read == true {
            try database.statement("""
                UPDATE subscriptions SET read_count = read_count - 1
                WHERE account_id = ?1 AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)
                """).run([.account(account), .integer(entry)])
        }
        try database.statement("""
            INSERT INTO entry_marks(account_id, entry_id, hidden, by_rule, changed_at) VALUES (?1, ?2, 1, ?3, unixepoch())
            ON CONFLICT(account_id, entry_id) DO UPDATE SET read = 0, hidden = 1, by_rule = ?3, changed_at = unixepoch()
            """).run([.account(account), .integer(entry), SQLValue(byRule)])
        try moveHiddenCount(entry, account: account, by: 1)
        return true
    }

    /// Moves the account's hidden counts of every subscription whose feed carries the entry.
    private func moveHiddenCount(_ entry: Int64, account: AccountID, by change: Int64) throws(StoreError) {
        try database.statement("""
            UPDATE subscriptions SET hidden_count = hidden_count + ?3
            WHERE account_id = ?1 AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)
            """).run([.account(account), .integer(entry), .integer(change)])
    }
}

// MARK: - Judging again, outside the writer (docs/SECURITY.md, "Filter rules")

/// One chunk of a feed's entries judged by an account's rules, outside any transaction.
public struct RuleVerdicts: Sendable {
    public var feed: FeedID
    /// Every entry judged, and those the rules hide (a subset).
    public var judged: [Int64] = []
    public var hidden: [Int64] = []

    public init(feed: FeedID) {
        self.feed = feed
    }
}

extension StoreReader {
    /// The feeds `account` follows (only those of `subscriptions` when given) with its rules for each, empty rules too:
    /// judging again must also bring back what rules that are gone had hidden.
    public func ruleSets(account: AccountID, subscriptions: [SubscriptionID]? = nil) throws(StoreError) -> [(feed: FeedID, rules: RuleSet)] {
        var values: [SQLValue] = [.account(account)]
        let only = subscriptions.map { " AND u.id IN (\(SQLValue.placeholders(for: $0, appendingTo: &values)))" } ?? ""
        var sets: [(feed: FeedID, rules: RuleSet)] = []
        try database.statement("""
            SELECT u.feed_id, \(RuleColumns.select(database.dialect))
            FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE u.account_id = ?1\(only) ORDER BY u.feed_id
            """).query(values) { row in sets.append((row.feedID(at: 0), RuleColumns.ruleSet(row, at: 1))) }
        return sets
    }

    /// Up to `limit` of the feed's entries after id `after`, in id order, as rules see them.
    public func ruledEntries(feed: FeedID, after: Int64, limit: Int) throws(StoreError) -> [(id: Int64, entry: RuledEntry)] {
        var entries: [(id: Int64, entry: RuledEntry)] = []
        try database.statement("""
            SELECT e.id, e.title, e.url, e.author, coalesce(e.content, e.summary), coalesce(e.published_at, e.first_seen_at)
            FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
            JOIN entries e ON e.id = s.entry_id WHERE s.feed_id = ?1 AND st.removed = 0 AND s.entry_id > ?2
            ORDER BY s.entry_id LIMIT ?3
            """).query([.feed(feed), .integer(after), .integer(Int64(limit))]) { row in
            entries.append((row.int64(at: 0), RuledEntry(
                title: row.text(at: 1), url: row.text(at: 2), author: row.text(at: 3), content: row.text(at: 4),
                date: row.optionalInt64(at: 5).map { Date(timeIntervalSince1970: Double($0)) })))
        }
        return entries
    }
}

extension FeedStore {
    /// Applies verdicts made outside the writer, in one short transaction: of the entries judged,
    /// those rules had hidden and no longer hide come back, those they hide now go. Entries not
    /// judged (arrived since, judged as they were stored) are left as they are. Returns how many the
    /// rules hide now.
    @discardableResult
    public func apply(_ verdicts: RuleVerdicts, account: AccountID) throws(StoreError) -> Int {
        guard !verdicts.judged.isEmpty else { return 0 }
        return try database.transaction { () throws(StoreError) -> Int in
            var values: [SQLValue] = [.account(account)]
            let judged = SQLValue.placeholders(for: verdicts.judged, appendingTo: &values)
            var ruled: [Int64] = []
            try database.statement("""
                SELECT entry_id FROM entry_marks WHERE account_id = ?1 AND hidden = 1 AND by_rule = 1 AND entry_id IN (\(judged))
                """).query(values) { ruled.append($0.int64(at: 0)) }
            let hidden = Set(verdicts.hidden)
            for entry in ruled where !hidden.contains(entry) { try unhide(entry, account: account) }
            var count = 0
            for entry in verdicts.hidden where try hideByRule(entry, account: account) { count += 1 }
            return count + ruled.filter(hidden.contains).count
        }
    }

    /// Brings back every entry of the feed that rules hid from the account (it has none for the feed
    /// now), in one short transaction.
    public func forgetRuleHides(feed: FeedID, account: AccountID) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            var ruled: [Int64] = []
            try database.statement("""
                SELECT m.entry_id FROM entry_marks m INDEXED BY entry_marks_hidden
                WHERE m.account_id = ?2 AND m.hidden = 1 AND m.by_rule = 1
                  AND EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = m.entry_id AND s.feed_id = ?1)
                """).query([.feed(feed), .account(account)]) { ruled.append($0.int64(at: 0)) }
            for entry in ruled { try unhide(entry, account: account) }
        }
    }

    /// Takes back a rule's hiding of an entry from the account.
    private func unhide(_ entry: Int64, account: AccountID) throws(StoreError) {
        try moveHiddenCount(entry, account: account, by: -1)
        try database.statement("DELETE FROM entry_marks WHERE account_id = ?1 AND entry_id = ?2")
            .run([.account(account), .integer(entry)])
    }

    /// Sets an account's filter rules for its subscription `id` ("" clears one; nil leaves it), without
    /// judging the stored entries: the caller judges them again outside the writer (`apply`).
    /// - Returns: the subscription's feed.
    public func saveRules(subscription: SubscriptionID, account: AccountID, blocklist: String?, keeplist: String?) throws(StoreError) -> FeedID {
        let id = subscription.rawValue
        return try database.transaction { () throws(StoreError) -> FeedID in
            let feed = try feedID(ofSubscription: subscription, account: account)
            if let blocklist { try setSubscription(id, "blocklist_rules", to: SQLValue(blocklist.isEmpty ? nil : blocklist)) }
            if let keeplist { try setSubscription(id, "keeplist_rules", to: SQLValue(keeplist.isEmpty ? nil : keeplist)) }
            return feed
        }
    }
}
