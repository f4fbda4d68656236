import FeedFetcher
import FeedParser
import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - Feeds

    /// The subscriptions, with their state and counts; only those of `category`, or only failing ones.
    public func feeds(category: String? = nil, failingOnly: Bool = false,
                      for account: AccountIdentity) async throws(AggregatorError) -> [FeedSummary] {
        let icons = mayBeShownNonPublic(account)
        return try await read { try $0.feeds(account: account.id, category: category, failingOnly: failingOnly, nonPublicIcons: icons) }
    }

    /// The subscriptions with these ids (those that exist).
    public func feeds(ids: Set<SubscriptionID>, for account: AccountIdentity) async throws(AggregatorError) -> [FeedSummary] {
        guard !ids.isEmpty else { return [] }
        let icons = mayBeShownNonPublic(account)
        return try await read { try $0.feeds(account: account.id, ids: Array(ids), nonPublicIcons: icons) }
    }

    /// Each feed's id with its total and unread entries (the counters alone: cheap to poll).
    public func feedCounters(for account: AccountIdentity) async throws(AggregatorError) -> [(id: SubscriptionID, total: Int, unread: Int)] {
        try await read { try $0.feedCounters(account: account.id) }
    }

    /// One subscription.
    public func feed(_ reference: FeedReference, for account: AccountIdentity) async throws(AggregatorError) -> FeedSummary {
        // An id is looked up below with the account: checking it first too read it twice.
        let id = if case .id(let id) = reference { id } else { try await feedID(reference, for: account) }
        let icons = mayBeShownNonPublic(account)
        guard let feed = try await read({ try $0.feeds(account: account.id, ids: [id], nonPublicIcons: icons).first }) else {
            throw .notFound("no feed with id \(id)")
        }
        return feed
    }

    /// Subscribes to the feed at `url`, or to the feed an HTML page at `url` links to (or serves at a
    /// usual path), and has the scheduler fetch it at once; a shared feed already fetched for another
    /// account is followed as stored, without a request.
    /// With fetch settings other than the defaults (docs/ARCHITECTURE.md), the feed is the account's private copy,
    /// discovered and fetched with them.
    public func addFeed(url: String, category: String? = nil, title: String? = nil,
                        fetchSettings: FeedFetchSettings = FeedFetchSettings(),
                        for account: AccountIdentity) async throws(AggregatorError) -> FeedAddition {
        try await admit(url, for: account)
        try Self.checkFetchSettings(fetchSettings, for: account)
        try await checkRoomForAnotherFeed(for: account)
        // A shared feed fetched before is followed as it is stored: no request (docs/ARCHITECTURE.md, "Fetch once").
        let stored = fetchSettings.isDefault ? try await read { try $0.isFetchedSharedFeed(url: url) } : false
        let found = stored ? Discovery(url: url) : try await discover(url, settings: fetchSettings, for: account)
        if found.url != url { try await admit(found.url, for: account) }  // a feed the page links to
        guard try await write({ try await $0.feedID(url: found.url, account: account.id) }) == nil else {
            throw .alreadySubscribed("already subscribed to \(found.url)")
        }
        let subscribed = try await subscribe([.init(url: found.url, title: title ?? found.title, category: category,
                                                    fetchSettings: fetchSettings)], for: account)
        guard subscribed.overQuota.isEmpty else { throw .invalidArgument(quotaRefusal()) }
        var feed = try await self.feed(.url(found.url), for: account)
        // Still stored now that it is followed: its last follower may have left (and the feed gone with
        // them) between the look and the subscription, which then made the feed anew, never fetched.
        let stillStored = stored ? try await read { try $0.isFetchedSharedFeed(url: url) } : false
        // The document discovery fetched is the new feed's first fetch, not a request to make again.
        let keptDocument = if let document = found.document { await storeFirstFetch(of: feed.id, document, for: account) } else { false }
        if keptDocument {
            await noteWrite(account.id)  // its entries, stored by the pipeline
            feed = try await self.feed(.id(feed.id), for: account)
        } else if !stillStored {
            scheduler.wakeEveryone()
        }
        return FeedAddition(feed: feed, warning: found.warning, candidates: found.candidates, wasFetched: stillStored || keptDocument)
    }

    /// Unsubscribes; the feed's entries go with it unless another feed carries them too, or they are starred.
    /// - Returns: the id of the feed removed.
    public func removeFeed(_ reference: FeedReference, for account: AccountIdentity) async throws(AggregatorError) -> SubscriptionID {
        let id = try await feedID(reference, for: account)
        try await write(for: account.id) { try await $0.removeFeed(id: id, account: account.id) }
        return id
    }

    /// Renames a feed and/or files it under another category ("" for none); also (the Miniflux API)
    /// moves it to another feed URL (http(s), not one already subscribed) or site URL, or disables or
    /// enables it, keeps it out of the global listings (`hideGlobally`), sets the selector of its
    /// pages' article (`scraperRules`) or its filter rules (`blocklist`, `keeplist`: a regular
    /// expression each over title, URL and author, hiding entries from this account only); "" clears
    /// a text. Every value is checked before anything changes. The scheduler is woken when the feed is
    /// to be fetched again.
    public func updateFeed(_ reference: FeedReference, _ changes: FeedChanges,
                           for account: AccountIdentity) async throws(AggregatorError) -> FeedSummary {
        guard !changes.isEmpty else { throw .invalidArgument("give a new title and/or category") }
        let (url, fetchSettings, blocklist, keeplist) = (changes.url, changes.fetchSettings, changes.blocklist, changes.keeplist)
        let id = try await feedID(reference, for: account)
        try Self.checkFeedSettings(scraperRules: changes.scraperRules, blocklist: blocklist, keeplist: keeplist)
        try Self.checkFetchSettings(FeedFetchSettings().applying(fetchSettings), for: account)
        if let url {
            // An address the rule refuses is refused now, as when a feed is added; whatever the URL
            // serves is the scheduler's to show on the feed.
            try await admit(url, for: account)
            if let other = try await write({ try await $0.feedID(url: url, account: account.id) }), other != id {
                throw .alreadySubscribed("already subscribed to \(url)")
            }
        }
        try await write(for: account.id) { try await $0.updateFeed(id: id, account: account.id, changes) }
        if url != nil || changes.disabled == false || !fetchSettings.isEmpty { scheduler.wakeEveryone() }
        // New rules, or another feed under the subscription (a new URL, fetch settings of its own or none):
        // its stored entries judged again, outside the writer.
        if blocklist != nil || keeplist != nil || url != nil || !fetchSettings.isEmpty {
            await judgeAgain(account: account, subscriptions: [id])
        }
        return try await feed(.id(id), for: account)
    }

    /// Refuses fetch settings that could not be sent as given (control characters, which would end a
    /// header line; over 4 KiB) and a self-signed certificate asked for by a regular account (an admin's
    /// choice: it turns off the check that the server is who it says).
    public static func checkFetchSettings(_ settings: FeedFetchSettings, for account: AccountIdentity) throws(AggregatorError) {
        let texts = [("user_agent", settings.userAgent), ("cookie", settings.cookie), ("username", settings.username),
                     ("password", settings.password)]
        for (name, text) in texts {
            guard let text else { continue }
            guard text.utf8.count <= 4096 else { throw .invalidArgument("\(name) can be at most 4096 bytes") }
            guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidArgument("\(name) cannot hold control characters (tabs, line breaks)")
            }
        }
        if let username = settings.username, username.contains(":") {
            throw .invalidArgument("username cannot hold ':' (HTTP Basic separates it from the password with one)")
        }
        if settings.allowsSelfSignedCertificates, !account.isAdmin {
            throw .forbidden("only an admin may allow self-signed certificates (allow_self_signed_certificates)")
        }
    }

    /// Refuses an article selector or a filter rule the engines cannot read (`ContentSelector`,
    /// `BoundedRegex`), naming the field as Miniflux does; nil or "" is no rule.
    public static func checkFeedSettings(scraperRules: String?, blocklist: String?, keeplist: String?) throws(AggregatorError) {
        if let scraperRules, !scraperRules.isEmpty {
            do {
                _ = try ContentSelector(scraperRules)
            } catch {
                throw .invalidArgument("scraper_rules: \(error.description)")
            }
        }
        for (name, pattern) in [("blocklist_rules", blocklist), ("keeplist_rules", keeplist)] {
            guard let pattern, !pattern.isEmpty else { continue }
            if let limit = FilterRuleSyntax.limitRefusal(pattern) { throw .invalidArgument("\(name): \(limit)") }
            do {
                _ = try BoundedRegex(pattern)
            } catch {
                throw .invalidArgument("\(name): \(error.description)")
            }
        }
    }

    /// Subscribes to every feed of an OPML document that the account may follow: already subscribed
    /// ones are skipped, and each outline the address rule or the quota refuses is named with why
    /// (docs/SECURITY.md). A document over `max-import-bytes` is refused whole (regular accounts).
    public func importOPML(_ document: Data, for account: AccountIdentity) async throws(AggregatorError) -> ImportSummary {
        try await checkImportSize(document.count, for: account)
        let outlines: [OPMLFeed]
        do {
            outlines = try OPMLReader.feeds(in: document)
        } catch {
            throw .failed(error.description)
        }
        let valid = outlines.filter { (try? Self.checkFeedURL($0.url)) != nil }
        // Past the quota, outlines are refused without a lookup: a 5 MiB file names 50,000 hosts.
        let (checked, overQuota) = try await withinQuota(valid, for: account)
        let refusedByRule = try await admissions(checked.map(\.url), for: account)
        let admitted = checked.filter { refusedByRule[$0.url] == nil }
        let subscribed = try await subscribe(admitted.map(\.newFeed), for: account)
        if subscribed.added > 0 { scheduler.wakeEveryone() }
        let refused = checked.compactMap { outline in refusedByRule[outline.url].map { RefusedFeed(url: outline.url, reason: $0) } }
            + (overQuota.map(\.url) + subscribed.overQuota).map { RefusedFeed(url: $0, reason: quotaRefusal()) }
        return ImportSummary(added: subscribed.added, skipped: admitted.count - subscribed.added - subscribed.overQuota.count,
                             invalid: outlines.count - valid.count, refused: refused)
    }

    /// `outlines` split into those a regular account has room for under `max-subscriptions` (the URLs
    /// it follows already among them, which take no room) and the rest.
    private func withinQuota(_ outlines: [OPMLFeed], for account: AccountIdentity) async throws(AggregatorError)
        -> (within: [OPMLFeed], over: [OPMLFeed]) {
        guard let limit = quotaSettings.withLock({ $0.subscriptions }), try await !isAdmin(account) else { return (outlines, []) }
        let followed = Set(try await read { try $0.feeds(account: account.id) }.map(\.url))
        var room = limit - followed.count
        var seen: Set<String> = []
        var (within, over): ([OPMLFeed], [OPMLFeed]) = ([], [])
        for outline in outlines {
            if followed.contains(outline.url) || seen.contains(outline.url) {
                within.append(outline)  // takes no room
            } else if room > 0 {
                room -= 1
                seen.insert(outline.url)
                within.append(outline)
            } else {
                over.append(outline)
            }
        }
        return (within, over)
    }

    /// Refuses a regular account's import larger than `max-import-bytes`, naming the key.
    func checkImportSize(_ bytes: Int, for account: AccountIdentity) async throws(AggregatorError) {
        guard let limit = quotaSettings.withLock({ $0.importBytes }), bytes > limit, try await !isAdmin(account) else { return }
        throw .invalidArgument("the OPML file is \(bytes) bytes, over max-import-bytes = \(limit) (ask an admin)")
    }

    /// Refuses a new feed to a regular account that follows `max-subscriptions` already, before any
    /// request is made for it (`subscribe` checks again as it writes).
    private func checkRoomForAnotherFeed(for account: AccountIdentity) async throws(AggregatorError) {
        guard let limit = quotaSettings.withLock({ $0.subscriptions }), try await !isAdmin(account) else { return }
        if try await read({ try $0.subscriptionCount(account: account.id) }) >= limit { throw .invalidArgument(quotaRefusal()) }
    }

    /// Every subscription as an OPML document, by category.
    public func exportOPML(for account: AccountIdentity) async throws(AggregatorError) -> String {
        let feeds = try await read { try $0.feeds(account: account.id) }.map {
            OPMLFeed(url: $0.url, title: $0.title, siteURL: $0.siteURL, category: $0.category)
        }
        return OPMLWriter.document(title: "aggregatord subscriptions", feeds: feeds)
    }

    // MARK: - Categories

    public func categories(for account: AccountIdentity) async throws(AggregatorError) -> [CategorySummary] {
        try await read { try $0.categories(account: account.id) }
    }

    /// Renames a category; into the name of another one, the two are merged.
    public func renameCategory(_ name: String, to newName: String,
                               for account: AccountIdentity) async throws(AggregatorError) -> CategorySummary? {
        try await write(for: account.id) { try await $0.renameCategory(name, to: newName, account: account.id) }
        return try await categories(for: account).first { $0.name.caseInsensitiveCompare(newName) == .orderedSame }
    }

    // MARK: - Discovery

    /// The feeds found at `url` (a feed itself, or a page linking to feeds), without subscribing.
    public func discoverFeeds(at url: String, for account: AccountIdentity) async throws(AggregatorError) -> [DiscoveredFeed] {
        try await admit(url, for: account)
        let found: Discovery
        do {
            found = try await discover(url, for: account)
        } catch .failed(let message) {
            throw .notFound(message)  // the page was read and holds no feed
        }
        if let warning = found.warning { throw .failed(warning) }
        return found.candidates.isEmpty ? [DiscoveredFeed(url: found.url, title: found.title, type: "rss")] : found.candidates
    }

    /// The feed behind `url`: the URL itself when it serves a feed, else the first feed an HTML page
    /// links to (`<link rel="alternate">`), else the first of the usual paths that serves one. A
    /// regular account's requests obey `private-networks = admins` (docs/ARCHITECTURE.md).
    /// With `settings`, its requests are made as the private copy's fetches will be.
    private func discover(_ url: String, settings: FeedFetchSettings = FeedFetchSettings(),
                          for account: AccountIdentity) async throws(AggregatorError) -> Discovery {
        let fetcher = pipeline.fetcher
        let limits = pipeline.limits
        let refusal = try await addressRefusal(for: account)
        let credentials = settings.isDefault ? nil : settings.credentials
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(FetchRequest(url: url, limits: limits, refusingPrivateNetworks: refusal,
                                                            credentials: credentials))
        } catch {
            // An address the rule refuses is refused at once (no request was sent): subscribing would
            // only make a feed that fails at every fetch.
            if case .refusedAddress(let reason) = error {
                throw .invalidArgument("cannot subscribe to \(url): \(reason)")
            }
            // Subscribe anyway: the scheduler retries with backoff and shows the error on the feed.
            return Discovery(url: url, warning: "could not check the feed now: \(error.description)")
        }
        // With settings of its own the feed stays on the host given: its cookie and password go there only.
        let host = FetchRequest.host(of: url)
        func onHost(_ candidate: String) -> Bool { credentials == nil || FetchRequest.host(of: candidate) == host }
        if let feed = parsedFeed(response, limits: limits) {
            let moved = response.permanentRedirect.flatMap { onHost($0) ? $0 : nil }
            return Discovery(url: moved ?? url, title: feed.title, document: moved == nil ? response : nil)
        }
        let links = FeedDiscovery.alternateLinks(in: response.body, pageURL: response.finalURL).filter { onHost($0.url) }
        if let first = links.first { return Discovery(url: first.url, title: first.title, candidates: links) }
        guard onHost(response.finalURL) else {
            throw .invalidArgument("no feed on \(host) at \(url): with its own settings a feed is only looked for "
                + "on the host given, where its cookie and password are sent")
        }
        guard var origin = URLComponents(string: response.finalURL) else { throw .failed("not a feed: \(url)") }
        for path in FeedDiscovery.commonPaths {
            origin.path = path
            origin.query = nil
            guard let candidate = origin.string,
                  let answer = try? await fetcher.fetch(FetchRequest(url: candidate, limits: limits,
                                                                     refusingPrivateNetworks: refusal, credentials: credentials)),
                  let feed = parsedFeed(answer, limits: limits) else { continue }
            return Discovery(url: candidate, title: feed.title, document: answer)
        }
        throw .failed("no feed found at \(url): the page is not a feed, links to none "
            + "(<link rel=\"alternate\">), and none of \(FeedDiscovery.commonPaths.joined(separator: ", ")) serves one")
    }

    /// What discovery found at a URL: the feed's URL and title, the feeds a page linked to, a warning
    /// when it could not be checked, and the feed's document when discovery fetched it (at that URL).
    struct Discovery {
        var url: String
        var title: String?
        var candidates: [DiscoveredFeed] = []
        var warning: String?
        var document: FetchResponse?
    }

    /// Stores `document`, which discovery fetched, as the first fetch of the new feed the account's
    /// subscription `subscription` follows: parsed, judged and stored as a round would (on a shared
    /// database, once this daemon has claimed the feed). - Returns: whether it was stored.
    private func storeFirstFetch(of subscription: SubscriptionID, _ document: FetchResponse, for account: AccountIdentity) async -> Bool {
        guard let feedID = try? await write({ try await $0.feedID(ofSubscription: subscription, account: account.id) }),
              let due = try? await write({ try await $0.feedsToFetch(only: [feedID]) }), !due.isEmpty else { return false }
        // On a shared database, claimed as a round claims it (the new feed is due), with nobody woken: a
        // daemon woken now would claim it first and fetch it again.
        let summary = if let cluster {
            await pipeline.refresh(from: ClaimedFeeds(cluster: cluster, only: [feedID]), prefetched: [feedID: document])
        } else {
            await pipeline.refresh(due, prefetched: [feedID: document])
        }
        guard summary.ok == 1 else { return false }
        // Its icon, as a round's background pass would look for it (here, not in a pass that would
        // race with a route looking for it at once, as Miniflux's does).
        try? await findIconNow(of: .id(subscription), for: account)
        return true
    }

    /// The feed in a response, or nil when it holds none.
    private func parsedFeed(_ response: FetchResponse, limits: FetchLimits) -> ParsedFeed? {
        guard let feed = try? ParsedFeed(parsing: response.body, source: .init(
            documentURL: response.finalURL, contentType: response.contentType, maximumSize: limits.maximumBodyBytes)),
              feed.format != .unknown else { return nil }
        return feed
    }
}
