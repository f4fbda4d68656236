import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import HTTPServer

/// Miniflux's REST API v1 over the service: the same paths, JSON shapes, status codes and
/// `{"error_message"}` errors as Miniflux, which its apps and client libraries check exactly.
/// Every route needs a login: `X-Auth-Token` when the header is there (no fallback), else HTTP Basic.
struct MinifluxAPI: Sendable {
    typealias Handler = @Sendable (MinifluxAPI, MinifluxRequest) async throws -> HTTPResponse

    let service: AggregatorService
    private let router: Router<Handler>

    init(service: AggregatorService) {
        self.service = service
        var router = Router<Handler>()
        for (method, pattern, handler) in Self.routes { router.add(method, pattern, handler) }
        self.router = router
    }

    /// The routes, each with its handler (in the extensions by subject).
    static let routes: [(String, String, Handler)] = [
        ("GET", "/v1/me", { api, request in try await api.me(request) }),
        ("GET", "/v1/version", { _, _ in version() }),
        ("GET", "/v1/categories", { api, request in try await api.categories(request) }),
        ("POST", "/v1/categories", { api, request in try await api.createCategory(request) }),
        ("PUT", "/v1/categories/{categoryID}", { api, request in try await api.updateCategory(request) }),
        ("DELETE", "/v1/categories/{categoryID}", { api, request in try await api.deleteCategory(request) }),
        ("GET", "/v1/categories/{categoryID}/feeds", { api, request in try await api.categoryFeeds(request) }),
        ("GET", "/v1/categories/{categoryID}/entries", { api, request in try await api.categoryEntries(request) }),
        ("GET", "/v1/categories/{categoryID}/entries/{entryID}", { api, request in try await api.categoryEntry(request) }),
        ("PUT", "/v1/categories/{categoryID}/mark-all-as-read", { api, request in try await api.markCategoryRead(request) }),
        ("PUT", "/v1/categories/{categoryID}/refresh", { api, request in try await api.refreshCategory(request) }),
        ("GET", "/v1/feeds", { api, request in try await api.feeds(request) }),
        ("POST", "/v1/feeds", { api, request in try await api.createFeed(request) }),
        ("GET", "/v1/feeds/counters", { api, request in try await api.counters(request) }),
        ("PUT", "/v1/feeds/refresh", { api, request in try await api.refreshAll(request) }),
        ("GET", "/v1/feeds/{feedID}", { api, request in try await api.feed(request) }),
        ("PUT", "/v1/feeds/{feedID}", { api, request in try await api.updateFeed(request) }),
        ("DELETE", "/v1/feeds/{feedID}", { api, request in try await api.deleteFeed(request) }),
        ("PUT", "/v1/feeds/{feedID}/refresh", { api, request in try await api.refreshFeed(request) }),
        ("GET", "/v1/feeds/{feedID}/icon", { api, request in try await api.feedIcon(request) }),
        ("GET", "/v1/icons/{iconID}", { api, request in try await api.icon(request) }),
        ("GET", "/v1/enclosures/{enclosureID}", { api, request in try await api.enclosure(request) }),
        ("PUT", "/v1/enclosures/{enclosureID}", { api, request in try await api.updateEnclosure(request) }),
        ("PUT", "/v1/feeds/{feedID}/mark-all-as-read", { api, request in try await api.markFeedRead(request) }),
        ("GET", "/v1/feeds/{feedID}/entries", { api, request in try await api.feedEntries(request) }),
        ("GET", "/v1/feeds/{feedID}/entries/{entryID}", { api, request in try await api.feedEntry(request) }),
        ("POST", "/v1/feeds/{feedID}/entries/import", { api, request in try await api.importEntry(request) }),
        ("GET", "/v1/entries", { api, request in try await api.entries(request) }),
        ("GET", "/v1/entries/ids", { api, request in try await api.entryIDs(request) }),
        ("PUT", "/v1/entries", { api, request in try await api.updateEntries(request) }),
        ("GET", "/v1/entries/{entryID}", { api, request in try await api.entry(request) }),
        ("PUT", "/v1/entries/{entryID}", { api, request in try await api.editEntry(request) }),
        ("GET", "/v1/entries/{entryID}/fetch-content", { api, request in try await api.fetchContent(request) }),
        ("PUT", "/v1/entries/{entryID}/bookmark", { api, request in try await api.toggleStar(request) }),
        ("PUT", "/v1/entries/{entryID}/star", { api, request in try await api.toggleStar(request) }),
        ("POST", "/v1/entries/{entryID}/save", { _, request in try saveEntry(request) }),
        ("GET", "/v1/integrations/status", { _, _ in MinifluxJSON.response(["has_integrations": false]) }),
        ("PUT", "/v1/users/{userID}/mark-all-as-read", { api, request in try await api.markEverythingRead(request) }),
        // PUT from Miniflux's Go client, DELETE from its Python one: Miniflux takes both.
        ("PUT", "/v1/flush-history", { api, request in try await api.flushHistory(request) }),
        ("DELETE", "/v1/flush-history", { api, request in try await api.flushHistory(request) }),
        ("GET", "/v1/users", { api, request in try await api.users(request) }),
        ("POST", "/v1/users", { api, request in try await api.createUser(request) }),
        ("GET", "/v1/users/{userID}", { api, request in try await api.user(request) }),
        ("PUT", "/v1/users/{userID}", { api, request in try await api.updateUser(request) }),
        ("DELETE", "/v1/users/{userID}", { api, request in try await api.deleteUser(request) }),
        ("GET", "/v1/export", { api, request in try await api.export(request) }),
        ("POST", "/v1/import", { api, request in try await api.importOPML(request) }),
        ("POST", "/v1/discover", { api, request in try await api.discover(request) }),
        ("GET", "/v1/api-keys", { api, request in try await api.apiKeys(request) }),
        ("POST", "/v1/api-keys", { api, request in try await api.createAPIKey(request) }),
        ("DELETE", "/v1/api-keys/{apiKeyID}", { api, request in try await api.deleteAPIKey(request) }),
    ]

