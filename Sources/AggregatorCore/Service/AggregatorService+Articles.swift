import FeedStore
import Foundation

extension AggregatorService {
    /// The most articles one page may hold.
    public static let maximumPageSize = 1000

    // MARK: - Articles

    /// A page of the articles `query` selects, in `sort` order (newest first; by relevance when
    /// searching), after `cursor` (a previous page's `nextCursor`).
    /// `account`'s own edits replace what the feed wrote (they do not change matching or order).
    public func articles(_ query: ArticleQuery, sort: ArticleSort? = nil, limit: Int = 50, cursor: String? = nil,
                         for account: AccountIdentity) async throws(AggregatorError) -> ArticlePage {
        guard (1...Self.maximumPageSize).contains(limit) else {
            throw .invalidArgument("the limit must be 1 to \(Self.maximumPageSize), not \(limit)")
        }
        let filter = try await filter(query, for: account)
        let order = sort ?? (filter.search == nil ? .newest : .relevance)
        var page = try await listRead(for: account) { try $0.articles(filter, sort: order, limit: limit, cursor: cursor) }
        page.articles = try await seen(by: account, page.articles)
        return page
    }

    /// One article with its content and enclosures, as `account` sees it.
    public func article(id: EntryID, for account: AccountIdentity) async throws(AggregatorError) -> Article {
        guard let article = try await read({ try $0.article(id: id, account: account.id) }) else {
            throw .notFound("no article with id \(id)")
        }
        return try await seen(by: account, [article])[0]
    }

    /// Marks the selected articles read or unread, starred or not (nil leaves that state alone).
    /// - Returns: how many articles changed.
    public func mark(_ selection: MarkSelection, read isRead: Bool?, starred: Bool?,
                     for account: AccountIdentity) async throws(AggregatorError) -> Int {
        guard isRead != nil || starred != nil else { throw .invalidArgument("say read and/or starred") }
        switch selection {
        case .ids(let ids):
            return try await write(for: account.id) { try await $0.mark(ids: ids, account: account.id, read: isRead, starred: starred) }
        case .matching(let query):
            let filter = try await filter(query, for: account)
            return try await write(for: account.id) { try await $0.mark(filter, read: isRead, starred: starred) }
        }
    }

    /// Hides the account's read, unstarred entries from all its listings (its history emptied, as
    /// Miniflux's "flush history"); others see them as before. Returns how many it hid.
    @discardableResult
    public func flushHistory(for account: AccountIdentity) async throws(AggregatorError) -> Int {
        try await write(for: account.id) { try await $0.flushHistory(account: account.id) }
    }

    /// Calls `onArticle` with each article `query` selects that is stored from now on, in the order
    /// stored, until the calling task is cancelled; `onStart` once the watch is on (every article
    /// stored after it is seen). Woken by the store's events: while nothing is stored it costs
    /// nothing, however many watch.
    public func watch(_ query: ArticleQuery, for account: AccountIdentity, onStart: () -> Void = {},
                      onArticle: (Article) -> Void) async throws(AggregatorError) {
        var filter = try await filter(query, for: account)
        let events = self.events.subscribe()  // before reading where to start: nothing stored in between is missed
        var newest = try await read { try $0.newestEntryID() }
        onStart()
        // Several daemons commit in an order of their own, not their ids': an entry with a lower id
        // than one printed may still arrive. On a cluster each read looks again at the ids of the
        // last `settle` seconds (a commit is open for a few at most); alone, ids come in commit order.
        let settle: TimeInterval = cluster == nil ? 0 : 30
        var start = newest  // every entry at or below it was printed or will never be
        var reads: [(newest: Int64, at: Date)] = []
        var printed: Set<Int64> = []  // those above `start`
        for await event in events {
            guard case .entriesStored = event else { continue }
            let now = Date()
            while let first = reads.first, now.timeIntervalSince(first.at) >= settle {
                start = first.newest
                reads.removeFirst()
            }
            printed = printed.filter { $0 > start }
            filter.storedAfterID = start
            while true {
                let page = try await read { [filter] in try $0.articles(filter, sort: .oldest, limit: Self.maximumPageSize) }
                let articles = page.articles.sorted(by: { $0.id < $1.id })
                for article in articles where printed.insert(article.id.rawValue).inserted {
                    onArticle(article)
                }
                guard articles.count == Self.maximumPageSize, let last = articles.last else { break }
                filter.storedAfterID = last.id.rawValue
            }
            // Entries stored but filtered out still move the starting point on.
            newest = max(newest, printed.max() ?? newest, try await read { try $0.newestEntryID() })
            reads.append((newest, now))
        }
    }

