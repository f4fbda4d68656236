import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// The Google Reader API as FreshRSS serves it, which most reader apps sync with (NetNewsWire,
/// Reeder, ReadYou, FeedMe, Fluent Reader, …): `/accounts/ClientLogin` and `/reader/api/0/…`, the
/// same under `/api/greader.php/`. Labels are our categories; item ids are our entry ids; streams
/// list in the order entries were stored (Reader's crawl time), newest first unless `r=o`.
struct GoogleReaderAPI: Sendable {
    typealias Handler = @Sendable (GoogleReaderAPI, ReaderRequest) async throws -> HTTPResponse

    let service: AggregatorService
    /// Where the server is reached, for the absolute icon URLs apps load.
    let basePath: String
    let trustedProxies: TrustedProxies
    private let router: Router<Handler>

    /// Tokens ClientLogin makes are labelled with this. Those unused for `loginLifetime` go, and at
    /// most `keptLogins` are kept: apps that hold their token in memory only (ReadYou) log in at every
    /// start, and a device idle for a while must still find its token (10, the old bound, was too few).
    static let loginLabel = "Google Reader login"
    static let keptLogins = 100
    static let loginLifetime: TimeInterval = 90 * 86_400

    init(service: AggregatorService, basePath: String = "/", trustedProxies: TrustedProxies = .loopback) {
        (self.service, self.basePath, self.trustedProxies) = (service, basePath, trustedProxies)
        var router = Router<Handler>()
        for (method, pattern, handler) in Self.routes {
            router.add(method, pattern, handler)
            if method == "GET" { router.add("POST", pattern, handler) }  // clients send either
        }
        self.router = router
    }

    static let routes: [(String, String, Handler)] = [
        ("GET", "/reader/api/0/token", { api, request in api.token(request) }),
        ("GET", "/reader/api/0/user-info", { api, request in try await api.userInfo(request) }),
        ("GET", "/reader/api/0/tag/list", { api, request in try await api.tags(request) }),
        ("GET", "/reader/api/0/subscription/list", { api, request in try await api.subscriptions(request) }),
        ("GET", "/reader/api/0/unread-count", { api, request in try await api.unreadCounts(request) }),
        ("GET", "/reader/api/0/stream/items/ids", { api, request in try await api.itemIDs(request) }),
        ("GET", "/reader/api/0/stream/items/contents", { api, request in try await api.contents(request) }),
        ("POST", "/reader/api/0/edit-tag", { api, request in try await api.editTag(request) }),
        ("POST", "/reader/api/0/mark-all-as-read", { api, request in try await api.markAllAsRead(request) }),
        ("POST", "/reader/api/0/subscription/edit", { api, request in try await api.editSubscription(request) }),
        ("POST", "/reader/api/0/subscription/quickadd", { api, request in try await api.quickAdd(request) }),
        ("POST", "/reader/api/0/rename-tag", { api, request in try await api.renameTag(request) }),
        ("POST", "/reader/api/0/disable-tag", { api, request in try await api.disableTag(request) }),
        ("POST", "/reader/api/0/subscription/import", { api, request in try await api.importSubscriptions(request) }),
        ("GET", "/reader/api/0/subscription/export", { api, request in try await api.exportSubscriptions(request) }),
    ]

    /// The path without the `/api/greader.php` prefix apps configured for FreshRSS add, when it is ours.
    static func path(of path: String) -> String? {
        let bare = path.hasPrefix("/api/greader.php/") ? String(path.dropFirst("/api/greader.php".count)) : path
        return bare == "/accounts/ClientLogin" || bare.hasPrefix("/reader/api/0/") || bare.hasPrefix("/reader/atom/")
            ? bare : nil
    }

