import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// Google Reader's lists and streams: the account, its labels and subscriptions, unread counts,
/// item ids and contents, and the Atom form of a stream.
extension GoogleReaderAPI {
    // MARK: - Lists

    func userInfo(_ request: ReaderRequest) async throws -> HTTPResponse {
        let id = JSONValue.string(request.account.id.description)
        return MinifluxJSON.response(["userId": id, "userName": .string(request.account.name), "userProfileId": id, "userEmail": ""])
    }

    func tags(_ request: ReaderRequest) async throws -> HTTPResponse {
        var tags: [JSONValue] = [["id": .string(ReaderStream.starredID)]]
        tags += try await service.categories(for: request.account).map { ["id": .string(ReaderStream.label($0.name).id), "type": "folder"] }
        return MinifluxJSON.response(["tags": .array(tags)])
    }

    func subscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        let feeds = try await service.feeds(for: request.account)
        // Absolute, as apps load it on their own (without credentials: the icon route needs none).
        let origin = (trustedProxies.isHTTPS(request.http) ? "https://" : "http://") + (request.http.headers["host"] ?? "localhost")
        return MinifluxJSON.response(["subscriptions": .array(feeds.map { feed in
            ["id": .string(ReaderStream.feed(feed.id.rawValue).id), "title": .string(feed.title ?? feed.url), "url": .string(feed.url),
             "htmlUrl": .string(feed.siteURL ?? feed.url),
             "iconUrl": .string(feed.icon.map { origin + FeedIcons.path($0.digest, basePath: basePath) } ?? ""),
             "categories": .array(feed.category.map { [["id": .string(ReaderStream.label($0).id), "label": .string($0)]] } ?? [])]
        })])
    }

    /// Unread counts per feed, label and in all, each with the time its newest item was stored (some
    /// apps read a stream again only when that moved: the last fetch's time, or now, made them read
    /// everything at every sync).
    func unreadCounts(_ request: ReaderRequest) async throws -> HTTPResponse {
        let feeds = try await service.feeds(for: request.account)
        var counts: [JSONValue] = feeds.map { feed in
            ["id": .string(ReaderStream.feed(feed.id.rawValue).id), "count": .from(feed.unread),
             "newestItemTimestampUsec": .string(Self.microseconds(feed.newestEntryAt))]
        }
        var newestByCategory: [Int64: Date] = [:]
        for feed in feeds {
            guard let category = feed.categoryID, let newest = feed.newestEntryAt else { continue }
            newestByCategory[category] = max(newestByCategory[category] ?? newest, newest)
        }
        counts += try await service.categories(for: request.account).map { category in
            ["id": .string(ReaderStream.label(category.name).id), "count": .from(category.unread),
             "newestItemTimestampUsec": .string(Self.microseconds(newestByCategory[category.id]))]
        }
        let unread = try await service.status(for: request.account).totals.unread
        counts.append(["id": .string(ReaderStream.readingListID), "count": .from(unread),
                       "newestItemTimestampUsec": .string(Self.microseconds(feeds.compactMap(\.newestEntryAt).max()))])
        return MinifluxJSON.response(["max": .from(max(1000, unread)), "unreadcounts": .array(counts)])
    }

    // MARK: - Streams

    /// `{"itemRefs": [{"id": "<16-digit decimal>"}], "continuation"}` (continuation left out at the end).
    func itemIDs(_ request: ReaderRequest) async throws -> HTTPResponse {
        let (query, paging, count) = try await streamListing(request, stream: request.value("s") ?? ReaderStream.readingListID,
                                                             maximum: 10_000)
        let ids = try await service.entryIDs(query, paging, for: request.account)
        var answer: [String: JSONValue] = ["itemRefs": .array(ids.prefix(count).map { ["id": .string(ReaderItemID.short($0.rawValue))] })]
        if ids.count > count, let last = ids.prefix(count).last { answer["continuation"] = .string(last.description) }
        return MinifluxJSON.response(.object(answer))
    }

    /// The items of many `i` (every form of id), in one answer.
    func contents(_ request: ReaderRequest) async throws -> HTTPResponse {
        let wanted = request.values("i")
        guard wanted.count <= 10_000 else { throw ReaderError("at most 10000 items a request") }
        let ids = try wanted.map { text in
            guard let id = ReaderItemID.parse(text) else { throw ReaderError("not an item id: \(text)") }
            return id
        }
        // A query per page of the service's size (1,000); ids that are not ours are left out.
        var entries: [ListedEntry] = []
        for first in stride(from: 0, to: ids.count, by: AggregatorService.maximumPageSize) {
            var query = ArticleQuery()
            query.ids = ids[first..<min(first + AggregatorService.maximumPageSize, ids.count)].map { EntryID($0) }
            let paging = EntryPaging(order: .id, ascending: false, limit: AggregatorService.maximumPageSize)
            entries += try await service.entries(query, paging, for: request.account).entries
        }
        return MinifluxJSON.response(["id": .string(ReaderStream.readingListID), "updated": .from(Int64(Date().timeIntervalSince1970)),
                                      "items": .array(try await items(entries, request))])
    }

    func streamContents(_ request: ReaderRequest, stream: String) async throws -> HTTPResponse {
        let (entries, continuation) = try await streamPage(request, stream: stream)
        var answer: [String: JSONValue] = [
            "id": .string(stream), "updated": .from(Int64(Date().timeIntervalSince1970)),
            "items": .array(try await items(entries, request)),
        ]
        if let continuation { answer["continuation"] = .string(continuation) }
        return MinifluxJSON.response(.object(answer))
    }

    /// A page of a stream's entries (`n` of them, at most 10,000: Vienna asks for 10,000 and Readrops
    /// for 2,500 and neither follows a continuation), read from the store 1,000 at a time, and the
    /// continuation when more remain.
    func streamPage(_ request: ReaderRequest, stream: String) async throws -> ([ListedEntry], continuation: String?) {
        var (query, paging, count) = try await streamListing(request, stream: stream, maximum: 10_000)
        var entries: [ListedEntry] = []
        while entries.count <= count {
            paging.limit = min(AggregatorService.maximumPageSize, count + 1 - entries.count)
            let batch = try await service.entries(query, paging, for: request.account).entries
            entries += batch
            guard batch.count == paging.limit, let last = batch.last?.article.id else { break }
            if paging.ascending { query.afterID = last } else { query.beforeID = last }
        }
        let page = Array(entries.prefix(count))
        return (page, entries.count > count ? page.last.map { $0.article.id.description } : nil)
    }

    /// The listing a stream and its parameters select: `n`, `r=o`, `c`, `xt`, `it`, `ot`, `nt`; its
    /// limit is one more than the page, which tells whether a continuation is needed.
    func streamListing(_ request: ReaderRequest, stream text: String, maximum: Int) async throws
        -> (ArticleQuery, EntryPaging, Int) {
        guard let stream = ReaderStream(text) else { throw AggregatorError.notFound("unknown stream: \(text)") }
        var listing = try await query(for: stream, request)
        let count = min(maximum, max(1, Int(request.value("n") ?? "") ?? 20))
        let paging = EntryPaging(order: .id, ascending: request.value("r") == "o", limit: count + 1)
        for exclude in request.values("xt") {
            switch ReaderStream(exclude) {
            case .read?: listing.read = false
            case .starred?: listing.starred = false
            case .keptUnread?, .unread?: listing.read = true
            default: break
            }
        }
        for include in request.values("it") {
            switch ReaderStream(include) {
            case .read?: listing.read = true
            case .starred?: listing.starred = true
            case .keptUnread?, .unread?: listing.read = false
            default: break
            }
        }
        if let older = request.value("ot").flatMap(Double.init), older > 0 {
            listing.createdAfter = Date(timeIntervalSince1970: older - 1)
        }
        if let newer = request.value("nt").flatMap(Double.init), newer > 0 {
            listing.createdBefore = Date(timeIntervalSince1970: newer)
        }
        if let continuation = request.value("c"), !continuation.isEmpty {
            guard let last = Int64(continuation) else { throw ReaderError("not a continuation: \(continuation)") }
            if paging.ascending { listing.afterID = EntryID(last) } else { listing.beforeID = EntryID(last) }
        }
        return (listing, paging, count)
    }

    func query(for stream: ReaderStream, _ request: ReaderRequest) async throws -> ArticleQuery {
        var listing = ArticleQuery()
        switch stream {
        case .readingList: break
        case .read: listing.read = true
        case .starred: listing.starred = true
        case .keptUnread, .unread: listing.read = false
        case .label(let name):
            // A label that does not exist (deleted on another device) is an empty stream, as FreshRSS
            // answers: clients take any error for a failed sync.
            listing.category = name
        case .feed(let id): listing.feed = .id(try await service.feed(.id(SubscriptionID(id)), for: request.account).id)
        case .feedURL(let url): listing.feed = .id(try await service.feed(.url(url), for: request.account).id)
        }
        return listing
    }

    // MARK: - Atom

    /// A stream as an Atom document, as older clients read it (newsboat's feedhq mode): read items
    /// carry `<category scheme="http://www.google.com/reader/" label="read" …/>`.
    func atom(_ request: ReaderRequest, stream: String) async throws -> HTTPResponse {
        let (entries, continuation) = try await streamPage(request, stream: stream)
        var title = stream
        if case .feed(let id)? = ReaderStream(stream) { title = try await service.feed(.id(SubscriptionID(id)), for: request.account).title ?? stream }
        var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
        xml += #"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:gr="http://www.google.com/schemas/reader/atom/">"#
        xml += "<id>tag:google.com,2005:reader/\(XMLText.escaped(stream))</id><title>\(XMLText.escaped(title))</title>"
        xml += "<updated>\(rfc3339(secondsSinceEpoch: Int64(Date().timeIntervalSince1970)))</updated>"
        if let continuation { xml += "<gr:continuation>\(continuation)</gr:continuation>" }
        for entry in entries {
            let article = entry.article
            let published = rfc3339(secondsSinceEpoch: Int64((article.published ?? entry.createdAt).timeIntervalSince1970))
            xml += "<entry><id>\(ReaderItemID.long(article.id.rawValue))</id><title type=\"html\">\(XMLText.escaped(article.title ?? ""))</title>"
            xml += "<published>\(published)</published><updated>\(published)</updated>"
            if let url = article.url { xml += "<link rel=\"alternate\" href=\"\(XMLText.escaped(url))\" type=\"text/html\"/>" }
            if let author = article.author { xml += "<author><name>\(XMLText.escaped(author))</name></author>" }
            for (flag, state) in [(article.isRead, "read"), (article.isStarred, "starred")] where flag {
                xml += "<category term=\"user/-/state/com.google/\(state)\" scheme=\"http://www.google.com/reader/\" label=\"\(state)\"/>"
            }
            let content = HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url)
            xml += "<content type=\"html\">\(XMLText.escaped(content))</content></entry>"
        }
        xml += "</feed>\n"
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/atom+xml; charset=utf-8")], body: Data(xml.utf8))
    }

    // MARK: - Shapes

    static func microseconds(_ date: Date?) -> String {
        String(Int64(((date ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// The items of a page, each with its feed's site (else its URL, as `subscription/list` has it) as
    /// `origin.htmlUrl` (ReadYou links an article there when it has no URL of its own): only the
    /// page's feeds are read.
    func items(_ entries: [ListedEntry], _ request: ReaderRequest) async throws -> [JSONValue] {
        let feeds = try await service.feeds(ids: Set(entries.compactMap(\.article.feedID)), for: request.account)
        let sites = Dictionary(feeds.map { ($0.id, $0.siteURL ?? $0.url) }, uniquingKeysWith: { first, _ in first })
        return entries.map { Self.item($0, site: $0.article.feedID.flatMap { sites[$0] } ?? "") }
    }

    static func item(_ entry: ListedEntry, site: String = "") -> JSONValue {
        let article = entry.article
        var categories: [JSONValue] = [.string(ReaderStream.readingListID)]
        if let category = article.category { categories.append(.string(ReaderStream.label(category).id)) }
        if article.isRead { categories.append(.string(ReaderStream.readID)) }
        if article.isStarred { categories.append(.string(ReaderStream.starredID)) }
        // Always one link: Fluent Reader reads canonical[0].href unchecked (a missing one aborts its batch).
        let link: JSONValue = [["href": .string(article.url ?? ""), "type": "text/html"]]
        let crawled = entry.createdAt.timeIntervalSince1970
        return [
            "id": .string(ReaderItemID.long(article.id.rawValue)), "crawlTimeMsec": .string(String(Int64(crawled * 1000))),
            "timestampUsec": .string(String(Int64(crawled * 1_000_000))),
            "published": .from(Int64((article.published ?? entry.createdAt).timeIntervalSince1970)),
            "updated": .from(Int64((article.updated ?? article.published ?? entry.createdAt).timeIntervalSince1970)),
            "title": .string(article.title ?? ""), "author": .string(article.author ?? ""),
            "canonical": link, "alternate": link, "categories": .array(categories),
            "origin": ["streamId": .string(ReaderStream.feed(article.feedID?.rawValue ?? 0).id), "title": .string(article.feedTitle ?? ""),
                       "htmlUrl": .string(site)],
            "summary": ["direction": "ltr",
                        "content": .string(HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url))],
            // Podcasts and images, as FreshRSS and Miniflux write them (RSS Guard and Vienna read `href`).
            "enclosure": .array(article.enclosures.map { enclosure in
                var object: [String: JSONValue] = ["href": .string(enclosure.url)]
                if let type = enclosure.type { object["type"] = .string(type) }
                if let length = enclosure.length { object["length"] = .string(String(length)) }
                return .object(object)
            }),
        ]
    }
}
