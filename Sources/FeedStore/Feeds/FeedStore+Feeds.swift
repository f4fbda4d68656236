import Foundation

/// A subscribed feed with its counts and fetch state.
/// Whether a feed is fetched, and how its last fetch went (the `feeds.status` column).
public enum FeedStatus: String, Sendable, Equatable, CaseIterable {
    /// Its last fetch worked.
    case ok
    /// Its last fetch failed: retried with backoff, the reason in `last_error`.
    case failing
    /// Gone for good (HTTP 410): no longer fetched.
    case disabled

    /// The column's text read back; a value this build does not know counts as failing, so that it shows.
    init(column text: String?) {
        self = text.flatMap(FeedStatus.init(rawValue:)) ?? .failing
    }
}

public struct FeedSummary: Sendable, Equatable {
    public var id: SubscriptionID
    public var url: String
    public var title: String?
    public var siteURL: String?
    public var category: String?
    public var categoryID: Int64?
    public var status: FeedStatus
    public var lastError: String?
    public var errorCount: Int
    public var unread: Int
    public var total: Int
    public var checkedAt: Date?
    public var nextCheckAt: Date?
    /// When it last brought an entry, new or carried by another feed first.
    public var newestEntryAt: Date?
    /// Its icon (id, and the digest public URLs name it by), once one was found.
    public var icon: IconReference?
    /// Whether its category is hidden from the global listings (Miniflux's category `hide_globally`).
    public var isCategoryHidden = false
    /// Whether the account keeps this feed out of its global listings (Miniflux's feed `hide_globally`).
    public var hideGlobally = false
    /// The account's selector of the article in the feed's pages (Miniflux's `scraper_rules`), if any.
    public var scraperRules: String?
    /// The account's filter rules for the feed (Miniflux's `blocklist_rules`, `keeplist_rules`), if any.
    public var blocklistRules: String?
    public var keeplistRules: String?
    /// Whether the feed is the account's own copy, fetched with its own settings (docs/ARCHITECTURE.md).
    public var isPrivateCopy = false
    /// Its fetch settings; the secrets (`cookie`, `password`) are never read back: "" when set.
    public var fetchSettings = FeedFetchSettings()
    /// Whether the account has every new entry's article extracted from its page (Miniflux's `crawler`).
    public var crawler = false

    public init(id: SubscriptionID, url: String, title: String? = nil, siteURL: String? = nil, category: String? = nil,
                categoryID: Int64? = nil, status: FeedStatus = .ok, lastError: String? = nil, errorCount: Int = 0,
                unread: Int = 0, total: Int = 0, checkedAt: Date? = nil, nextCheckAt: Date? = nil, newestEntryAt: Date? = nil) {
        (self.id, self.url, self.title, self.siteURL, self.category, self.categoryID) = (id, url, title, siteURL, category, categoryID)
        (self.status, self.lastError, self.errorCount, self.unread, self.total) = (status, lastError, errorCount, unread, total)
        (self.checkedAt, self.nextCheckAt, self.newestEntryAt) = (checkedAt, nextCheckAt, newestEntryAt)
    }
}

/// A category with how many feeds and articles it holds.
public struct CategorySummary: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var feeds: Int
    public var unread: Int
    public var total: Int
    /// Left out of the global listings (`ArticleFilter.globallyVisibleOnly`).
    public var hideGlobally = false
}

/// The totals `status` shows (the server's, or a regular account's own), and the asking account's
/// unread entries.
public struct StoreTotals: Sendable, Equatable {
    public var feedsByStatus: [FeedStatus: Int]
    public var entries: Int
    public var unread: Int

    public init(feedsByStatus: [FeedStatus: Int], entries: Int, unread: Int) {
        (self.feedsByStatus, self.entries, self.unread) = (feedsByStatus, entries, unread)
    }
}

/// How many entries a subscription, a category or an account holds, and how many of them are unread.
public struct EntryCounts: Sendable, Equatable {
    public var entries: Int
    public var unread: Int

    public init(entries: Int, unread: Int) {
        (self.entries, self.unread) = (entries, unread)
    }
}