    func handle(_ request: HTTPRequest, path: String) async -> (String, HTTPResponse) {
        let arguments = request.query + (request.method == "POST" ? FormBody.pairs(String(decoding: request.body, as: UTF8.self)) : [])
        if path == "/accounts/ClientLogin" { return ("/accounts/ClientLogin", await clientLogin(request, arguments)) }
        if path.hasPrefix("/reader/atom/") {
            return await authorized(request, arguments, route: "/reader/atom") { account in
                try await atom(ReaderRequest(http: request, arguments: arguments, account: account), stream: String(path.dropFirst("/reader/atom/".count)))
            }
        }
        if request.method == "OPTIONS" {
            // A browser's preflight (web-based clients): any origin, as FreshRSS answers; no login.
            return ("/reader OPTIONS", HTTPResponse(status: 204, headers: [
                ("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type"), ("Access-Control-Max-Age", "3600")]))
        }
        if path == "/reader/api/0/stream/contents" || path.hasPrefix("/reader/api/0/stream/contents/") {
            return await authorized(request, arguments, route: "/reader/api/0/stream/contents") { account in
                // The stream id is everything after the prefix (libmicrohttpd decoded any %2F already);
                // with none, the `s` argument, else the reading list (Fluent Reader asks so).
                let inPath = String(path.dropFirst("/reader/api/0/stream/contents".count).drop { $0 == "/" })
                let reader = ReaderRequest(http: request, arguments: arguments, account: account)
                return try await streamContents(reader, stream: inPath.isEmpty ? reader.value("s") ?? ReaderStream.readingListID : inPath)
            }
        }
        switch router.match(method: request.method, path: path) {
        case .notFound:
            return ("/reader other", .text("Not found: \(path)\n", status: 404))
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.text("Method not allowed\n", status: 405)
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return ("/reader other", response)
        case .found(let handler, _, let pattern):
            return await authorized(request, arguments, route: pattern) { account in
                try await handler(self, ReaderRequest(http: request, arguments: arguments, account: account))
            }
        }
    }

    /// Runs `body` when the request carries a valid `Authorization: GoogleLogin auth=TOKEN` (or
    /// `X-Auth-Token`), or is a POST without either whose form field `T` is a valid token (as Miniflux
    /// and FreshRSS accept: some desktop apps send only that); else 401 `Unauthorized` with
    /// `Google-Bad-Token: true`, as clients expect.
    private func authorized(_ request: HTTPRequest, _ arguments: [(name: String, value: String)], route: String,
                            _ body: (AccountIdentity) async throws -> HTTPResponse) async -> (String, HTTPResponse) {
        let verdict: LoginVerdict
        if let token = Self.loginToken(request) ?? Self.formToken(request, arguments) {
            verdict = await service.authenticate(.token(token), from: request.clientAddress)
        } else {
            verdict = .refused
        }
        switch verdict {
        case .granted(let account):
            do {
                return (route, try await body(account))
            } catch let error as AggregatorError {
                return (route, .text(error.description + "\n", status: MinifluxAPI.status(of: error)))
            } catch let error as ReaderError {
                return (route, .text(error.message + "\n", status: 400))
            } catch {
                return (route, .text(String(describing: error) + "\n", status: 500))
            }
        case .throttled, .unavailable:
            return (route, Login.refusal(verdict))
        case .refused, .noAccount:
            var response = HTTPResponse.text("Unauthorized\n", status: 401)
            // FreshRSS's header, and Miniflux's (some clients look for that one).
            response.headers += [("Google-Bad-Token", "true"), ("X-Reader-Google-Bad-Token", "true")]
            return (route, response)
        }
    }