    /// Whether the path is one of this API's.
    static func serves(_ path: String) -> Bool {
        path == "/v1" || path.hasPrefix("/v1/")
    }

    /// The answer, and the route pattern it counts under.
    func handle(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        if request.method == "OPTIONS" { return ("/v1 OPTIONS", Self.withCORS(HTTPResponse(status: 204, headers: [
            ("Access-Control-Max-Age", "3600")]))) }
        let (route, response) = await routed(request)
        return (route, Self.withCORS(response))
    }

    private func routed(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        // Credentials first, as Miniflux's middleware checks them: a bad login is 401 on any path, so
        // an app with a wrong token is told so, never that a route does not exist.
        let match = router.match(method: request.method, path: request.path)
        if let type = Self.crossSiteBodyType(request) {
            let pattern = if case .found(_, _, let pattern) = match { pattern } else { "/v1 other" }
            return (pattern, HTTPFrontEnd.error("a body of type \(type) is not accepted here (a page of another site "
                + "can send one): send JSON as application/json", status: 415))
        }
        let verdict = await login(request)
        guard let account = verdict.account else {
            if case .found(_, _, let pattern) = match { return (pattern, Login.refusal(verdict)) }
            return ("/v1 other", Login.refusal(verdict))
        }
        switch match {
        case .notFound:
            return ("/v1 other", HTTPFrontEnd.error("Not Found", status: 404))
        case .methodNotAllowed(let allowed):
            var response = HTTPFrontEnd.error("method \(request.method) not allowed here", status: 405)
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return ("/v1 other", response)
        case .found(let handler, let parameters, let pattern):
            do {
                return (pattern, try await handler(self, MinifluxRequest(http: request, parameters: parameters, account: account)))
            } catch let error as MinifluxError {
                return (pattern, HTTPFrontEnd.error(error.message, status: error.status))
            } catch let error as AggregatorError {
                return (pattern, Self.response(to: error))
            } catch {
                return (pattern, HTTPFrontEnd.error(String(describing: error), status: 500))
            }
        }
    }