extension StoreReader {
    /// Feeds per status and stored entries, and `account`'s unread entries: the server's feeds and
    /// entries when `serverWide` (an admin's view), else the account's own (docs/SECURITY.md, "Counts").
    public func totals(account: AccountID, serverWide: Bool = true) throws(StoreError) -> StoreTotals {
        var totals = StoreTotals(feedsByStatus: [:], entries: 0, unread: 0)
        let own = try accountCounts(account)
        totals.unread = own.unread
        guard serverWide else {
            try database.statement("""
                SELECT f.status, count(*) FROM subscriptions u JOIN feeds f ON f.id = u.feed_id
                WHERE u.account_id = ?1 GROUP BY f.status
                """).query([.account(account)]) { row in
                totals.feedsByStatus[FeedStatus(column: row.text(at: 0)), default: 0] += Int(row.int64(at: 1))
            }
            totals.entries = own.entries
            return totals
        }
        try database.statement("SELECT status, count(*) FROM feeds GROUP BY status").query { row in
            totals.feedsByStatus[FeedStatus(column: row.text(at: 0)), default: 0] += Int(row.int64(at: 1))
        }
        try database.statement("SELECT entries FROM store_totals WHERE id = 1").query { row in
            totals.entries = Int(row.int64(at: 0))
        }
        return totals
    }

    /// The account's subscriptions (optionally one category's, only failing ones, or those with `ids`)
    /// with their unread and total counts. A subscription's id is the feed's id for the account. An
    /// icon fetched from a non-public address is left out unless `nonPublicIcons` (docs/SECURITY.md).
    public func feeds(account: AccountID, category: String? = nil, failingOnly: Bool = false,
                      ids: [SubscriptionID]? = nil, nonPublicIcons: Bool = false) throws(StoreError) -> [FeedSummary] {
        var values: [SQLValue] = [.account(account), SQLValue(nonPublicIcons)]
        var conditions = ["u.account_id = ?1"]
        if let ids {
            conditions.append("u.id IN (\(SQLValue.placeholders(for: ids, appendingTo: &values)))")
        }
        if let category {
            values.append(.text(category))
            conditions.append("c.name = ?\(values.count) COLLATE NOCASE")
        }
        if failingOnly { conditions.append("(f.status != 'ok' OR u.disabled = 1)") }
        let sql = """
            SELECT u.id, f.url, coalesce(u.title, f.title), f.site_url, c.name,
                   CASE WHEN u.disabled = 1 THEN 'disabled' ELSE f.status END, f.last_error, f.error_count,
                   f.entry_count - u.read_count - u.hidden_count, f.entry_count - u.hidden_count, f.checked_at, f.next_check_at, u.category_id, f.newest_entry_at,
                   i.id, i.digest, coalesce(c.hide_globally, 0), u.hide_globally, u.scraper_rules, u.blocklist_rules, u.keeplist_rules,
                   f.owner_account_id IS NOT NULL, f.user_agent, CASE WHEN f.cookie IS NULL THEN NULL ELSE '' END, f.username,
                   CASE WHEN f.password IS NULL THEN NULL ELSE '' END, f.ignore_http_cache, f.allow_self_signed,
                   u.crawler_since IS NOT NULL
            FROM subscriptions u JOIN feeds f ON f.id = u.feed_id LEFT JOIN categories c ON c.id = u.category_id
            LEFT JOIN icons i ON i.id = f.icon_id AND (f.icon_non_public = 0 OR ?2 = 1)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY c.name COLLATE NOCASE, coalesce(u.title, f.title) COLLATE NOCASE, u.id
            """
        var feeds: [FeedSummary] = []
        try database.statement(sql).query(values) { row in
            feeds.append(FeedSummary(
                id: row.subscriptionID(at: 0), url: row.text(at: 1) ?? "", title: row.text(at: 2), siteURL: row.text(at: 3),
                category: row.text(at: 4), categoryID: row.optionalInt64(at: 12), status: FeedStatus(column: row.text(at: 5)), lastError: row.text(at: 6),
                errorCount: Int(row.int64(at: 7)), unread: Int(row.int64(at: 8)), total: Int(row.int64(at: 9)),
                checkedAt: row.optionalInt64(at: 10).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                nextCheckAt: row.optionalInt64(at: 11).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                newestEntryAt: row.optionalInt64(at: 13).map { Date(timeIntervalSince1970: TimeInterval($0)) }))
            if let iconID = row.optionalInt64(at: 14) { feeds[feeds.count - 1].icon = IconReference(id: iconID, digest: row.text(at: 15) ?? "") }
            feeds[feeds.count - 1].isCategoryHidden = row.int64(at: 16) != 0
            feeds[feeds.count - 1].hideGlobally = row.int64(at: 17) != 0
            feeds[feeds.count - 1].scraperRules = row.text(at: 18)
            (feeds[feeds.count - 1].blocklistRules, feeds[feeds.count - 1].keeplistRules) = (row.text(at: 19), row.text(at: 20))
            feeds[feeds.count - 1].isPrivateCopy = row.int64(at: 21) != 0
            feeds[feeds.count - 1].fetchSettings = FeedFetchSettings(row: row, at: 22)
            feeds[feeds.count - 1].crawler = row.int64(at: 28) != 0
        }
        return feeds
    }