    static func loginToken(_ request: HTTPRequest) -> String? {
        if let header = request.headers["authorization"], let range = header.range(of: "auth=") {
            let token = header[range.upperBound...].trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        return request.headers["x-auth-token"]
    }

    /// The `T` form field of a POST, trimmed (clients add a line feed), when not empty.
    static func formToken(_ request: HTTPRequest, _ arguments: [(name: String, value: String)]) -> String? {
        guard request.method == "POST", let value = arguments.last(where: { $0.name == "T" })?.value else { return nil }
        let token = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    // MARK: - Login

    /// `Email` and `Passwd` (form or query): a new API token as `Auth` (and `SID`), text or `output=json`.
    private func clientLogin(_ request: HTTPRequest, _ arguments: [(name: String, value: String)]) async -> HTTPResponse {
        func value(_ name: String) -> String? { arguments.last { $0.name == name }?.value }
        let verdict = await service.authenticate(.password(name: value("Email") ?? "", password: value("Passwd") ?? ""),
                                                 from: request.clientAddress)
        guard let account = verdict.account else {
            if case .throttled = verdict { return Login.refusal(verdict) }
            return .text("Error=BadAuthentication\n", status: 401)
        }
        do {
            try await pruneLogins(account)
            let made = try await service.createToken(for: account, label: try await loginLabel(account))
            if value("output") == "json" {
                return MinifluxJSON.response(["SID": .string(made.secret), "LSID": "null", "Auth": .string(made.secret)])
            }
            return .text("SID=\(made.secret)\nLSID=null\nAuth=\(made.secret)\n")
        } catch {
            return .text("Error=Unknown\n", status: 503)
        }
    }

    /// "Google Reader login 2026-12-01 23:55:12", with a number after it when that is taken.
    private func loginLabel(_ account: AccountIdentity) async throws -> String {
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withFullDate, .withTime,
                                                                                              .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
        let base = "\(Self.loginLabel) \(stamp)"
        let taken = Set(try await service.tokens(for: account).map(\.label))
        var label = base
        var number = 2
        while taken.contains(label) {
            label = "\(base) (\(number))"
            number += 1
        }
        return label
    }

    /// Revokes the ClientLogin tokens unused for `loginLifetime`, and the least recently used beyond
    /// `keptLogins`: apps log in again and again, and each login makes a token.
    /// Before a login makes its token: the oldest logins past `keptLogins`, past their lifetime, or
    /// past what leaves room for one more under `max-tokens` (a client that logs in again and again
    /// must not lock its account out).
    private func pruneLogins(_ account: AccountIdentity, now: Date = Date()) async throws {
        let tokens = try await service.tokens(for: account)
        let logins = tokens.filter { $0.label.hasPrefix(Self.loginLabel) }
            .sorted { ($0.lastUsedAt ?? $0.createdAt) > ($1.lastUsedAt ?? $1.createdAt) }
        var kept = Self.keptLogins - 1
        if let quota = try await service.tokenQuota(for: account) { kept = min(kept, quota - 1 - (tokens.count - logins.count)) }
        for (rank, login) in logins.enumerated()
        where rank >= kept || now.timeIntervalSince(login.lastUsedAt ?? login.createdAt) > Self.loginLifetime {
            _ = try await service.revokeToken(String(login.id), for: account)
        }
    }

    /// The token for write requests' `T`: the auth token itself, as Miniflux answers, so that a client
    /// sending only `T` is let in by it. With an auth header, the header decides and `T` is not read.
    private func token(_ request: ReaderRequest) -> HTTPResponse {
        .text((Self.loginToken(request.http) ?? Self.formToken(request.http, request.arguments) ?? "") + "\n")
    }

    // MARK: - Lists

    private func userInfo(_ request: ReaderRequest) async throws -> HTTPResponse {
        let id = JSONValue.string(String(request.account.id))
        return MinifluxJSON.response(["userId": id, "userName": .string(request.account.name), "userProfileId": id, "userEmail": ""])
    }

    private func tags(_ request: ReaderRequest) async throws -> HTTPResponse {
        var tags: [JSONValue] = [["id": .string(ReaderStream.starredID)]]
        tags += try await service.categories(for: request.account).map { ["id": .string(ReaderStream.label($0.name).id), "type": "folder"] }
        return MinifluxJSON.response(["tags": .array(tags)])
    }

    private func subscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        let feeds = try await service.feeds(for: request.account)
        // Absolute, as apps load it on their own (without credentials: the icon route needs none).
        let origin = (trustedProxies.isHTTPS(request.http) ? "https://" : "http://") + (request.http.headers["host"] ?? "localhost")
        return MinifluxJSON.response(["subscriptions": .array(feeds.map { feed in
            ["id": .string(ReaderStream.feed(feed.id).id), "title": .string(feed.title ?? feed.url), "url": .string(feed.url),
             "htmlUrl": .string(feed.siteURL ?? feed.url),
             "iconUrl": .string(feed.icon.map { origin + FeedIcons.path($0.digest, basePath: basePath) } ?? ""),
             "categories": .array(feed.category.map { [["id": .string(ReaderStream.label($0).id), "label": .string($0)]] } ?? [])]
        })])
    }

    /// Unread counts per feed, label and in all, each with the time its newest item was stored (some
    /// apps read a stream again only when that moved: the last fetch's time, or now, made them read
    /// everything at every sync).
    private func unreadCounts(_ request: ReaderRequest) async throws -> HTTPResponse {
        let feeds = try await service.feeds(for: request.account)
        var counts: [JSONValue] = feeds.map { feed in
            ["id": .string(ReaderStream.feed(feed.id).id), "count": .from(feed.unread),
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
    private func itemIDs(_ request: ReaderRequest) async throws -> HTTPResponse {
        let (listing, count) = try await streamListing(request, stream: request.value("s") ?? ReaderStream.readingListID,
                                                       maximum: 10_000)
        let ids = try await service.entryIDs(listing, for: request.account)
        var answer: [String: JSONValue] = ["itemRefs": .array(ids.prefix(count).map { ["id": .string(ReaderItemID.short($0))] })]
        if ids.count > count, let last = ids.prefix(count).last { answer["continuation"] = .string(String(last)) }
        return MinifluxJSON.response(.object(answer))
    }

    /// The items of many `i` (every form of id), in one answer.
    private func contents(_ request: ReaderRequest) async throws -> HTTPResponse {
        let wanted = request.values("i")
        guard wanted.count <= 10_000 else { throw ReaderError("at most 10000 items a request") }
        let ids = try wanted.map { text in
            guard let id = ReaderItemID.parse(text) else { throw ReaderError("not an item id: \(text)") }
            return id
        }
        // A query per page of the service's size (1,000); ids that are not ours are left out.
        var entries: [ListedEntry] = []
        for first in stride(from: 0, to: ids.count, by: AggregatorService.maximumPageSize) {
            var listing = EntryListing(account: request.account.id)
            listing.ids = Array(ids[first..<min(first + AggregatorService.maximumPageSize, ids.count)])
            (listing.order, listing.ascending, listing.limit) = (.id, false, AggregatorService.maximumPageSize)
            entries += try await service.entries(listing, for: request.account).entries
        }
        return MinifluxJSON.response(["id": .string(ReaderStream.readingListID), "updated": .from(Int64(Date().timeIntervalSince1970)),
                                      "items": .array(try await items(entries, request))])
    }

    private func streamContents(_ request: ReaderRequest, stream: String) async throws -> HTTPResponse {
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
    private func streamPage(_ request: ReaderRequest, stream: String) async throws -> ([ListedEntry], continuation: String?) {
        var (listing, count) = try await streamListing(request, stream: stream, maximum: 10_000)
        var entries: [ListedEntry] = []
        while entries.count <= count {
            listing.limit = min(AggregatorService.maximumPageSize, count + 1 - entries.count)
            let batch = try await service.entries(listing, for: request.account).entries
            entries += batch
            guard batch.count == listing.limit, let last = batch.last?.article.id else { break }
            if listing.ascending { listing.afterID = last } else { listing.beforeID = last }
        }
        let page = Array(entries.prefix(count))
        return (page, entries.count > count ? page.last.map { String($0.article.id) } : nil)
    }

    /// The listing a stream and its parameters select: `n`, `r=o`, `c`, `xt`, `it`, `ot`, `nt`; its
    /// limit is one more than the page, which tells whether a continuation is needed.
    private func streamListing(_ request: ReaderRequest, stream text: String, maximum: Int) async throws
        -> (EntryListing, Int) {
        guard let stream = ReaderStream(text) else { throw AggregatorError.notFound("unknown stream: \(text)") }
        var listing = try await listing(for: stream, request)
        listing.order = .id
        listing.ascending = request.value("r") == "o"
        let count = min(maximum, max(1, Int(request.value("n") ?? "") ?? 20))
        listing.limit = count + 1
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
            if listing.ascending { listing.afterID = last } else { listing.beforeID = last }
        }
        return (listing, count)
    }

    private func listing(for stream: ReaderStream, _ request: ReaderRequest) async throws -> EntryListing {
        var listing = EntryListing(account: request.account.id)
        switch stream {
        case .readingList: break
        case .read: listing.read = true
        case .starred: listing.starred = true
        case .keptUnread, .unread: listing.read = false
        case .label(let name):
            // A label that does not exist (deleted on another device) is an empty stream, as FreshRSS
            // answers: clients take any error for a failed sync.
            listing.filter.category = name
        case .feed(let id): listing.filter.feedID = try await service.feed(.id(id), for: request.account).id
        case .feedURL(let url): listing.filter.feedID = try await service.feed(.url(url), for: request.account).id
        }
        return listing
    }

    // MARK: - Marks

    /// `a` (add) and `r` (remove) states for every `i`: read, starred, kept-unread; labels on
    /// single items are not kept and are accepted as done.
    private func editTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        var ids: [Int64] = []
        for text in request.values("i") {
            guard let id = ReaderItemID.parse(text) else { throw ReaderError("not an item id: \(text)") }
            ids.append(id)
        }
        guard ids.count <= 10_000 else { throw ReaderError("at most 10000 items a request") }
        var read: Bool?
        var starred: Bool?
        for (values, adding) in [(request.values("a"), true), (request.values("r"), false)] {
            for tag in values {
                switch ReaderStream(tag) {
                case .read?: read = adding
                case .keptUnread?: read = !adding
                case .starred?: starred = adding
                default: break
                }
            }
        }
        if !ids.isEmpty, read != nil || starred != nil { _ = try await service.mark(.ids(ids), read: read, starred: starred, for: request.account) }
        return .text("OK")
    }

    /// `s` (a stream) read, up to `ts` (microseconds; what was stored before the client last looked),
    /// in one transaction of the store's.
    private func markAllAsRead(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard let text = request.value("s"), let stream = ReaderStream(text) else { throw ReaderError("s must be a stream id") }
        var query = ArticleQuery(unreadOnly: true)
        switch stream {
        case .readingList, .keptUnread, .unread: break
        case .read: return .text("OK")  // read already
        case .starred: query.starredOnly = true
        case .label(let name): query.category = name
        case .feed(let id): query.feed = .id(id)
        case .feedURL(let url): query.feed = .url(url)
        }
        if let stamp = request.value("ts").flatMap(Double.init), stamp > 0 {
            // Microseconds as Google wrote them; a value too small for that is seconds (as Miniflux reads it).
            let seconds = stamp >= 1e14 ? stamp / 1_000_000 : stamp
            query.storedBefore = Date(timeIntervalSince1970: seconds + 1)
        }
        _ = try await service.mark(.matching(query), read: true, starred: nil, for: request.account)
        return .text("OK")
    }

    // MARK: - Subscriptions and labels

    /// `ac=subscribe|unsubscribe|edit`, `s=feed/…` (a URL to subscribe to, else our feed), `t` a title,
    /// `a` a label to file it under, `r` a label to take it out of.
    private func editSubscription(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard let text = request.value("s"), let stream = ReaderStream(text) else { throw ReaderError("s must be feed/…") }
        let label = request.value("a").flatMap { tag -> String? in
            if case .label(let name)? = ReaderStream(tag) { return name }
            return nil
        }
        let title = request.value("t").flatMap { $0.isEmpty ? nil : $0 }
        let reference: FeedReference
        switch stream {
        case .feed(let id): reference = .id(id)
        case .feedURL(let url): reference = .url(url)
        default: throw ReaderError("s must be a feed (feed/ID or feed/URL)")
        }
        switch request.value("ac") ?? "edit" {
        case "subscribe":
            if case .feedURL(let url) = stream { _ = try await service.addFeed(url: url, category: label, title: title, for: request.account) }
        case "unsubscribe":
            _ = try await service.removeFeed(reference, for: request.account)
        case "edit":
            // `r` alone takes the feed out of its label (no category) when it names the label the feed is
            // in: a stale `r` must not lose the feed's real folder.
            var category = label
            if label == nil, case .label(let removed)? = request.value("r").flatMap(ReaderStream.init),
               try await service.feed(reference, for: request.account).category?.caseInsensitiveCompare(removed) == .orderedSame {
                category = ""
            }
            if title != nil || category != nil { _ = try await service.updateFeed(reference, title: title, category: category, for: request.account) }
        case let other:
            throw ReaderError("ac must be subscribe, unsubscribe or edit, not \(other)")
        }
        return .text("OK")
    }

    /// `quickadd=URL` (a feed, or a page that links to one).
    private func quickAdd(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard var url = request.value("quickadd"), !url.isEmpty else { throw ReaderError("quickadd must be a URL") }
        if url.hasPrefix("feed/") { url = String(url.dropFirst(5)) }
        let added: FeedAddition
        do {
            added = try await service.addFeed(url: url, for: request.account)
        } catch {
            // As FreshRSS and Miniflux answer: a 200 that found nothing, which apps show as "not found"
            // (a store that cannot be used now is still an error).
            if case .unavailable = error { throw error }
            return MinifluxJSON.response(["numResults": 0, "query": .string(url), "error": .string(error.description)])
        }
        return MinifluxJSON.response(["numResults": 1, "query": .string(url), "streamId": .string(ReaderStream.feed(added.feed.id).id),
                                      "streamName": .string(added.feed.title ?? added.feed.url)])
    }

    /// An OPML document as the body (NetNewsWire's and RSS Guard's import): subscribes to its feeds.
    /// "OK" as FreshRSS answers, then a line for each outline refused to the account.
    private func importSubscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        let summary = try await service.importOPML(request.http.body, for: request.account)
        return .text((["OK"] + summary.refused.map(\.reason)).joined(separator: "\n"))
    }

    /// Every subscription as OPML (RSS Guard's export).
    private func exportSubscriptions(_ request: ReaderRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/xml; charset=utf-8")],
                     body: Data(try await service.exportOPML(for: request.account).utf8))
    }

    /// `s=user/-/label/OLD&dest=user/-/label/NEW`: renames a category (into an existing one: merged).
    private func renameTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard case .label(let old)? = request.value("s").flatMap(ReaderStream.init),
              case .label(let new)? = request.value("dest").flatMap(ReaderStream.init) else {
            throw ReaderError("s and dest must be labels (user/-/label/NAME)")
        }
        _ = try await service.renameCategory(old, to: new, for: request.account)
        return .text("OK")
    }

