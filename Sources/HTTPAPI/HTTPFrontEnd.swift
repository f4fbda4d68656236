import AggregatorCore
import Foundation
import HTTPServer
import Synchronization

/// The daemon's HTTP front end: routes each request to its answer, over the same service as the
/// control socket: `/healthcheck` (as Miniflux does: `OK`, for reverse proxies and monitors),
/// `/metrics` (Prometheus, to loopback or with a token), the reader-app APIs (Miniflux under `/v1/`,
/// Fever, Google Reader), and every other path to the web page (`WebUI`).
public struct HTTPFrontEnd: Sendable {
    let service: AggregatorService
    private let miniflux: MinifluxAPI
    private let fever: FeverAPI
    private let googleReader: GoogleReaderAPI
    private let web: WebUI
    private let requests = RequestCounts()
    /// The HTTP server's count of requests it shed (answered 503 before any handler), once it runs.
    private let shedCount = ShedCount()
    private let logger: Logger
    /// What every path starts with behind a reverse proxy that serves us under a sub-path; "/" for none.
    private let basePath: String
    private let trustedProxies: TrustedProxies

    public init(service: AggregatorService, logger: Logger = Logger(minimumLevel: .error, component: "http"),
                basePath: String = "/", trustedProxies: TrustedProxies = .loopback) {
        self.service = service
        self.logger = logger
        self.basePath = basePath
        self.trustedProxies = trustedProxies
        miniflux = MinifluxAPI(service: service)
        fever = FeverAPI(service: service)
        googleReader = GoogleReaderAPI(service: service, basePath: basePath, trustedProxies: trustedProxies)
        web = WebUI(service: service, basePath: basePath, trustedProxies: trustedProxies)
    }

    /// Where `/metrics` reads the requests the server shed: they never reach this front end.
    public func countShed(_ count: @escaping @Sendable () -> Int) {
        shedCount.source.withLock { $0 = count }
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var request = request
        request.clientAddress = trustedProxies.client(of: request)
        // Clients that join a base URL ending in "/" with a path starting with one send "//v1/…"
        // (newsboat does): the same path.
        while request.path.contains("//") { request.path = request.path.replacingOccurrences(of: "//", with: "/") }
        let started = ContinuousClock.now
        var (route, response): (String, HTTPResponse)
        if let unprefixed = Self.path(request.path, under: basePath) {
            request.path = unprefixed
            (route, response) = await answer(request)
        } else {
            (route, response) = ("other", Self.error("no such page: \(request.path) (this server is under \(basePath))",
                                                     status: 404))
        }
        // Every 503 (the database busy or away) says when to ask again, on every front end.
        if response.status == 503, !response.headers.contains(where: { $0.0.lowercased() == "retry-after" }) {
            response.headers.append(("Retry-After", String(Self.retryAfterUnavailable)))
        }
        requests.count(route: route, status: response.status)
        // The path only: a query may carry a secret (Fever's api_key, Google Reader's tokens).
        let elapsed = (ContinuousClock.now - started).components
        let milliseconds = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        let fields: KeyValuePairs<String, Any> = ["method": request.method, "path": request.path, "status": response.status,
                                                  "ms": String(format: "%.1f", milliseconds), "client": request.clientAddress]
        logger.log(response.status >= 400 ? .info : .debug, response.status >= 400 ? "HTTP request failed" : "HTTP request",
                   fields)
        return response
    }

    /// The import routes' body limit, `max-import-bytes` (docs/SECURITY.md, "Quotas"): an OPML file over it is
    /// answered 413 naming the key before it is read. Nil for every other route (`HTTPLimits.bodyBytes`).
    public func bodyLimit(method: String, path: String) -> (bytes: Int, refusal: HTTPResponse)? {
        var path = path
        while path.contains("//") { path = path.replacingOccurrences(of: "//", with: "/") }
        guard method == "POST", let path = Self.path(path, under: basePath) else { return nil }
        let imports = path == "/v1/import" || path == "/settings/import"
            || GoogleReaderAPI.path(of: path) == "/reader/api/0/subscription/import"
        guard imports else { return nil }
        // Unlimited still has a bound: the body is held in memory while it is read.
        let limit = service.quotas.importBytes ?? 1 << 30
        // A web form's file comes wrapped in a multipart body.
        let bytes = path == "/settings/import" ? limit + 64 << 10 : limit
        return (bytes, Self.error("the OPML file is larger than max-import-bytes = \(limit) bytes "
            + "(the largest import this server takes; ask an admin)", status: 413))
    }

