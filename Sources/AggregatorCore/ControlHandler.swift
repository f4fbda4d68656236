import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import Synchronization

/// The control socket's front end: decodes a JSON-RPC request's params, calls the service, and
/// encodes its typed result in the protocol's shapes (snake_case keys, RFC 3339 dates, null for
/// absent values). `AggregatorError` becomes a JSON-RPC error code here, one per case.
public struct ControlHandler: Sendable {
    let service: AggregatorService

    public init(service: AggregatorService) {
        self.service = service
    }

    public func handle(_ request: JSONRPCRequest, notifier: ControlNotifier) async -> Result<JSONValue, JSONRPCError> {
        guard let method = ControlMethod(rawValue: request.method) else { return .failure(.methodNotFound(request.method)) }
        do {
            return .success(try await answer(method, Parameters(request.params), notifier: notifier))
        } catch let error as JSONRPCError {
            return .failure(error)
        } catch let error as AggregatorError {
            return .failure(Self.rpcError(error))
        } catch {
            return .failure(.internalError(String(describing: error)))
        }
    }

    /// The JSON-RPC error for each of the service's errors (codes listed in docs/cli.md, "The control protocol").
    static func rpcError(_ error: AggregatorError) -> JSONRPCError {
        switch error {
        case .notFound(let message): .notFound(message)
        case .alreadySubscribed(let message): .alreadySubscribed(message)
        case .invalidArgument(let message): .invalidParams(message)
        case .failed(let message), .forbidden(let message), .tooManyRequests(let message, _): .failed(message)
        case .unavailable(let message): .unavailable(message)
        }
    }

    /// Methods about the whole server, or naming their account themselves: the others act for one
    /// (`status` counts its unread entries, `refresh` names its feeds by its ids).
    private static let serverWide: Set<ControlMethod> = [.backup, .userSet, .userAdd, .userRemove, .userAdmin, .userList,
                                                         .userRename, .userShow]

