import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

extension MinifluxAPI {
    // MARK: - Feeds

    func feeds(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(.array(try await service.feeds(for: request.account).map { MinifluxJSON.feed($0, user: request.account.id) }))
    }

    func feed(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(MinifluxJSON.feed(try await service.feed(.id(SubscriptionID(try request.id("feedID"))), for: request.account), user: request.account.id))
    }

    /// `{"feed_url", "category_id"}`: subscribes (finding the feed behind a page, as `aggregatorctl add`)
    /// and answers once the first fetch is stored, so the new feed lists its entries at once (as
    /// Miniflux does). A `category_id` of 0 or none files it in the first category by name, as
    /// Miniflux does for clients without categories (its Go client always sends 0).
    func createFeed(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let body = try request.jsonObject()
        guard let url = body["feed_url"]?.string, !url.isEmpty else { throw MinifluxError("feed_url is required") }
        let category: String?
        if let value = body["category_id"], !value.isNull, value.int != 0 {
            category = try await categoryName(value, request)
        } else {
            category = try await service.categories(for: request.account).map(\.name)
                .min { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending }
        }
        let (disabled, hideGlobally) = (try Self.flag("disabled", body), try Self.flag("hide_globally", body))
        let scraperRules = try Self.text("scraper_rules", body)
        let (blocklist, keeplist) = (try Self.text("blocklist_rules", body), try Self.text("keeplist_rules", body))
        try Self.refuseSettingsNotKept(body)
        try AggregatorService.checkFeedSettings(scraperRules: scraperRules, blocklist: blocklist, keeplist: keeplist)
        let fetchSettings = FeedFetchSettings().applying(try Self.fetchSettingsChange(body))
        let crawler = try Self.flag("crawler", body)
        let added = try await service.addFeed(url: url, category: category, fetchSettings: fetchSettings, for: request.account)
        if crawler == true {  // before the first fetch: its entries are the first crawled
            var changes = FeedChanges()
            changes.crawler = true
            _ = try await service.updateFeed(.id(added.feed.id), changes, for: request.account)
        }
        // Fetched now, unless another account's fetches stored it (docs/ARCHITECTURE.md, "Fetch once"). A
        // failed first fetch does not undo the subscription: the feed shows its error and is retried.
        if !added.wasFetched { _ = try? await service.refresh([.id(added.feed.id)], wait: true, for: request.account) }
        // Its icon too, as Miniflux has it when it answers (apps show it at once): no request when it
        // was looked for lately (a stored feed's, as a rule).
        try? await service.findIconNow(of: .id(added.feed.id), for: request.account)
        if disabled == true || hideGlobally == true || [scraperRules, blocklist, keeplist].contains(where: { $0?.isEmpty == false }) {
            var changes = FeedChanges()
            (changes.disabled, changes.hideGlobally) = (disabled, hideGlobally)
            (changes.scraperRules, changes.blocklist, changes.keeplist) = (scraperRules, blocklist, keeplist)
            _ = try await service.updateFeed(.id(added.feed.id), changes, for: request.account)
        }
        return MinifluxJSON.response(["feed_id": .from(added.feed.id)], status: 201)
    }

    /// Miniflux's feed modification: `title`, `category_id`, `feed_url` (another feed subscribed there is
    /// a 400), `site_url`, `disabled`, `hide_globally`, `scraper_rules`, `blocklist_rules` and `keeplist_rules`
    /// are applied. Miniflux's other fields are feed settings we do not
    /// have yet: the value we already have (the default) is accepted, any other is a 400 naming the
    /// field, never silently ignored. Fields Miniflux does not take (`id`, `checked_at`, …) are ignored.
    func updateFeed(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("feedID")
        _ = try await service.feed(.id(SubscriptionID(id)), for: request.account)  // another account's feed: 404 before the body
        let body = try request.jsonObject()
        var changes = FeedChanges(title: try Self.text("title", body))
        changes.url = try Self.text("feed_url", body)
        if let url = changes.url, url.isEmpty { throw MinifluxError("feed_url must not be empty") }
        changes.siteURL = try Self.text("site_url", body)
        (changes.disabled, changes.hideGlobally) = (try Self.flag("disabled", body), try Self.flag("hide_globally", body))
        changes.scraperRules = try Self.text("scraper_rules", body)
        (changes.blocklist, changes.keeplist) = (try Self.text("blocklist_rules", body), try Self.text("keeplist_rules", body))
        if let value = body["category_id"], !value.isNull {
            changes.category = try await self.categoryName(value, request) ?? ""  // "": filed under no category
        }
        try Self.refuseSettingsNotKept(body)
        changes.fetchSettings = try Self.fetchSettingsChange(body)
        changes.crawler = try Self.flag("crawler", body)
        let feed = changes.isEmpty
            ? try await service.feed(.id(SubscriptionID(id)), for: request.account)
            : try await service.updateFeed(.id(SubscriptionID(id)), changes, for: request.account)
        return MinifluxJSON.response(MinifluxJSON.feed(feed, user: request.account.id), status: 201)
    }