    /// The media types a cross-site `<form>` or a "simple" `fetch` can send without asking the server
    /// first (CORS): a browser holding a login would let another site's page act with it (docs/SECURITY.md,
    /// "Browsers"). Any other type, or none (the PyPI client posts OPML with none), is read as JSON.
    static let crossSiteTypes: Set<String> = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]

    /// The request's declared body type when it is one of `crossSiteTypes` on a POST. A simple request
    /// (no preflight) can only be a GET, HEAD or POST; a PUT or DELETE from another site's page is
    /// preflighted, and our CORS answer (`*`, no `Allow-Credentials`) lets no login go with it. Those
    /// are left alone because newsboat sends its JSON on PUT declared as a form (libcurl's default).
    static func crossSiteBodyType(_ request: HTTPRequest) -> String? {
        guard request.method == "POST", let header = request.headers["content-type"] else { return nil }
        let type = header.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        return crossSiteTypes.contains(type) ? type : nil
    }

    /// Miniflux's order: `X-Auth-Token` first, and when present it alone decides; else HTTP Basic.
    private func login(_ request: HTTPRequest) async -> LoginVerdict {
        if let token = request.headers["x-auth-token"], !token.isEmpty {
            return await service.authenticate(.token(token), from: request.clientAddress)
        }
        guard let basic = Login.basicCredentials(request), !basic.name.isEmpty, !basic.password.isEmpty else {
            // Nothing presented: no failure to count, but say so when no account exists yet.
            return await service.hasLoginAccount() ? .refused : .noAccount
        }
        return await service.authenticate(.password(name: basic.name, password: basic.password), from: request.clientAddress)
    }

    /// The answer to one of the service's errors: its status, and when to ask again after a 429.
    static func response(to error: AggregatorError) -> HTTPResponse {
        var response = HTTPFrontEnd.error(error.description, status: status(of: error))
        if case .tooManyRequests(_, let seconds) = error { response.headers.append(("Retry-After", String(seconds))) }
        return response
    }

    /// The HTTP status of each of the service's errors.
    static func status(of error: AggregatorError) -> Int {
        switch error {
        case .notFound: 404
        case .alreadySubscribed: 400  // Miniflux: "This feed already exists", a validation error
        case .invalidArgument, .failed: 400
        case .forbidden: 403
        case .unavailable: 503
        case .tooManyRequests: 429
        }
    }

    /// Miniflux's CORS headers: any origin may call the API (it needs credentials anyway).
    private static func withCORS(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers += [("Access-Control-Allow-Origin", "*"),
                             ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"),
                             ("Access-Control-Allow-Headers", "X-Auth-Token, Authorization, Content-Type, Accept")]
        return response
    }

    /// Miniflux sends the entry to the account's third-party services (Pocket, Wallabag, …); we have
    /// none, which Miniflux answers with a 400 before looking at the entry.
    private static func saveEntry(_ request: MinifluxRequest) throws -> HTTPResponse {
        _ = try request.id("entryID")
        throw MinifluxError("no third-party integration enabled")
    }

    // MARK: - User and version

    /// The Miniflux API level served (apps gate features on it), and what really serves it.
    private static func version() -> HTTPResponse {
        MinifluxJSON.response([
            "version": "2.2.0", "commit": .string("aggregatord \(AggregatorVersion.current)"),
            "build_date": .string(buildDate), "go_version": "none (Swift)", "compiler": "swiftc", "arch": "amd64", "os": "linux",
        ])
    }

    /// When the running executable was linked (its file's modification time, which a package keeps),
    /// in RFC 3339 as Miniflux writes its own; "unknown" when the file cannot be read.
    static let buildDate: String = {
        var info = stat()
        guard stat("/proc/self/exe", &info) == 0 else { return "unknown" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)))
    }()
}

/// A request as a handler sees it: the HTTP request and the route's placeholders.
struct MinifluxRequest: Sendable {
    let http: HTTPRequest
    let parameters: [String: String]
    /// The account logged in.
    let account: AccountIdentity

    /// The placeholder `name` as a positive id. - Throws: 400 naming it when it is not one.
    func id(_ name: String) throws(MinifluxError) -> Int64 {
        guard let text = parameters[name], let id = Int64(text), id > 0 else {
            throw MinifluxError("invalid \(name): \(parameters[name] ?? "") is not a positive integer")
        }
        return id
    }

    /// Every value of the query argument `name`, in order.
    func values(_ name: String) -> [String] {
        http.query.filter { $0.name == name }.map(\.value)
    }

    /// The query argument `name` as an integer in `range`, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int64> = 0...Int64.max) throws(MinifluxError) -> Int64? {
        guard let text = http.queryValue(name), !text.isEmpty else { return nil }
        guard let number = Int64(text), range.contains(number) else {
            throw MinifluxError("invalid \(name): \(text) (an integer from \(range.lowerBound) to \(range.upperBound))")
        }
        return number
    }

    /// The query argument `name` as Go's strconv.ParseBool reads it, or nil when absent.
    func flag(_ name: String) throws(MinifluxError) -> Bool? {
        guard let text = http.queryValue(name) else { return nil }
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw MinifluxError("invalid \(name): \(text) (use true or false)")
        }
    }

    /// The body as a JSON object. - Throws: 400 when it is not one.
    func jsonObject() throws(MinifluxError) -> [String: JSONValue] {
        guard let value = try? JSONValue(parsing: http.body), let object = value.object else {
            throw MinifluxError("the request body must be a JSON object")
        }
        return object
    }
}

/// A request the API refuses: a message for `error_message`, and the status.
struct MinifluxError: Error {
    let message: String
    let status: Int

    init(_ message: String, status: Int = 400) {
        (self.message, self.status) = (message, status)
    }
}
