import ControlProtocol
import FeedFetcher
import FeedParser
import FeedStore
import Foundation

/// Answers the JSON-RPC methods of DESIGN.md §6 from the store and the scheduler. Store and
/// usage errors become JSON-RPC errors here, in one place.
public struct ControlHandler: Sendable {
    let store: FeedStore
    let scheduler: Scheduler
    let pipeline: RefreshPipeline
    let databasePath: String
    let started: Date
    private let readers: StoreReaderPool

    public init(store: FeedStore, scheduler: Scheduler, pipeline: RefreshPipeline, databasePath: String, started: Date = Date()) {
        self.store = store
        self.scheduler = scheduler
        self.pipeline = pipeline
        self.databasePath = databasePath
        self.started = started
        readers = StoreReaderPool(path: databasePath)
    }

    public func handle(_ request: JSONRPCRequest, notifier: ControlNotifier) async -> Result<JSONValue, JSONRPCError> {
        do {
            let params = Parameters(request.params)
            switch request.method {
            case "status": return .success(try await status())
            case "feeds.list": return .success(["feeds": .array(try read { try $0.feeds(category: params.string("category"),
                                                                             failingOnly: params.bool("failing") ?? false) }.map(Self.json))])
            case "feeds.add": return .success(try await addFeed(params))
            case "feeds.remove": return .success(try await removeFeed(params))
            case "feeds.update": return .success(try await updateFeed(params))
            case "categories.rename": return .success(try await renameCategory(params))
            case "feeds.import": return .success(try await importOPML(params))
            case "feeds.export": return .success(try exportOPML())
            case "categories.list": return .success(["categories": .array(try read { try $0.categories() }.map(Self.json))])
            case "articles.list": return .success(try await articles(params))
            case "articles.get": return .success(try article(params))
            case "articles.mark": return .success(try await mark(params))
            case "refresh": return .success(try await refresh(params, notifier: notifier))
            case "events.subscribe": return .success(try await subscribe(params, notifier: notifier))
            case "backup":
                guard let path = params.string("path"), path.hasPrefix("/") else {
                    throw JSONRPCError.invalidParams("\"path\" must be an absolute file path")
                }
                try await store.backup(to: path)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
                return .success(["path": .string(path), "bytes": .from(size)])
            default: return .failure(.methodNotFound(request.method))
            }
        } catch let error as JSONRPCError {
            return .failure(error)
        } catch let error as StoreError {
            return .failure(error.kind == .invalidQuery || error.kind == .notFound || error.kind == .cannotOpen
                                ? .failed(error.description)
                                                                                   : .internalError(error.description))
        } catch {
            return .failure(.internalError(String(describing: error)))
        }
    }

    /// Runs `body` with a read connection of the pool.
    private func read<T>(_ body: (StoreReader) throws -> T) throws -> T {
        try readers.withReader(body)
    }

    // MARK: - Methods

    private func status() async throws -> JSONValue {
        let totals = try read { try $0.totals() }
        let size = (try? FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? Int) ?? nil
        var lastRound: JSONValue = .null
        if let round = await scheduler.lastRound {
            lastRound = ["finished": .string(Self.timestamp(round.finished)), "seconds": .number(round.summary.seconds),
                         "feeds": .from(round.summary.feeds), "ok": .from(round.summary.ok),
                         "not_modified": .from(round.summary.notModified), "failed": .from(round.summary.failed),
                         "new_entries": .from(round.summary.newEntries)]
        }
        return [
            "version": .string(AggregatorVersion.current),
            "uptime_s": .number(Date().timeIntervalSince(started).rounded()),
            "database": .string(databasePath),
            "database_bytes": .from(size),
            "feeds": ["ok": .from(totals.feedsByStatus["ok", default: 0]),
                      "failing": .from(totals.feedsByStatus["failing", default: 0]),
                      "disabled": .from(totals.feedsByStatus["disabled", default: 0])],
            "entries": .from(totals.entries),
            "unread": .from(totals.unread),
            "last_round": lastRound,
            "next_due": .from(await scheduler.nextDue.map(Self.timestamp)),
        ]
    }

