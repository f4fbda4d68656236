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
    private static let routes: [(String, String, Handler)] = [
        ("GET", "/v1/me", { api, _ in try await api.me() }),
        ("GET", "/v1/version", { _, _ in version() }),
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
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            return ("/v1 other", HTTPFrontEnd.error("Not Found", status: 404))
        case .methodNotAllowed(let allowed):
            var response = HTTPFrontEnd.error("method \(request.method) not allowed here", status: 405)
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return ("/v1 other", response)
        case .found(let handler, let parameters, let pattern):
            let verdict = await login(request)
            guard verdict == .granted else { return (pattern, Login.refusal(verdict)) }
            do {
                return (pattern, try await handler(self, MinifluxRequest(http: request, parameters: parameters)))
            } catch let error as MinifluxError {
                return (pattern, HTTPFrontEnd.error(error.message, status: error.status))
            } catch let error as AggregatorError {
                return (pattern, HTTPFrontEnd.error(error.description, status: Self.status(of: error)))
            } catch {
                return (pattern, HTTPFrontEnd.error(String(describing: error), status: 500))
            }
        }
    }

    /// Miniflux's order: `X-Auth-Token` first, and when present it alone decides; else HTTP Basic.
    private func login(_ request: HTTPRequest) async -> LoginVerdict {
        if let token = request.headers["x-auth-token"], !token.isEmpty {
            return await service.authenticate(.token(token), from: request.clientAddress)
        }
        guard let basic = Login.basicCredentials(request), !basic.name.isEmpty, !basic.password.isEmpty else {
            // Nothing presented: no failure to count, but say so when no account exists yet.
            return (try? await service.account()) == nil ? .noAccount : .refused
        }
        return await service.authenticate(.password(name: basic.name, password: basic.password), from: request.clientAddress)
    }

    /// The HTTP status of each of the service's errors.
    static func status(of error: AggregatorError) -> Int {
        switch error {
        case .notFound: 404
        case .alreadySubscribed: 409
        case .invalidArgument, .failed: 400
        case .unavailable: 503
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

    // MARK: - User and version

    private func me() async throws -> HTTPResponse {
        let account = try await service.account()
        return MinifluxJSON.response([
            "id": 1, "username": .string(account?.name ?? "owner"), "is_admin": true, "theme": "system_serif",
            "language": "en_US", "timezone": "UTC", "entry_sorting_direction": "desc", "entry_sorting_order": "published_at",
            "entries_per_page": 100, "keyboard_shortcuts": true, "show_reading_time": true, "entry_swipe": true,
            "stylesheet": "", "google_id": "", "openid_connect_id": "", "display_mode": "standalone",
            "last_login_at": .null,
        ])
    }

    /// The Miniflux API level served (apps gate features on it), and what really serves it.
    private static func version() -> HTTPResponse {
        MinifluxJSON.response([
            "version": "2.2.0", "commit": .string("aggregatord \(AggregatorVersion.current)"), "build_date": "",
            "go_version": "none (Swift)", "compiler": "swiftc", "arch": "amd64", "os": "linux",
        ])
    }
}

/// A request as a handler sees it: the HTTP request and the route's placeholders.
struct MinifluxRequest: Sendable {
    let http: HTTPRequest
    let parameters: [String: String]

    /// The placeholder `name` as a positive id. - Throws: 400 naming it when it is not one.
    func id(_ name: String) throws(MinifluxError) -> Int64 {
        guard let text = parameters[name], let id = Int64(text), id > 0 else {
            throw MinifluxError("\(name) must be a positive integer", status: 400)
        }
        return id
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