    /// The store's filter for `query` as `account` asks it, with the feed it names looked up (not
    /// there, or another account's: `notFound`). The listings, marks and watches a filter serves select
    /// unread and starred articles; read-only or unstarred-only selections are the paged listings'
    /// (`entries`).
    func filter(_ query: ArticleQuery, for account: AccountIdentity) async throws(AggregatorError) -> ArticleFilter {
        guard query.read != true, query.starred != false else {
            throw .invalidArgument("read-only and unstarred-only selections are for paged listings")
        }
        var filter = ArticleFilter(account: account.id, category: query.category, unreadOnly: query.unreadOnly,
                                   starredOnly: query.starredOnly, search: query.search)
        if let feed = query.feed { filter.feedID = try await feedID(feed, for: account) }
        filter.uncategorized = query.uncategorized
        filter.since = query.since
        filter.before = query.before
        filter.storedBefore = query.storedBefore
        filter.globallyVisibleOnly = query.globallyVisibleOnly
        return filter
    }

    // MARK: - Refresh

    /// `refresh` asked by an account of the HTTP APIs or the web page (docs/SECURITY.md): a regular account
    /// may have each feed fetched at most once a minute and 60 times an hour in all (`RefreshLimiter`).
    /// Asked too often, the refresh is refused (`tooManyRequests`, with when to ask again); with
    /// `skippingLimited` (refresh-all), the feeds asked too often are left out instead. Admins are not
    /// limited, nor is the fetch that comes with subscribing (which does not come through here).
    public func refreshOnDemand(_ subscriptions: [SubscriptionID], skippingLimited: Bool = false,
                                for account: AccountIdentity) async throws(AggregatorError) -> RefreshOutcome {
        guard !subscriptions.isEmpty else { return .queued(feeds: 0) }
        guard try await !isAdmin(account) else { return try await refresh(subscriptions.map { .id($0) }, wait: false, for: account) }
        let (allowed, retryAfter) = refreshLimiter.admit(subscriptions, account: account.id)
        if !skippingLimited, allowed.count < subscriptions.count, let retryAfter {
            throw .tooManyRequests("refreshed too often: a feed at most once a minute and \(RefreshLimiter.perHour) refreshes "
                + "an hour; retry in \(retryAfter) s", retryAfter: retryAfter)
        }
        // Nothing left: `refresh` with no feeds named would fetch the whole server's.
        guard !allowed.isEmpty else { return .queued(feeds: 0) }
        return try await refresh(allowed.map { .id($0) }, wait: false, for: account)
    }

    /// Fetches `feeds` (every feed when nil) now, due or not. Without `wait`, the scheduler's next
    /// round does it, starting at once, and this returns how many feeds it will fetch; with `wait`,
    /// the feeds are fetched here and `progress` hears of each as it finishes.
    /// Feeds are named by the account's ids for them (`account`), the whole server's when nil.
    public func refresh(_ feeds: [FeedReference]?, wait: Bool, for account: AccountIdentity,
                        progress: @Sendable (RefreshProgress) -> Void = { _ in }) async throws(AggregatorError)
        -> RefreshOutcome {
        var due = try await write { try await $0.feedsToFetch() }
        var named: [FeedID]?
        if let feeds, !feeds.isEmpty {
            var ids: Set<FeedID> = []
            for feed in feeds {
                let subscription = try await feedID(feed, for: account)
                ids.insert(try await write { try await $0.feedID(ofSubscription: subscription, account: account.id) })
            }
            due = due.filter { ids.contains($0.id) }
            named = Array(ids)
        }
        guard wait else {
            if let cluster { return .queued(feeds: try await makeDue(named, on: cluster)) }
            await scheduler.refreshSoon(named)
            return .queued(feeds: due.count)
        }
        let urls = Dictionary(due.map { ($0.id, $0.url) }, uniquingKeysWith: { first, _ in first })
        let total = due.count
        let report = { (done: Int, refresh: FeedRefresh) in
            progress(RefreshProgress(done: done, total: total, feedID: refresh.feedID, url: urls[refresh.feedID],
                                     isSuccess: refresh.isSuccess))
        }
        let summary = if let cluster {
            try await refreshAcrossCluster(cluster, feeds: due, everything: named == nil, progress: report)
        } else {
            await pipeline.refresh(due, progress: report)
        }
        await scheduler.startBackgroundPasses()  // as after the scheduler's own rounds: icons, the crawler
        return .finished(summary)
    }
}