    /// The response, and the route it counts under.
    private func answer(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        switch request.path {
        case "/healthcheck":
            guard request.method == "GET" || request.method == "HEAD" else { return ("/healthcheck", notAllowed(request)) }
            // Among daemons sharing PostgreSQL: unhealthy while the database does not answer (docs/ARCHITECTURE.md).
            if let cluster = service.cluster, let reason = await cluster.checkDatabase() {
                return ("/healthcheck", .text("database unreachable: \(reason)", status: 503))
            }
            return ("/healthcheck", .text("OK"))
        case "/metrics":
            guard request.method == "GET" || request.method == "HEAD" else { return ("/metrics", notAllowed(request)) }
            // This machine's monitors read it freely; others need an admin's API token (X-Auth-Token or
            // a bearer): the figures are the server's (docs/SECURITY.md, "Counts").
            if !Metrics.isLoopback(request.clientAddress) {
                guard let token = Self.token(in: request) else {
                    return ("/metrics", Self.error("metrics are served to this machine, or with an admin's API token "
                        + "(X-Auth-Token or Authorization: Bearer)", status: 403))
                }
                let verdict = await service.authenticate(.token(token), from: request.clientAddress)
                guard let account = verdict.account else { return ("/metrics", Login.refusal(verdict)) }
                guard (try? await service.isAdmin(account)) == true else {
                    return ("/metrics", Self.error("metrics are the server's: only an admin's token reads them", status: 403))
                }
            }
            do {
                // The server's totals; unread entries are the first admin's (each account has its own).
                let admin = try await service.account(named: nil)
                let page = Metrics.page(status: try await service.status(for: admin), totals: service.refreshTotals,
                                        requests: requests.current, shed: shedCount.value,
                                        node: service.cluster?.name)
                return ("/metrics", HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                                                 body: Data(page.utf8)))
            } catch {
                return ("/metrics", Self.error(error.description, status: 503))
            }
        case let path where FeedIcons.serves(path):
            return ("/feed-icon", await FeedIcons.answer(request, service: service))
        case let path where MinifluxAPI.serves(path):
            return await miniflux.handle(request)
        case let path where FeverAPI.serves(path):
            return await fever.handle(request)
        case let path where GoogleReaderAPI.path(of: path) != nil:
            return await googleReader.handle(request, path: GoogleReaderAPI.path(of: path)!)
        default:
            return await web.handle(request)
        }
    }

    /// The API token a request carries: `X-Auth-Token`, or `Authorization: Bearer` (what Prometheus sends).
    static func token(in request: HTTPRequest) -> String? {
        if let token = request.headers["x-auth-token"], !token.isEmpty { return token }
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// `path` without the base path, or nil when it is not under it.
    static func path(_ path: String, under base: String) -> String? {
        guard base != "/" else { return path }
        if path == base { return "/" }
        guard path.hasPrefix(base + "/") else { return nil }
        return String(path.dropFirst(base.count))
    }

    private func notAllowed(_ request: HTTPRequest) -> HTTPResponse {
        var response = Self.error("method \(request.method) not allowed here", status: 405)
        response.headers.append(("Allow", "GET, HEAD"))
        return response
    }

    /// An error as the reader APIs write them: `{"error_message": "…"}`.
    /// Seconds a client is asked to wait after a 503.
    static let retryAfterUnavailable = 5

    static func error(_ message: String, status: Int) -> HTTPResponse {
        let body = try? JSONSerialization.data(withJSONObject: ["error_message": message], options: [.sortedKeys])
        return .json(body ?? Data(), status: status)
    }
}

/// Where `/metrics` reads the requests the HTTP server shed: they never reach the front end, and
/// the server starts after it.
private final class ShedCount: Sendable {
    let source = Mutex<(@Sendable () -> Int)?>(nil)
    var value: Int { source.withLock { $0 }?() ?? 0 }
}
