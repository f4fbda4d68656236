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