    /// Each of the account's subscriptions' id, total and unread entries: the counters alone, for apps
    /// that poll them.
    public func feedCounters(account: AccountID) throws(StoreError) -> [(id: SubscriptionID, total: Int, unread: Int)] {
        var counters: [(id: SubscriptionID, total: Int, unread: Int)] = []
        try database.statement("""
            SELECT u.id, f.entry_count - u.hidden_count, f.entry_count - u.read_count - u.hidden_count
            FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.account_id = ?1 ORDER BY u.id
            """).query([.account(account)]) { row in
            counters.append((row.subscriptionID(at: 0), Int(row.int64(at: 1)), Int(row.int64(at: 2))))
        }
        return counters
    }

    /// One subscription's counts, or nil when the account has no subscription `id`.
    public func subscriptionCounts(_ subscription: SubscriptionID, account: AccountID) throws(StoreError) -> EntryCounts? {
        let id = subscription.rawValue
        var counts: EntryCounts?
        try database.statement("""
            SELECT f.entry_count - u.hidden_count, f.entry_count - u.read_count - u.hidden_count
            FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.id = ?1 AND u.account_id = ?2
            """).query([.integer(id), .account(account)]) { row in
            counts = EntryCounts(entries: Int(row.int64(at: 0)), unread: Int(row.int64(at: 1)))
        }
        return counts
    }

    /// How many feeds the account files under no category, and their unread entries (the
    /// subscriptions' counts added up: an entry two of them carry counts twice, as in Miniflux's
    /// uncategorized category).
    public func uncategorizedCounts(account: AccountID) throws(StoreError) -> (feeds: Int, unread: Int) {
        var counts = (feeds: 0, unread: 0)
        try database.statement("""
            SELECT count(*), coalesce(sum(f.entry_count - u.read_count - u.hidden_count), 0)
            FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.account_id = ?1 AND u.category_id IS NULL
            """).query([.account(account)]) { row in counts = (Int(row.int64(at: 0)), Int(row.int64(at: 1))) }
        return counts
    }

    /// The account's entries in all, and unread: its subscriptions' counts, an entry two of them carry
    /// counted once, and the entries it starred that none of its feeds carries (any more).
    public func accountCounts(_ account: AccountID) throws(StoreError) -> EntryCounts {
        var share = AccountShare(account: account)
        return try accountCounts(account, share: &share)
    }