    /// `s=user/-/label/NAME`: deletes the category; its feeds stay, filed under none.
    private func disableTag(_ request: ReaderRequest) async throws -> HTTPResponse {
        guard case .label(let name)? = request.value("s").flatMap(ReaderStream.init) else {
            throw ReaderError("s must be a label (user/-/label/NAME)")
        }
        guard let category = try await service.categories(for: request.account).first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
        else { throw AggregatorError.notFound("no label \(name)") }
        try await service.removeCategory(id: category.id, for: request.account)
        return .text("OK")
    }

    // MARK: - Atom

    /// A stream as an Atom document, as older clients read it (newsboat's feedhq mode): read items
    /// carry `<category scheme="http://www.google.com/reader/" label="read" …/>`.
    private func atom(_ request: ReaderRequest, stream: String) async throws -> HTTPResponse {
        let (entries, continuation) = try await streamPage(request, stream: stream)
        var title = stream
        if case .feed(let id)? = ReaderStream(stream) { title = try await service.feed(.id(id), for: request.account).title ?? stream }
        var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
        xml += #"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:gr="http://www.google.com/schemas/reader/atom/">"#
        xml += "<id>tag:google.com,2005:reader/\(Self.escaped(stream))</id><title>\(Self.escaped(title))</title>"
        xml += "<updated>\(rfc3339(secondsSinceEpoch: Int64(Date().timeIntervalSince1970)))</updated>"
        if let continuation { xml += "<gr:continuation>\(continuation)</gr:continuation>" }
        for entry in entries {
            let article = entry.article
            let published = rfc3339(secondsSinceEpoch: Int64((article.published ?? entry.createdAt).timeIntervalSince1970))
            xml += "<entry><id>\(ReaderItemID.long(article.id))</id><title type=\"html\">\(Self.escaped(article.title ?? ""))</title>"
            xml += "<published>\(published)</published><updated>\(published)</updated>"
            if let url = article.url { xml += "<link rel=\"alternate\" href=\"\(Self.escaped(url))\" type=\"text/html\"/>" }
            if let author = article.author { xml += "<author><name>\(Self.escaped(author))</name></author>" }
            for (flag, state) in [(article.isRead, "read"), (article.isStarred, "starred")] where flag {
                xml += "<category term=\"user/-/state/com.google/\(state)\" scheme=\"http://www.google.com/reader/\" label=\"\(state)\"/>"
            }
            let content = HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url)
            xml += "<content type=\"html\">\(Self.escaped(content))</content></entry>"
        }
        xml += "</feed>\n"
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/atom+xml; charset=utf-8")], body: Data(xml.utf8))
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: - Shapes

