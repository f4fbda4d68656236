import Foundation

/// Private copies of feeds (docs/ARCHITECTURE.md): a feed with fetch settings of its own (a cookie, credentials,
/// another user agent, …) is its account's alone, fetched with them, and its entries are keyed apart
/// (`IncomingFeed(isPrivate:)`), so what a cookie fetched is never shown to anyone else. The
/// account's subscription keeps its id when its feed is split into a private copy or joins the
/// shared one again.
extension FeedStore {
    /// A new private feed of `account`'s at `url`, due at once.
    func insertPrivateFeed(url: String, title: String?, siteURL: String?, settings: FeedFetchSettings, account: AccountID,
                           now: SQLValue) throws(StoreError) -> Int64 {
        guard let id = try database.integer("""
            INSERT INTO feeds(url, title, site_url, added_at, owner_account_id, \(FeedFetchSettings.columns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id
            """, [.text(url), SQLValue(title), SQLValue(siteURL), now, .account(account)] + settings.values) else {
            throw StoreError(.failed, message: "the private copy of \(url) could not be stored")
        }
        return id
    }

    /// The feed's fetch settings, and its owner (nil: shared).
    func fetchSettings(ofFeed feed: Int64) throws(StoreError) -> (settings: FeedFetchSettings, owner: AccountID?) {
        var found: (FeedFetchSettings, AccountID?)?
        try database.statement("SELECT owner_account_id, \(FeedFetchSettings.columns) FROM feeds WHERE id = ?1")
            .query([.integer(feed)]) { row in found = (FeedFetchSettings(row: row, at: 1), row.optionalInt64(at: 0).map { AccountID($0) }) }
        guard let found else { throw StoreError(.notFound, message: "no feed with id \(feed)") }
        return found
    }

    /// Applies `change` to the fetch settings of the account's subscription `subscription` to `feed`:
    /// a shared feed given settings of its own is split into the account's private copy; a private
    /// copy whose settings all go back to the defaults follows the shared feed again; otherwise the
    /// copy's settings change in place. Call inside a transaction.
    /// - Returns: the subscription's feed now.
    func changeFetchSettings(subscription: Int64, feed: Int64, account: AccountID, _ change: FetchSettingsChange,
                             now: Int64) throws(StoreError) -> Int64 {
        let (current, owner) = try fetchSettings(ofFeed: feed)
        let wanted = current.applying(change)
        guard wanted != current else { return feed }
        if owner != nil, !wanted.isDefault {
            try database.statement("""
                UPDATE feeds SET \(FeedFetchSettings.assignments(from: 2)), etag = NULL, last_modified = NULL,
                    next_check_at = NULL
                WHERE id = ?1
                """).run([.integer(feed)] + wanted.values)
            return feed
        }
        var row: (url: String, title: String?, siteURL: String?)?
        try database.statement("SELECT url, title, site_url FROM feeds WHERE id = ?1").query([.integer(feed)]) { found in
            row = (found.text(at: 0) ?? "", found.text(at: 1), found.text(at: 2))
        }
        guard let row else { throw StoreError(.notFound, message: "no feed with id \(feed)") }
        let target: Int64
        if wanted.isDefault {
            target = try sharedFeed(url: row.url, now: now)
        } else {
            target = try insertPrivateFeed(url: row.url, title: row.title, siteURL: row.siteURL, settings: wanted,
                                           account: account, now: .integer(now))
        }
        try moveSubscription(subscription, account: account, from: feed, to: target, now: now)
        return target
    }

    /// Points the account's subscription at another feed of the same URL, as leaving one and following
    /// the other would: its marks on what only the old feed carried go, the new feed shows its latest
    /// document, and the old feed goes when nobody follows it any more. Its rules are not applied to
    /// the new feed's entries here: the caller judges them again after the commit.
    func moveSubscription(_ id: Int64, account: AccountID, from old: Int64, to new: Int64, now: Int64) throws(StoreError) {
        try dropMarks(feed: old, account: account)
        try database.statement("UPDATE subscriptions SET feed_id = ?2, read_count = 0, hidden_count = 0 WHERE id = ?1")
            .run([.integer(id), .integer(new)])
        try showLatestDocumentOnly(feed: new, account: account, now: now)
        // Its filter rules over the other feed's entries: judged after the commit, outside the writer
        // (the caller: `AggregatorService.judgeAgain(account:subscriptions:)`).
        if try followers(of: old) == 0 {
            try removeUnfollowedFeed(old)
        } else {
            try updateFetching(old)
        }
        try updateFetching(new)
        try Counters.recountStarredOrphans(account: account, database)
    }
}

extension StoreReader {
    /// The fetch settings of the feed of the account's subscription `id`, secrets included, for a
    /// request made for that feed (its pages' full content); nil for a shared feed or another account's.
    public func fetchSettings(ofSubscription subscription: SubscriptionID, account: AccountID) throws(StoreError) -> FeedFetchSettings? {
        let id = subscription.rawValue
        var settings: FeedFetchSettings?
        try database.statement("""
            SELECT \(FeedFetchSettings.columns) FROM subscriptions u JOIN feeds f ON f.id = u.feed_id
            WHERE u.id = ?1 AND u.account_id = ?2 AND f.owner_account_id IS NOT NULL
            """).query([.integer(id), .account(account)]) { row in settings = FeedFetchSettings(row: row, at: 0) }
        return settings
    }
}