    /// `accountCounts(_:)`, learning the account's share of the store in the same scan of its
    /// subscriptions (on PostgreSQL each such scan of 5,000 is ~2 ms).
    func accountCounts(_ account: AccountID, share: inout AccountShare) throws(StoreError) -> EntryCounts {
        var counts = EntryCounts(entries: 0, unread: 0)
        var carried: Int64 = 0
        try database.statement("""
            SELECT coalesce(sum(f.entry_count - u.hidden_count), 0), coalesce(sum(f.entry_count - u.read_count - u.hidden_count), 0),
                   coalesce(sum(f.entry_count), 0)
            FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.account_id = ?1
            """).query([.account(account)]) { row in
            counts = EntryCounts(entries: Int(row.int64(at: 0)), unread: Int(row.int64(at: 1)))
            carried = row.int64(at: 2)
        }
        try share.learn(carried: carried, in: database)
        let excess = try crossPostExcess(account: account, byCategory: false)[nil] ?? EntryCounts(entries: 0, unread: 0)
        var orphans = EntryCounts(entries: 0, unread: 0)
        // Kept, not counted here (`Counters.recountStarredOrphans`).
        try database.statement("SELECT starred_orphans, starred_orphans_unread FROM accounts WHERE id = ?1")
            .query([.account(account)]) { row in
                orphans = EntryCounts(entries: Int(row.int64(at: 0)), unread: Int(row.int64(at: 1)))
            }
        return EntryCounts(entries: counts.entries - excess.entries + orphans.entries,
                           unread: counts.unread - excess.unread + orphans.unread)
    }

    /// Every category of the account with its feed, unread and total counts (an article counted once
    /// per category).
    public func categories(account: AccountID) throws(StoreError) -> [CategorySummary] {
        var categories: [CategorySummary] = []
        try database.statement("""
            SELECT c.id, c.name, c.hide_globally, count(u.id), coalesce(sum(f.entry_count - u.read_count - u.hidden_count), 0),
                   coalesce(sum(f.entry_count - u.hidden_count), 0)
            FROM categories c LEFT JOIN subscriptions u ON u.category_id = c.id LEFT JOIN feeds f ON f.id = u.feed_id
            WHERE c.account_id = ?1 GROUP BY c.id ORDER BY c.name COLLATE NOCASE
            """).query([.account(account)]) { row in
            categories.append(CategorySummary(id: row.int64(at: 0), name: row.text(at: 1) ?? "", feeds: Int(row.int64(at: 3)),
                                              unread: Int(row.int64(at: 4)), total: Int(row.int64(at: 5)),
                                              hideGlobally: row.int64(at: 2) != 0))
        }
        let excess = try crossPostExcess(account: account, byCategory: true)
        for index in categories.indices {
            guard let extra = excess[categories[index].id] else { continue }
            categories[index].total -= extra.entries
            categories[index].unread -= extra.unread
        }
        return categories
    }

    /// How many times more than once the account's subscriptions count an entry that several of them
    /// carry, in all or per category (a cross-post, found by the partial index on entries with more than
    /// one source: few, so this costs a few milliseconds where counting every entry cost a second).
    private func crossPostExcess(account: AccountID, byCategory: Bool) throws(StoreError) -> [Int64?: EntryCounts] {
        let group = byCategory ? "u.category_id, st.entry_id" : "st.entry_id"
        var excess: [Int64?: EntryCounts] = [:]
        try database.statement("""
            SELECT \(byCategory ? "category_id" : "NULL"), coalesce(sum(k - 1), 0), coalesce(sum(CASE WHEN unread = 1 THEN k - 1 ELSE 0 END), 0)
            FROM (
                SELECT \(byCategory ? "u.category_id" : "NULL AS category_id"), count(*) AS k,
                       CASE WHEN EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = st.entry_id
                                         AND m.read = 1) THEN 0 ELSE 1 END AS unread
                FROM entry_state st CROSS JOIN entry_sources s ON s.entry_id = st.entry_id
                CROSS JOIN subscriptions u ON u.feed_id = s.feed_id AND u.account_id = ?1
                WHERE st.sources > 1 AND st.removed = 0 AND \(AccountScope.notHidden(account: "?1"))
                GROUP BY \(group) HAVING count(*) > 1
            ) AS crossposted\(byCategory ? " WHERE category_id IS NOT NULL GROUP BY category_id" : "")
            """).query([.account(account)]) { row in
            excess[row.optionalInt64(at: 0)] = EntryCounts(entries: Int(row.int64(at: 1)), unread: Int(row.int64(at: 2)))
        }
        return excess
    }
}