    static func microseconds(_ date: Date?) -> String {
        String(Int64(((date ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1_000_000).rounded()))
    }

    /// The items of a page, each with its feed's site (else its URL, as `subscription/list` has it) as
    /// `origin.htmlUrl` (ReadYou links an article there when it has no URL of its own): only the
    /// page's feeds are read.
    private func items(_ entries: [ListedEntry], _ request: ReaderRequest) async throws -> [JSONValue] {
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
            "id": .string(ReaderItemID.long(article.id)), "crawlTimeMsec": .string(String(Int64(crawled * 1000))),
            "timestampUsec": .string(String(Int64(crawled * 1_000_000))),
            "published": .from(Int64((article.published ?? entry.createdAt).timeIntervalSince1970)),
            "updated": .from(Int64((article.updated ?? article.published ?? entry.createdAt).timeIntervalSince1970)),
            "title": .string(article.title ?? ""), "author": .string(article.author ?? ""),
            "canonical": link, "alternate": link, "categories": .array(categories),
            "origin": ["streamId": .string(ReaderStream.feed(article.feedID ?? 0).id), "title": .string(article.feedTitle ?? ""),
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

/// A request as a handler sees it: the HTTP request and its arguments, query and form body together.
struct ReaderRequest: Sendable {
    let http: HTTPRequest
    let arguments: [(name: String, value: String)]
    /// The account logged in.
    let account: AccountIdentity

    func value(_ name: String) -> String? { arguments.last { $0.name == name }?.value.trimmingCharacters(in: .whitespacesAndNewlines) }
    func values(_ name: String) -> [String] { arguments.filter { $0.name == name }.map(\.value) }
}

struct ReaderError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