    /// The fetch settings a body changes (docs/ARCHITECTURE.md). `user_agent` and `username`: absent or null leaves
    /// them, "" clears. The secrets `password` and `cookie` are write-only (answered as ""): absent or ""
    /// leaves them, null clears them, so an app that sends back the feed it got changes nothing.
    static func fetchSettingsChange(_ body: [String: JSONValue]) throws(MinifluxError) -> FetchSettingsChange {
        func secret(_ name: String) throws(MinifluxError) -> String? {
            guard let value = body[name] else { return nil }
            if value.isNull { return "" }
            guard let text = value.string else { throw MinifluxError("\(name) must be a string") }
            return text.isEmpty ? nil : text
        }
        return FetchSettingsChange(userAgent: try text("user_agent", body), cookie: try secret("cookie"),
                                   username: try text("username", body), password: try secret("password"),
                                   ignoresHTTPCache: try flag("ignore_http_cache", body),
                                   allowsSelfSignedCertificates: try flag("allow_self_signed_certificates", body))
    }

    /// A text field of the body, nil when absent or null.
    private static func text(_ name: String, _ body: [String: JSONValue]) throws(MinifluxError) -> String? {
        guard let value = body[name], !value.isNull else { return nil }
        guard let text = value.string else { throw MinifluxError("\(name) must be a string") }
        return text
    }

    /// A boolean field of the body, nil when absent or null.
    private static func flag(_ name: String, _ body: [String: JSONValue]) throws(MinifluxError) -> Bool? {
        guard let value = body[name], !value.isNull else { return nil }
        guard let flag = value.bool else { throw MinifluxError("\(name) must be true or false") }
        return flag
    }

    /// A 400 naming the first of Miniflux's feed settings we do not keep yet that asks for anything but
    /// the default: never silently ignored, at creation or change.
    private static func refuseSettingsNotKept(_ body: [String: JSONValue]) throws(MinifluxError) {
        for (name, value) in body.sorted(by: { $0.key < $1.key }) where keptLaterFeedFields.contains(name) {
            guard isDefaultFeedSetting(value) else {
                throw MinifluxError("\(name) cannot be set here yet (title, category_id, feed_url, site_url, disabled, "
                    + "hide_globally, scraper_rules, blocklist_rules, keeplist_rules, user_agent, cookie, username, "
                    + "password, ignore_http_cache, allow_self_signed_certificates and crawler are kept)")
            }
        }
    }

    /// Miniflux's feed settings we do not keep yet (its `FeedModificationRequest`). Other fields are
    /// ignored, as Go's JSON decoding ignores them: an app may send back the whole feed object it got.
    static let keptLaterFeedFields: Set<String> = [
        "description", "rewrite_rules", "urlrewrite_rules",
        "block_filter_entry_rules", "keep_filter_entry_rules", "ignore_entry_updates",
        "no_media_player", "fetch_via_proxy", "disable_http2", "proxy_url",
    ]

    /// Whether a setting we keep none of holds what we answer for it: null, "", false or 0.
    static func isDefaultFeedSetting(_ value: JSONValue) -> Bool {
        value.isNull || value.string == "" || value.bool == false || value.int == 0
    }

    func deleteFeed(_ request: MinifluxRequest) async throws -> HTTPResponse {
        _ = try await service.removeFeed(.id(SubscriptionID(try request.id("feedID"))), for: request.account)
        return MinifluxJSON.noContent
    }

    /// 204, or 429 with Retry-After when the account asked for this feed too often (docs/SECURITY.md).
    func refreshFeed(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let feed = try await service.feed(.id(SubscriptionID(try request.id("feedID"))), for: request.account)
        _ = try await service.refreshOnDemand([feed.id], for: request.account)
        return MinifluxJSON.noContent
    }

    /// 204; feeds asked for too often are left out.
    func refreshAll(_ request: MinifluxRequest) async throws -> HTTPResponse {
        // The account's feeds (nil would be the whole server's, which the control socket may ask).
        let feeds = try await service.feeds(for: request.account)
        _ = try await service.refreshOnDemand(feeds.map(\.id), skippingLimited: true, for: request.account)
        return MinifluxJSON.noContent
    }

    /// We keep no icons yet: a 404 as Miniflux answers for a feed without one.
    func feedIcon(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(MinifluxJSON.icon(try await service.icon(ofFeed: .id(SubscriptionID(try request.id("feedID"))), for: request.account)))
    }

    func icon(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(MinifluxJSON.icon(try await service.icon(id: try request.id("iconID"), for: request.account)))
    }