extension FeedStore {
    /// Unsubscribes the account from a feed: its read marks on the feed's entries go (entries another
    /// of its feeds carries keep theirs; starred ones stay, starred). A feed nobody follows any more is
    /// removed with its entries, except those any account starred and those another feed also carries.
    /// - Throws: `StoreError.Kind.notFound` when the account has no such subscription.
    public func removeFeed(id subscription: SubscriptionID, account: AccountID) throws(StoreError) {
        let id = subscription.rawValue
        try database.transaction { () throws(StoreError) in
            let feedID = try feedID(ofSubscription: subscription, account: account).rawValue
            try dropMarks(feed: feedID, account: account)
            try database.statement("DELETE FROM subscriptions WHERE id = ?1").run([.integer(id)])
            if try database.integer("SELECT count(*) FROM subscriptions WHERE feed_id = ?1", [.integer(feedID)]) == 0 {
                try removeUnfollowedFeed(feedID)
            }
            try Counters.recountStarredOrphans(account: account, database)
        }
    }

    /// Forgets the account's marks (read, hidden) on the feed's entries that no other feed of its
    /// carries, as it leaves the feed; starred ones stay.
    func dropMarks(feed: Int64, account: AccountID) throws(StoreError) {
        try database.statement("""
            DELETE FROM entry_marks
            WHERE account_id = ?2 AND starred = 0
              AND entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = ?1)
              AND NOT EXISTS (SELECT 1 FROM entry_sources o CROSS JOIN subscriptions u ON u.feed_id = o.feed_id
                              WHERE o.entry_id = entry_marks.entry_id AND u.account_id = ?2 AND u.feed_id != ?1)
            """).run([.integer(feed), .account(account)])
    }

    /// Deletes a feed nobody follows, and the entries only it carried that nobody starred; what stays
    /// loses it as a source.
    func removeUnfollowedFeed(_ id: Int64) throws(StoreError) {
        let onlyHere = """
            SELECT st.entry_id FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
            WHERE s.feed_id = ?1 AND st.sources = 1 AND st.stars = 0
            """
        let gone = try database.integer("""
            SELECT count(*) FROM entry_state WHERE removed = 0 AND entry_id IN (\(onlyHere))
            """, [.integer(id)]) ?? 0
        try unindexText(where: onlyHere, [.integer(id)])
        try database.prepare("DELETE FROM entries WHERE id IN (\(onlyHere))").run([.integer(id)])
        // What stays (starred, or carried by other feeds too) loses this source; an entry whose
        // primary feed this was is listed under another of its feeds from now on.
        try database.prepare("""
            UPDATE entry_state SET sources = sources - 1,
                feed_id = CASE WHEN feed_id = ?1 THEN
                    (SELECT o.feed_id FROM entry_sources o WHERE o.entry_id = entry_state.entry_id AND o.feed_id != ?1 LIMIT 1)
                    ELSE feed_id END
            WHERE entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = ?1)
            """).run([.integer(id)])
        try database.prepare("DELETE FROM feeds WHERE id = ?1").run([.integer(id)])
        try database.statement("UPDATE store_totals SET entries = entries - ?1 WHERE id = 1").run([.integer(gone)])
    }