    private func answer(_ method: ControlMethod, _ params: Parameters, notifier: ControlNotifier) async throws -> JSONValue {
        // A `user` that names no account is refused before anything is done; the one it names is
        // looked up once. Without one, the first admin is looked up by the methods that need it.
        let named = params.string("user") != nil && !Self.serverWide.contains(method) ? try await actingAccount(params) : nil
        func acting() async throws -> AccountIdentity {
            if let named { return named }
            return try await actingAccount(params)
        }
        switch method {
        case .status:
            return Self.json(try await service.status(for: try await acting(), serverWide: true))
        case .feedsList:
            let feeds = try await service.feeds(category: params.string("category"), failingOnly: params.bool("failing") ?? false,
                                              for: try await acting())
            return ["feeds": .array(feeds.map(Self.json))]
        case .feedsAdd:
            guard let url = params.string("url") else { throw JSONRPCError.invalidParams("\"url\" is required") }
            let added = try await service.addFeed(url: url, category: params.string("category"), title: params.string("title"),
                                                  for: try await acting())
            return ["feed": Self.json(added.feed), "warning": .from(added.warning),
                    "candidates": .array(added.candidates.map {
                        ["url": .string($0.url), "title": .from($0.title), "type": .string($0.type)]
                    })]
        case .feedsRemove:
            return ["removed": .from(try await service.removeFeed(try params.feed("feed"), for: try await acting()).rawValue)]
        case .feedsUpdate:
            return try await updateFeed(params, for: try await acting())
        case .feedsImport:
            guard let text = params.string("opml") else { throw JSONRPCError.invalidParams("\"opml\" is required") }
            let summary = try await service.importOPML(Data(text.utf8), for: try await acting())
            return ["added": .from(summary.added), "skipped": .from(summary.skipped), "invalid": .from(summary.invalid),
                    "refused": .array(summary.refused.map { ["url": .string($0.url), "reason": .string($0.reason)] })]
        case .feedsExport:
            return ["opml": .string(try await service.exportOPML(for: try await acting()))]
        case .categoriesList:
            return ["categories": .array(try await service.categories(for: try await acting()).map(Self.json))]
        case .categoriesRename:
            guard let name = params.string("name"), let newName = params.string("new_name") else {
                throw JSONRPCError.invalidParams("\"name\" and \"new_name\" are required")
            }
            return ["category": try await service.renameCategory(name, to: newName, for: try await acting()).map(Self.json) ?? .null]
        case .articlesList:
            let page = try await service.articles(try params.query(), sort: try Self.sort(params), limit: params.int("limit") ?? 50,
                                                  cursor: params.string("cursor"), for: try await acting())
            return ["articles": .array(page.articles.map { Self.json($0, full: false) }), "next_cursor": .from(page.nextCursor)]
        case .articlesGet:
            guard let id = params.int("id") else { throw JSONRPCError.invalidParams("\"id\" must be an article id") }
            return ["article": Self.json(try await service.article(id: EntryID(Int64(id)), for: try await acting()), full: true)]
        case .articlesMark:
            return ["changed": .from(try await service.mark(try Self.selection(params), read: params.bool("read"),
                                                           starred: params.bool("starred"), for: try await acting()))]
        case .refresh:
            return try await refresh(params, for: try await acting(), notifier: notifier)
        case .eventsSubscribe:
            return try await subscribe(params, for: try await acting(), notifier: notifier)
        case .backup:
            guard let path = params.string("path") else { throw JSONRPCError.invalidParams("\"path\" is required") }
            let size = try await service.backup(to: path)
            return ["path": .string(path), "bytes": .from(size)]
        case .userSet, .userAdd, .userRemove, .userAdmin, .userShow, .userList, .userRename:
            return try await answerUser(method, params)
        case .userFever:
            guard let enabled = params.bool("enabled") else { throw JSONRPCError.invalidParams("\"enabled\" (true or false) is required") }
            let account = try await acting()
            return ["user": Self.json(try await service.setFever(account, enabled: enabled, password: params.value("password")?.string))]
        case .tokenCreate:
            let made = try await service.createToken(for: try await acting(), label: params.string("label"))
            return ["id": .from(made.token.id), "label": .string(made.token.label), "token": .string(made.secret)]
        case .tokenList:
            return ["tokens": .array(try await service.tokens(for: try await acting()).map(Self.json))]
        case .tokenRevoke:
            guard let token = params.string("token") else { throw JSONRPCError.invalidParams("\"token\" (an id or label) is required") }
            return ["revoked": Self.json(try await service.revokeToken(token, for: try await acting()))]
        }
    }

    /// Whom a request acts for: the account its `user` param names, else the first admin (docs/ARCHITECTURE.md).
    /// `feeds.update`: "" for the category files the feed under none; a missing key leaves it alone.
    /// `settings` carries Miniflux's names (`edit`); `title` and `category` may also come at the top.
    private func updateFeed(_ params: Parameters, for account: AccountIdentity) async throws -> JSONValue {
        let settings = params.value("settings")?.object ?? [:]
        func text(_ key: String) throws(JSONRPCError) -> String? {
            guard let value = settings[key] ?? params.value(key), !value.isNull else { return nil }
            guard let text = value.string else { throw JSONRPCError.invalidParams("\"\(key)\" must be a string") }
            return text
        }
        func flag(_ key: String) throws(JSONRPCError) -> Bool? {
            guard let value = settings[key], !value.isNull else { return nil }
            guard let flag = value.bool else { throw JSONRPCError.invalidParams("\"\(key)\" must be true or false") }
            return flag
        }
        let known: Set<String> = ["title", "category", "disabled", "hide_globally", "scraper_rules", "blocklist_rules",
                                  "keeplist_rules", "user_agent", "cookie", "username", "password", "ignore_http_cache",
                                  "allow_self_signed_certificates", "crawler"]
        if let unknown = settings.keys.sorted().first(where: { !known.contains($0) }) {
            throw JSONRPCError.invalidParams("\"\(unknown)\" cannot be set yet (\(known.sorted().joined(separator: ", ")) can)")
        }
        guard !settings.isEmpty || params.value("title") != nil || params.value("category") != nil else {
            throw JSONRPCError.invalidParams("say what to change: a title, category, flag, rule or selector")
        }
        let reference = try params.feed("feed")
        var changes = FeedChanges(title: try text("title"), category: try text("category"))
        (changes.disabled, changes.hideGlobally, changes.crawler) = (try flag("disabled"), try flag("hide_globally"), try flag("crawler"))
        (changes.scraperRules, changes.blocklist, changes.keeplist) = (try text("scraper_rules"), try text("blocklist_rules"),
                                                                       try text("keeplist_rules"))
        // Fetch settings ("" clears one; docs/ARCHITECTURE.md): the secrets are never answered back.
        changes.fetchSettings = FetchSettingsChange(userAgent: try text("user_agent"), cookie: try text("cookie"),
                                                    username: try text("username"), password: try text("password"),
                                                    ignoresHTTPCache: try flag("ignore_http_cache"),
                                                    allowsSelfSignedCertificates: try flag("allow_self_signed_certificates"))
        let feed = try await service.updateFeed(reference, changes, for: account)
        return ["feed": Self.json(feed)]
    }