    func markFeedRead(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("feedID")
        _ = try await service.mark(.matching(ArticleQuery(feed: .id(try await service.feed(.id(SubscriptionID(id)), for: request.account).id))), read: true, starred: nil, for: request.account)
        return MinifluxJSON.noContent
    }

    func feedEntries(_ request: MinifluxRequest) async throws -> HTTPResponse {
        try await listEntries(request, feed: try request.id("feedID"))
    }

    func feedEntry(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let feed = try await service.feed(.id(SubscriptionID(try request.id("feedID"))), for: request.account)
        let entry = try await shownEntry(request)
        // A cross-posted entry is listed under each feed that carries it.
        var query = ArticleQuery(feed: .id(feed.id))
        let id = entry.article.id.rawValue
        (query.afterID, query.beforeID) = (EntryID(id - 1), EntryID(id + 1))
        guard try await service.entryIDs(query, for: request.account) == [entry.article.id] else {
            throw AggregatorError.notFound("no entry \(entry.article.id) in feed \(feed.id)")
        }
        return MinifluxJSON.response(MinifluxJSON.entry(entry, feed: feed, user: request.account.id))
    }

    /// Read and unread entries per feed.
    func counters(_ request: MinifluxRequest) async throws -> HTTPResponse {
        var reads: [String: JSONValue] = [:]
        var unreads: [String: JSONValue] = [:]
        for feed in try await service.feedCounters(for: request.account) {
            reads[feed.id.description] = .from(feed.total - feed.unread)
            unreads[feed.id.description] = .from(feed.unread)
        }
        return MinifluxJSON.response(["reads": .object(reads), "unreads": .object(unreads)])
    }

    // MARK: - OPML and discovery

    func export(_ request: MinifluxRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "text/xml; charset=utf-8")],
                     body: Data(try await service.exportOPML(for: request.account).utf8))
    }

    /// Miniflux's answer (201, `message`), with each outline refused to the account named in
    /// `error_message` and listed in `refused`; 400 when all it would have added were refused.
    func importOPML(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let summary = try await service.importOPML(request.http.body, for: request.account)
        var answer: [String: JSONValue] = ["message": .string("Feeds imported successfully (\(summary.added) added, "
            + "\(summary.skipped) already subscribed, \(summary.invalid) not http(s), \(summary.refused.count) refused)")]
        guard !summary.refused.isEmpty else { return MinifluxJSON.response(.object(answer), status: 201) }
        answer["error_message"] = .string("\(summary.refused.count) feeds refused: "
            + summary.refused.map(\.reason).joined(separator: "; "))
        answer["refused"] = .array(summary.refused.map { ["url": .string($0.url), "reason": .string($0.reason)] })
        return MinifluxJSON.response(.object(answer), status: summary.added == 0 && summary.skipped == 0 ? 400 : 201)
    }

    /// `{"url"}`: the feeds found there, without subscribing.
    func discover(_ request: MinifluxRequest) async throws -> HTTPResponse {
        guard let url = try request.jsonObject()["url"]?.string, !url.isEmpty else { throw MinifluxError("url is required") }
        // Nothing found there is `notFound`: a 404, as in Miniflux.
        let found = try await service.discoverFeeds(at: url, for: request.account)
        return MinifluxJSON.response(.array(found.map { ["url": .string($0.url), "title": .string($0.title ?? $0.url),
                                                         "type": .string($0.type)] }))
    }

    // MARK: - API keys (our API tokens)

    func apiKeys(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(.array(try await service.tokens(for: request.account).map { MinifluxJSON.token($0) }))
    }

    func createAPIKey(_ request: MinifluxRequest) async throws -> HTTPResponse {
        guard let description = try request.jsonObject()["description"]?.string, !description.isEmpty else {
            throw MinifluxError("description is required")
        }
        do {
            let made = try await service.createToken(for: request.account, label: description)
            return MinifluxJSON.response(MinifluxJSON.token(made.token, secret: made.secret), status: 201)
        } catch .alreadySubscribed(let message) {
            throw MinifluxError(message)
        }
    }

    func deleteAPIKey(_ request: MinifluxRequest) async throws -> HTTPResponse {
        _ = try await service.revokeToken(String(try request.id("apiKeyID")), for: request.account)
        return MinifluxJSON.noContent
    }

    // MARK: - Helpers

    /// The name of the category a request's `category_id` names (nil: the uncategorized one, or none given).
    func categoryName(_ value: JSONValue?, _ request: MinifluxRequest) async throws -> String? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.int, number > 0 else { throw MinifluxError("category_id must be a positive integer") }
        guard Int64(number) != MinifluxJSON.uncategorizedID else { return nil }
        do {
            return try await service.category(id: Int64(number), for: request.account).name
        } catch .notFound {
            throw MinifluxError("invalid category_id: no category \(number)")  // Miniflux: 400, not 404
        }
    }
}