    /// Renames the account's subscription, files it under another of its categories (`""` for none),
    /// moves it to another URL or site URL, disables or enables it, sets its flags, article selector
    /// and filter rules (`""` clears a text); nil leaves a field as it is. A new URL is fetched afresh
    /// (no validators of the old one) at once; an enabled feed is due at once with its errors
    /// cleared. A new URL of a shared feed moves this account's subscription to the feed at that URL
    /// (its site URL then only when nobody else follows that one); a private copy changes in place.
    /// The site URL of a feed others follow too stays as it is. New filter rules are saved only: the
    /// caller judges the stored entries again outside the writer (`apply`).
    /// - Throws: `StoreError.Kind.notFound` when the account has no such subscription.
    public func updateFeed(id subscription: SubscriptionID, account: AccountID, _ changes: FeedChanges, now: Date = Date()) throws(StoreError) {
        let id = subscription.rawValue
        let (title, category, url, siteURL) = (changes.title, changes.category, changes.url, changes.siteURL)
        let (scraperRules, blocklist, keeplist) = (changes.scraperRules, changes.blocklist, changes.keeplist)
        let (disabled, hideGlobally, crawler, fetchSettings) = (changes.disabled, changes.hideGlobally, changes.crawler, changes.fetchSettings)
        try database.transaction { () throws(StoreError) in
            var feedID = try feedID(ofSubscription: subscription, account: account).rawValue
            if !fetchSettings.isEmpty {
                feedID = try changeFetchSettings(subscription: id, feed: feedID, account: account, fetchSettings,
                                                 now: Int64(now.timeIntervalSince1970))
            }
            let othersFollow = try followers(of: feedID) > 1
            if let url, try movesToAnotherFeed(feedID, url: url) {
                // The feed stays as the others follow it (or another shared feed has the URL already):
                // this account's subscription moves to the feed at the new URL, as leaving and
                // following would, keeping its id (apps cache ids).
                let target = try sharedFeed(url: url, now: Int64(now.timeIntervalSince1970))
                if siteURL != nil, try followers(of: target) > 0 {
                    throw StoreError(.invalidQuery,
                                     message: "other accounts follow \(url) too: its site URL stays as it is")
                }
                try moveSubscription(id, account: account, from: feedID, to: target,
                                     now: Int64(now.timeIntervalSince1970))
                feedID = target
            } else if siteURL != nil, othersFollow {
                throw StoreError(.invalidQuery, message: "other accounts follow this feed too: its site URL stays "
                    + "as it is (give it a new URL to have one of your own)")
            }
            if let title { try setSubscription(id, "title", to: SQLValue(title.isEmpty ? nil : title)) }
            if let url {
                try database.statement("""
                    UPDATE feeds SET url = ?2, etag = NULL, last_modified = NULL, next_check_at = NULL
                    WHERE id = ?1 AND url != ?2
                    """).run([.integer(feedID), .text(url)])
            }
            if let siteURL {
                try database.statement("UPDATE feeds SET site_url = ?2 WHERE id = ?1")
                    .run([.integer(feedID), SQLValue(siteURL.isEmpty ? nil : siteURL)])
            }
            if let scraperRules { try setSubscription(id, "scraper_rules", to: SQLValue(scraperRules.isEmpty ? nil : scraperRules)) }
            if let hideGlobally { try setSubscription(id, "hide_globally", to: SQLValue(hideGlobally)) }
            if let crawler {
                // Entries first seen since the subscription began (a backlog others had is left alone).
                try database.statement("""
                    UPDATE subscriptions SET crawler_since = CASE WHEN ?2 = 1 THEN coalesce(crawler_since, added_at) ELSE NULL END
                    WHERE id = ?1
                    """).run([.integer(id), SQLValue(crawler)])
            }
            // Saved only: the caller judges the stored entries again outside the writer (`apply`).
            if let blocklist { try setSubscription(id, "blocklist_rules", to: SQLValue(blocklist.isEmpty ? nil : blocklist)) }
            if let keeplist { try setSubscription(id, "keeplist_rules", to: SQLValue(keeplist.isEmpty ? nil : keeplist)) }
            if let disabled {
                try setSubscription(id, "disabled", to: SQLValue(disabled))
                try updateFetching(feedID)
            }
            guard let category else { return }
            let next = category.isEmpty ? nil : try categoryID(named: category, account: account, creating: true)
            try database.statement("UPDATE subscriptions SET category_id = ?2 WHERE id = ?1").run([.integer(id), SQLValue(next)])
        }
    }

    /// Whether a new URL for the feed `feedID` moves its follower to the shared feed at that URL
    /// rather than changing this one: always for a shared feed (docs/SECURITY.md): what was fetched at the
    /// old URL (entries, icon, latest document) stays with it, and the next account to follow the new
    /// URL must not be shown it. A private copy is its owner's alone and changes in place.
    private func movesToAnotherFeed(_ feedID: Int64, url: String) throws(StoreError) -> Bool {
        try database.integer("SELECT count(*) FROM feeds WHERE id = ?1 AND url <> ?2 AND owner_account_id IS NULL",
                             [.integer(feedID), .text(url)]) == 1
    }