    /// The `sort` asked for, if any.
    private static func sort(_ params: Parameters) throws -> ArticleSort? {
        try params.string("sort").map { name in
            guard let sort = ArticleSort(rawValue: name) else {
                throw JSONRPCError.invalidParams("\"sort\" must be newest, oldest, title or relevance")
            }
            return sort
        }
    }

    /// What `articles.mark` marks: the articles `ids` names, or those its `filter` matches.
    private static func selection(_ params: Parameters) throws -> MarkSelection {
        if let ids = params.value("ids")?.array {
            let numbers = ids.compactMap { $0.int.map { EntryID(Int64($0)) } }
            guard numbers.count == ids.count else { throw JSONRPCError.invalidParams("\"ids\" must be article ids") }
            return .ids(numbers)
        }
        if let filter = params.value("filter"), filter.object != nil { return .matching(try Parameters(filter).query()) }
        throw JSONRPCError.invalidParams("give \"ids\" or \"filter\"")
    }

    /// The accounts' methods, which name their account themselves (`serverWide`).
    private func answerUser(_ method: ControlMethod, _ params: Parameters) async throws -> JSONValue {
        switch method {
    case .userSet:
        guard let name = params.string("name"), let password = params.value("password")?.string else {
            throw JSONRPCError.invalidParams("\"name\" and \"password\" are required")
        }
        return ["user": Self.json(try await service.setPassword(name: name, password: password))]
    case .userAdd:
        guard let name = params.string("name"), let password = params.value("password")?.string else {
            throw JSONRPCError.invalidParams("\"name\" and \"password\" are required")
        }
        let added = try await service.addAccount(name: name, password: password, isAdmin: params.bool("admin") ?? false)
        return ["user": Self.json(added)]
    case .userRemove:
        guard let name = params.string("name") else { throw JSONRPCError.invalidParams("\"name\" is required") }
        return ["removed": Self.json(try await service.removeAccount(named: name))]
    case .userAdmin:
        guard let name = params.string("name"), let admin = params.bool("admin") else {
            throw JSONRPCError.invalidParams("\"name\" and \"admin\" (true or false) are required")
        }
        return ["user": Self.json(try await service.setAdmin(named: name, admin))]
    case .userShow:
        // `name` names whom to show; else the account the request acts for.
        let account = try await service.account(named: params.string("name") ?? params.string("user"))
        return ["user": Self.json(try await service.accountSummary(account))]
    case .userList:
        return ["users": .array(try await service.accounts().map(Self.json))]
    case .userRename:
        guard let name = params.string("name"), let newName = params.string("new_name") else {
            throw JSONRPCError.invalidParams("\"name\" and \"new_name\" are required")
        }
        return ["user": Self.json(try await service.renameAccount(name, to: newName))]
        default:
            preconditionFailure("\(method) is not an account method")
        }
    }

    private func actingAccount(_ params: Parameters) async throws -> AccountIdentity {
        try await service.account(named: params.string("user"))
    }