    private func addFeed(_ params: Parameters) async throws -> JSONValue {
        guard let url = params.string("url") else { throw JSONRPCError.invalidParams("\"url\" is required") }
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false else {
            throw JSONRPCError.failed("not an http(s) URL: \(url) (feeds are fetched over HTTP or HTTPS only)")
        }
        let found = try await discover(url)
        guard try await store.feedID(url: found.url) == nil else { throw JSONRPCError.failed("already subscribed to \(found.url)") }
        try await store.addFeeds([.init(url: found.url, title: params.string("title") ?? found.title,
                                        category: params.string("category"))])
        scheduler.wake()
        let id = try await store.feedID(url: found.url)
        let feed = try id.flatMap { id in try read { try $0.feeds(id: id).first } }
        return ["feed": feed.map(Self.json) ?? .null, "warning": .from(found.warning),
                "candidates": .array(found.candidates.map { ["url": .string($0.url), "title": .from($0.title), "type": .string($0.type)] })]
    }

    /// The feed behind `url`: the URL itself when it serves a feed, else the first feed an HTML page
    /// links to (`<link rel="alternate">`), else the first of the usual paths that serves one.
    private func discover(_ url: String) async throws -> (url: String, title: String?, candidates: [DiscoveredFeed], warning: String?) {
        let fetcher = pipeline.fetcher
        let limits = pipeline.limits
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(FetchRequest(url: url, limits: limits))
        } catch {
            // Subscribe anyway: the scheduler retries with backoff and shows the error on the feed.
            return (url, nil, [], "could not check the feed now: \(error.description)")
        }
        if let feed = try? ParsedFeed(parsing: response.body, source: .init(
               documentURL: response.finalURL, contentType: response.contentType, maximumSize: limits.maximumBodyBytes)),
           feed.format != .unknown {
            return (response.permanentRedirect ?? url, feed.title, [], nil)
        }
        let links = FeedDiscovery.alternateLinks(in: response.body, pageURL: response.finalURL)
        if let first = links.first { return (first.url, first.title, links, nil) }
        guard var origin = URLComponents(string: response.finalURL) else { throw JSONRPCError.failed("not a feed: \(url)") }
        for path in FeedDiscovery.commonPaths {
            origin.path = path
            origin.query = nil
            guard let candidate = origin.string,
                  let answer = try? await fetcher.fetch(FetchRequest(url: candidate, limits: limits)),
                  let feed = try? ParsedFeed(parsing: answer.body, source: .init(
                      documentURL: answer.finalURL, contentType: answer.contentType, maximumSize: limits.maximumBodyBytes)),
                  feed.format != .unknown else { continue }
            return (candidate, feed.title, [], nil)
        }
        throw JSONRPCError.failed("no feed found at \(url): the page is not a feed, links to none "
            + "(<link rel=\"alternate\">), and none of \(FeedDiscovery.commonPaths.joined(separator: ", ")) serves one")
    }

    private func removeFeed(_ params: Parameters) async throws -> JSONValue {
        let id = try await feedID(params.value("feed"))
        try await store.removeFeed(id: id)
        return ["removed": .from(id)]
    }

    /// Renames a feed (`title`) and/or files it under another category (`category`, "" for none).
    private func updateFeed(_ params: Parameters) async throws -> JSONValue {
        let id = try await feedID(params.value("feed"))
        let title = params.value("title")?.string
        let category = params.value("category")?.string
        guard title != nil || category != nil else { throw JSONRPCError.invalidParams("give \"title\" and/or \"category\"") }
        try await store.updateFeed(id: id, title: title, category: category)
        return ["feed": try read { try $0.feeds(id: id).first }.map(Self.json) ?? .null]
    }

    /// Renames a category; into the name of another one, the two are merged.
    private func renameCategory(_ params: Parameters) async throws -> JSONValue {
        guard let name = params.string("name"), let newName = params.string("new_name") else {
            throw JSONRPCError.invalidParams("\"name\" and \"new_name\" are required")
        }
        try await store.renameCategory(name, to: newName)
        let category = try read { try $0.categories() }.first { $0.name.caseInsensitiveCompare(newName) == .orderedSame }
        return ["category": category.map(Self.json) ?? .null]
    }

    /// A feed named by id or URL.
    private func feedID(_ value: JSONValue?) async throws -> Int64 {
        if let number = value?.int { return Int64(number) }
        if let text = value?.string {
            if let number = Int64(text) { return number }
            if let id = try await store.feedID(url: text) { return id }
            throw JSONRPCError.failed("no feed with URL \(text)")
        }
        throw JSONRPCError.invalidParams("\"feed\" must be a feed id or URL")
    }

    private func importOPML(_ params: Parameters) async throws -> JSONValue {
        guard let text = params.string("opml") else { throw JSONRPCError.invalidParams("\"opml\" is required") }
        let outlines: [OPMLFeed]
        do {
            outlines = try OPMLReader.feeds(in: Data(text.utf8))
        } catch {
            throw JSONRPCError.failed(error.description)
        }
        let valid = outlines.filter { ["http", "https"].contains(URLComponents(string: $0.url)?.scheme?.lowercased() ?? "") }
        let added = try await store.addFeeds(valid.map(\.newFeed))
        scheduler.wake()
        return ["added": .from(added), "skipped": .from(valid.count - added), "invalid": .from(outlines.count - valid.count)]
    }

    private func exportOPML() throws -> JSONValue {
        let feeds = try read { try $0.feeds() }.map {
            OPMLFeed(url: $0.url, title: $0.title, siteURL: $0.siteURL, category: $0.category)
        }
        return ["opml": .string(OPMLWriter.document(title: "aggregatord subscriptions", feeds: feeds))]
    }

    private func filter(_ params: Parameters) async throws -> ArticleFilter {
        var filter = ArticleFilter(category: params.string("category"), unreadOnly: params.bool("unread") ?? false,
                                   starredOnly: params.bool("starred") ?? false, search: params.string("query"))
        if let feed = params.value("feed"), !feed.isNull { filter.feedID = try await feedID(feed) }
        if let since = params.string("since") {
            guard let date = FeedDateParser.date(from: since) else {
                throw JSONRPCError.invalidParams("\"since\" is not a date: \(since) (use e.g. 2024-06-01 or 2024-06-01T12:00:00Z)")
            }
            filter.since = date
        }
        if let before = params.string("before") {
            guard let date = FeedDateParser.date(from: before) else { throw JSONRPCError.invalidParams("\"before\" is not a date: \(before)") }
            filter.before = date
        }
        return filter
    }

    private func articles(_ params: Parameters) async throws -> JSONValue {
        let filter = try await filter(params)
        let sortName = params.string("sort") ?? (filter.search == nil ? "newest" : "relevance")
        guard let sort = ArticleSort(rawValue: sortName) else {
            throw JSONRPCError.invalidParams("\"sort\" must be newest, oldest, title or relevance")
        }
        let limit = params.int("limit") ?? 50
        guard (1...1000).contains(limit) else { throw JSONRPCError.invalidParams("\"limit\" must be 1 to 1000") }
        let page = try read { try $0.articles(filter, sort: sort, limit: limit, cursor: params.string("cursor")) }
        return ["articles": .array(page.articles.map { Self.json($0, full: false) }), "next_cursor": .from(page.nextCursor)]
    }

    private func article(_ params: Parameters) throws -> JSONValue {
        guard let id = params.int("id") else { throw JSONRPCError.invalidParams("\"id\" must be an article id") }
        guard let article = try read({ try $0.article(id: Int64(id)) }) else { throw JSONRPCError.failed("no article with id \(id)") }
        return ["article": Self.json(article, full: true)]
    }

    private func mark(_ params: Parameters) async throws -> JSONValue {
        let read = params.bool("read")
        let starred = params.bool("starred")
        guard read != nil || starred != nil else { throw JSONRPCError.invalidParams("give \"read\" and/or \"starred\"") }
        if let ids = params.value("ids")?.array {
            let numbers = ids.compactMap { $0.int.map(Int64.init) }
            guard numbers.count == ids.count else { throw JSONRPCError.invalidParams("\"ids\" must be article ids") }
            return ["changed": .from(try await store.mark(ids: numbers, read: read, starred: starred))]
        }
        guard let filterParams = params.value("filter"), filterParams.object != nil else {
            throw JSONRPCError.invalidParams("give \"ids\" or \"filter\"")
        }
        let filter = try await filter(Parameters(filterParams))
        return ["changed": .from(try await store.mark(filter, read: read, starred: starred))]
    }

    private func refresh(_ params: Parameters, notifier: ControlNotifier) async throws -> JSONValue {
        var feeds = try await store.feedsToFetch()
        var named: Set<Int64>?
        if let wanted = params.value("feeds")?.array, !wanted.isEmpty {
            var ids: Set<Int64> = []
            for value in wanted { ids.insert(try await feedID(value)) }
            feeds = feeds.filter { ids.contains($0.id) }
            named = ids
        }
        guard params.bool("wait") ?? false else {
            // Fetched by the scheduler's next round, which starts now, whether they are due or not.
            await scheduler.refreshSoon(named.map { Array($0) })
            return ["queued": .from(feeds.count)]
        }
        let urls = Dictionary(feeds.map { ($0.id, $0.url) }, uniquingKeysWith: { first, _ in first })
        let summary = await pipeline.refresh(feeds) { done, refresh in
            notifier.notify("refresh.progress", ["done": .from(done), "total": .from(feeds.count),
                                                 "feed_id": .from(refresh.feedID), "url": .from(urls[refresh.feedID]),
                                                 "ok": .bool(refresh.isSuccess)])
        }
        return ["feeds": .from(summary.feeds), "ok": .from(summary.ok), "not_modified": .from(summary.notModified),
                "failed": .from(summary.failed), "new_entries": .from(summary.newEntries), "seconds": .number(summary.seconds)]
    }

    /// Sends an `entry.new` notification for each entry stored from now on that matches the filter,
    /// until the client goes away or the daemon stops. Polls the store once a second: cheap (one
    /// indexed query) and independent of which code path stored the entry.
    private func subscribe(_ params: Parameters, notifier: ControlNotifier) async throws -> JSONValue {
        var filter = try await filter(params)
        var lastID = try read { try $0.newestEntryID() }
        var sent = 0
        while notifier.isConnected && !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            filter.storedAfterID = lastID
            let page = try read { try $0.articles(filter, sort: .oldest, limit: 1000) }
            for article in page.articles.sorted(by: { $0.id < $1.id }) {
                notifier.notify("entry.new", Self.json(article, full: false))
                lastID = max(lastID, article.id)
                sent += 1
            }
            // Entries stored but filtered out still move the starting point on.
            lastID = max(lastID, try read { try $0.newestEntryID() })
        }
        return ["sent": .from(sent)]
    }

    // MARK: - JSON shapes (snake_case keys, RFC 3339 dates, null for absent values)

    static func timestamp(_ date: Date) -> String {
        rfc3339(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    static func json(_ category: CategorySummary) -> JSONValue {
        ["name": .string(category.name), "feeds": .from(category.feeds), "unread": .from(category.unread),
         "total": .from(category.total)]
    }

    static func json(_ feed: FeedSummary) -> JSONValue {
        ["id": .from(feed.id), "url": .string(feed.url), "title": .from(feed.title), "site_url": .from(feed.siteURL),
         "category": .from(feed.category), "status": .string(feed.status), "last_error": .from(feed.lastError),
         "error_count": .from(feed.errorCount), "unread": .from(feed.unread), "total": .from(feed.total),
         "checked_at": .from(feed.checkedAt.map(timestamp)), "next_check_at": .from(feed.nextCheckAt.map(timestamp))]
    }

    static func json(_ article: Article, full: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .from(article.id), "feed_id": .from(article.feedID), "feed_title": .from(article.feedTitle),
            "category": .from(article.category), "title": .from(article.title), "url": .from(article.url),
            "author": .from(article.author), "published": .from(article.published.map(timestamp)),
            "updated": .from(article.updated.map(timestamp)), "summary": .from(article.summary),
            "image": .from(article.imageURL), "read": .bool(article.isRead), "starred": .bool(article.isStarred),
        ]
        if let snippet = article.snippet { object["snippet"] = .string(snippet) }
        if full {
            object["content"] = .from(article.content)
            object["enclosures"] = article.enclosuresJSON.flatMap { try? JSONValue(parsing: Data($0.utf8)) } ?? []
        }
        return .object(object)
    }
}

/// Typed access to a request's params.
struct Parameters {
    let values: [String: JSONValue]

    init(_ params: JSONValue) {
        values = params.object ?? [:]
    }

    func value(_ name: String) -> JSONValue? {
        guard let value = values[name], !value.isNull else { return nil }
        return value
    }

    func string(_ name: String) -> String? { value(name)?.string.flatMap { $0.isEmpty ? nil : $0 } }
    func bool(_ name: String) -> Bool? { value(name)?.bool }
    func int(_ name: String) -> Int? { value(name)?.int ?? value(name)?.string.flatMap { Int($0) } }
}