    /// How many subscriptions, of any account, follow the feed.
    func followers(of feedID: Int64) throws(StoreError) -> Int64 {
        try database.integer("SELECT count(*) FROM subscriptions WHERE feed_id = ?1", [.integer(feedID)]) ?? 0
    }

    /// The shared feed at `url`, made (due at once) when there is none. Nothing of another feed is
    /// copied to it: a title or site URL fetched elsewhere (a private copy's, or another URL's) would be
    /// shown to the next account that follows `url` (docs/SECURITY.md).
    func sharedFeed(url: String, now: Int64) throws(StoreError) -> Int64 {
        try database.statement("""
            INSERT INTO feeds(url, added_at) VALUES (?1, ?2) ON CONFLICT(url) WHERE owner_account_id IS NULL DO NOTHING
            """).run([.text(url), .integer(now)])
        guard let shared = try database.integer("SELECT id FROM feeds WHERE url = ?1 AND owner_account_id IS NULL",
                                                [.text(url)]) else {
            throw StoreError(.failed, message: "the shared feed \(url) could not be stored")
        }
        return shared
    }

    /// Sets one column of subscription `id` (`column` is fixed text of the callers', never input).
    func setSubscription(_ id: Int64, _ column: StaticString, to value: SQLValue) throws(StoreError) {
        try database.statement("UPDATE subscriptions SET \(column) = ?2 WHERE id = ?1").run([.integer(id), value])
    }

    /// A feed is fetched while any of its followers has it enabled: disabled when the last one
    /// disables it; enabled again (due at once, errors cleared) when one enables it.
    func updateFetching(_ feedID: Int64) throws(StoreError) {
        let enabled = try database.integer(
            "SELECT count(*) FROM subscriptions WHERE feed_id = ?1 AND disabled = 0", [.integer(feedID)]) ?? 0
        if enabled == 0 {
            try database.statement("UPDATE feeds SET status = 'disabled' WHERE id = ?1").run([.integer(feedID)])
        } else {
            try database.statement("""
                UPDATE feeds SET status = 'ok', error_count = 0, last_error = NULL, next_check_at = NULL
                WHERE id = ?1 AND status = 'disabled'
                """).run([.integer(feedID)])
        }
    }

    /// Renames one of the account's categories; when another of its categories already has the new
    /// name, the two are merged.
    /// - Throws: `StoreError.Kind.notFound` when the account has no category `name`.
    public func renameCategory(_ name: String, to newName: String, account: AccountID) throws(StoreError) {
        guard !newName.isEmpty else { throw StoreError(.invalidQuery, message: "a category needs a name") }
        try database.transaction { () throws(StoreError) in
            guard let source = try categoryID(named: name, account: account, creating: false) else {
                throw StoreError(.notFound, message: "no category named '\(name)'")
            }
            guard let target = try categoryID(named: newName, account: account, creating: false), target != source else {
                try database.statement("UPDATE categories SET name = ?2 WHERE id = ?1").run([.integer(source), .text(newName)])
                return
            }
            try database.statement("UPDATE subscriptions SET category_id = ?2 WHERE category_id = ?1")
                .run([.integer(source), .integer(target)])
            try database.statement("DELETE FROM categories WHERE id = ?1").run([.integer(source)])
        }
    }

    /// Creates an empty category for the account. - Returns: its id, or nil when the name is taken.
    public func createCategory(_ name: String, account: AccountID) throws(StoreError) -> Int64? {
        guard !name.isEmpty else { throw StoreError(.invalidQuery, message: "a category needs a name") }
        return try database.transaction { () throws(StoreError) -> Int64? in
            try database.integer("INSERT INTO categories(account_id, name) VALUES (?1, ?2) ON CONFLICT DO NOTHING RETURNING id",
                                 [.account(account), .text(name)])
        }
    }