    private func refresh(_ params: Parameters, for account: AccountIdentity, notifier: ControlNotifier) async throws -> JSONValue {
        var feeds: [FeedReference]?
        if let wanted = params.value("feeds")?.array { feeds = try wanted.map(Parameters.feed) }
        let outcome = try await service.refresh(feeds, wait: params.bool("wait") ?? false, for: account) { progress in
            notifier.notify(.refreshProgress, ["done": .from(progress.done), "total": .from(progress.total),
                                               "feed_id": .from(progress.feedID.rawValue), "url": .from(progress.url),
                                               "ok": .bool(progress.isSuccess)])
        }
        switch outcome {
        case .queued(let count):
            return ["queued": .from(count)]
        case .finished(let summary):
            return ["feeds": .from(summary.feeds), "ok": .from(summary.ok), "not_modified": .from(summary.notModified),
                    "failed": .from(summary.failed), "new_entries": .from(summary.newEntries),
                    "seconds": .number(summary.seconds)]
        }
    }

    /// Sends an `entry.new` notification for each article stored from now on that matches the
    /// filter, until the client goes away or the daemon stops.
    private func subscribe(_ params: Parameters, for account: AccountIdentity, notifier: ControlNotifier) async throws -> JSONValue {
        let query = try params.query()
        let sent = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await service.watch(query, for: account, onStart: { notifier.notify(.watchStarted, [:]) }) { article in
                    notifier.notify(.entryNew, Self.json(article, full: false))
                    sent.increment()
                }
            }
            group.addTask { await notifier.waitUntilDisconnected() }
            try await group.next()  // the client left (or the daemon is stopping): stop watching
            group.cancelAll()
        }
        return ["sent": .from(sent.value)]
    }

    // MARK: - JSON shapes

    static func timestamp(_ date: Date) -> String {
        rfc3339(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    static func json(_ status: ServiceStatus) -> JSONValue {
        var lastRound: JSONValue = .null
        if let round = status.lastRound {
            lastRound = ["finished": .string(timestamp(round.finished)), "seconds": .number(round.summary.seconds),
                         "feeds": .from(round.summary.feeds), "ok": .from(round.summary.ok),
                         "not_modified": .from(round.summary.notModified), "failed": .from(round.summary.failed),
                         "new_entries": .from(round.summary.newEntries)]
        }
        let feeds = status.totals.feedsByStatus
        var json: [String: JSONValue] = [
            "version": .string(status.version),
            "uptime_s": .number(status.uptime.rounded()),
            "database": .string(status.databasePath),
            "database_bytes": .from(status.databaseBytes),
            "feeds": ["ok": .from(feeds[.ok, default: 0]), "failing": .from(feeds[.failing, default: 0]),
                      "disabled": .from(feeds[.disabled, default: 0])],
            "entries": .from(status.totals.entries),
            "unread": .from(status.totals.unread),
            "last_round": lastRound,
            "next_due": .from(status.nextDue.map(timestamp)),
        ]
        if let nodes = status.nodes {
            json["nodes"] = .array(nodes.map { node in
                ["name": .string(node.name), "started": .string(timestamp(node.started)),
                 "last_heartbeat": .string(timestamp(node.lastHeartbeat)), "feeds_claimed": .from(node.feedsClaimed),
                 "last_round_fetches": .from(node.lastRoundFetches)]
            })
        }
        return .object(json)
    }

    /// An account: `user show`'s fields, and `user list`'s (`created`, `last_login`, as docs/cli.md lists them ("Accounts and tokens")).
    static func json(_ account: AccountSummary) -> JSONValue {
        let created = JSONValue.string(timestamp(account.createdAt))
        let lastLogin = JSONValue.from(account.lastLoginAt.map(timestamp))
        return ["id": .from(account.id.rawValue), "name": .string(account.name), "admin": .bool(account.isAdmin),
                "created": created, "created_at": created, "updated_at": .string(timestamp(account.updatedAt)),
                "last_login": lastLogin, "has_password": .bool(account.hasPassword), "fever": .bool(account.feverEnabled),
                "tokens": .from(account.tokens), "feeds": .from(account.feeds), "unread": .from(account.unread),
                "usage": ["subscriptions": .from(account.feeds), "tokens": .from(account.tokens),
                          "entries_imported": .from(account.entriesImported)]]
    }

    static func json(_ token: APIToken) -> JSONValue {
        ["id": .from(token.id), "label": .string(token.label), "created_at": .string(timestamp(token.createdAt)),
         "last_used_at": .from(token.lastUsedAt.map(timestamp))]
    }

    static func json(_ category: CategorySummary) -> JSONValue {
        ["id": .from(category.id), "name": .string(category.name), "feeds": .from(category.feeds), "unread": .from(category.unread),
         "total": .from(category.total)]
    }

    static func json(_ feed: FeedSummary) -> JSONValue {
        ["id": .from(feed.id.rawValue), "url": .string(feed.url), "title": .from(feed.title), "site_url": .from(feed.siteURL),
         "category": .from(feed.category), "status": .string(feed.status.rawValue), "last_error": .from(feed.lastError),
         "error_count": .from(feed.errorCount), "unread": .from(feed.unread), "total": .from(feed.total),
         "checked_at": .from(feed.checkedAt.map(timestamp)), "next_check_at": .from(feed.nextCheckAt.map(timestamp)),
         // The fetch settings without the secrets (docs/ARCHITECTURE.md): a private copy's (§12).
         "private": .bool(feed.isPrivateCopy), "user_agent": .from(feed.fetchSettings.userAgent),
         "username": .from(feed.fetchSettings.username), "ignore_http_cache": .bool(feed.fetchSettings.ignoresHTTPCache),
         "crawler": .bool(feed.crawler)]
    }

    static func json(_ article: Article, full: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .from(article.id.rawValue), "feed_id": .from(article.feedID?.rawValue), "feed_title": .from(article.feedTitle),
            "category": .from(article.category), "title": .from(article.title), "url": .from(article.url),
            "author": .from(article.author), "published": .from(article.published.map(timestamp)),
            "updated": .from(article.updated.map(timestamp)), "summary": .from(article.summary),
            "image": .from(article.imageURL), "read": .bool(article.isRead), "starred": .bool(article.isStarred),
        ]
        if let snippet = article.snippet {
            // The store's markers, as the protocol spells them (the same characters today).
            object["snippet"] = .string(snippet.replacingOccurrences(of: Snippet.matchStart, with: SnippetMarker.matchStart)
                .replacingOccurrences(of: Snippet.matchEnd, with: SnippetMarker.matchEnd))
        }
        if full {
            object["content"] = .from(article.content)
            object["enclosures"] = .array(article.enclosures.map { enclosure in
                ["url": .string(enclosure.url), "type": .from(enclosure.type), "length": .from(enclosure.length)]
            })
        }
        return .object(object)
    }
}