    /// Hides one of the account's categories from its global listings, or shows it there again.
    /// - Throws: `StoreError.Kind.notFound` when the account has no such category.
    public func setCategoryHidden(id: Int64, account: AccountID, _ hidden: Bool) throws(StoreError) {
        try database.statement("UPDATE categories SET hide_globally = ?3 WHERE id = ?1 AND account_id = ?2")
            .run([.integer(id), .account(account), SQLValue(hidden)])
        guard try database.changes() == 1 else { throw StoreError(.notFound, message: "no category with id \(id)") }
    }

    /// Deletes one of the account's categories; its feeds stay, filed under none.
    /// - Throws: `StoreError.Kind.notFound` when the account has no such category.
    public func removeCategory(id: Int64, account: AccountID) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("DELETE FROM categories WHERE id = ?1 AND account_id = ?2").run([.integer(id), .account(account)])
            guard try database.changes() == 1 else { throw StoreError(.notFound, message: "no category with id \(id)") }
            // ON DELETE SET NULL has filed its subscriptions under none.
        }
    }

    /// The id of the account's subscription to the feed at `url`, or nil.
    public func feedID(url: String, account: AccountID) throws(StoreError) -> SubscriptionID? {
        try database.integer("""
            SELECT u.id FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE f.url = ?1 AND u.account_id = ?2
            """, [.text(url), .account(account)]).map { SubscriptionID($0) }
    }

    /// The feed of the account's subscription `id`.
    /// - Throws: `StoreError.Kind.notFound` when the account has no such subscription.
    public func feedID(ofSubscription id: SubscriptionID, account: AccountID) throws(StoreError) -> FeedID {
        guard let feedID = try database.integer("SELECT feed_id FROM subscriptions WHERE id = ?1 AND account_id = ?2",
                                                [.subscription(id), .account(account)]) else {
            throw StoreError(.notFound, message: "no feed with id \(id)")
        }
        return FeedID(feedID)
    }

    /// The id of the account's category `name` (case-insensitive), created when asked.
    func categoryID(named name: String, account: AccountID, creating: Bool) throws(StoreError) -> Int64? {
        if creating {
            try database.statement("INSERT INTO categories(account_id, name) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
                .run([.account(account), .text(name)])
        }
        return try database.integer("SELECT id FROM categories WHERE account_id = ?1 AND name = ?2 COLLATE NOCASE",
                                    [.account(account), .text(name)])
    }
}

extension Database {
    /// How many feeds the account follows.
    func subscriptionCount(account: AccountID) throws(StoreError) -> Int {
        Int(try integer("SELECT count(*) FROM subscriptions WHERE account_id = ?1", [.account(account)]) ?? 0)
    }
}

extension StoreReader {
    /// How many feeds the account follows.
    public func subscriptionCount(account: AccountID) throws(StoreError) -> Int {
        try database.subscriptionCount(account: account)
    }

    /// Those of `urls` whose shared feed's last document came from a non-public address only admins
    /// may reach (`IncomingFeed.onlyForAdmins`), at most the first 10,000 asked.
    public func feedsOnlyForAdmins(among urls: [String]) throws(StoreError) -> Set<String> {
        var found: Set<String> = []
        var start = 0
        let asked = Array(urls.prefix(10_000))
        while start < asked.count {
            let end = min(start + 500, asked.count)
            var values: [SQLValue] = []
            let placeholders = asked[start..<end].map { url -> String in
                values.append(.text(url))
                return "?\(values.count)"
            }.joined(separator: ",")
            try database.statement("""
                SELECT url FROM feeds WHERE only_for_admins = 1 AND owner_account_id IS NULL AND url IN (\(placeholders))
                """).query(values) { row in if let url = row.text(at: 0) { found.insert(url) } }
            start = end
        }
        return found
    }
    /// Whether the shared feed at `url` is stored and has been fetched (a document of it is stored):
    /// following it needs no request (docs/ARCHITECTURE.md, "Fetch once").
    public func isFetchedSharedFeed(url: String) throws(StoreError) -> Bool {
        try database.integer("""
            SELECT 1 FROM feeds f JOIN feed_latest l ON l.feed_id = f.id WHERE f.url = ?1 AND f.owner_account_id IS NULL
            """, [.text(url)]) != nil
    }
}