/// A count shared with the task that makes it.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
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

    /// A feed named by id (a number, or a string of digits) or URL.
    static func feed(_ value: JSONValue) throws -> FeedReference {
        if let number = value.int { return .id(SubscriptionID(Int64(number))) }
        if let text = value.string, !text.isEmpty { return Int64(text).map { .id(SubscriptionID($0)) } ?? .url(text) }
        throw JSONRPCError.invalidParams("\"feed\" must be a feed id or URL")
    }

    func feed(_ name: String) throws -> FeedReference {
        try Self.feed(value(name) ?? .null)
    }

    /// The article filter params: category, feed, unread, starred, since, before, query.
    func query() throws -> ArticleQuery {
        var query = ArticleQuery(category: string("category"), unreadOnly: bool("unread") ?? false,
                                 starredOnly: bool("starred") ?? false, search: string("query"))
        if let feed = value("feed") { query.feed = try Self.feed(feed) }
        if let since = string("since") {
            guard let date = FeedDateParser.date(from: since) else {
                throw JSONRPCError.invalidParams("\"since\" is not a date: \(since) (use e.g. 2024-06-01 or 2024-06-01T12:00:00Z)")
            }
            query.since = date
        }
        if let before = string("before") {
            guard let date = FeedDateParser.date(from: before) else {
                throw JSONRPCError.invalidParams("\"before\" is not a date: \(before)")
            }
            query.before = date
        }
        return query
    }
}
