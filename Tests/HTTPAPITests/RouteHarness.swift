@testable import AggregatorCore
import FeedFetcher
import FeedStore
import Foundation
@testable import HTTPAPI
import HTTPServer
import TestSupport
import Testing

/// The daemon's HTTP front end in-process (no daemon, no client): a real store, service and
/// `HTTPFrontEnd`, called with `HTTPRequest` values. Ann (account 1, an admin) follows a feed from a
/// local server, renamed, filed under a category, with an entry edited and a token labelled, each
/// named by a marker only her answers may hold; Bea, a regular account, follows nothing.
final class RouteHarness: Sendable {
    static let password = "correct horse battery"
    /// Text only Ann's answers may hold.
    static let markers = ["Ann private feed", "AnnTech", "Ann edited title", "ann-phone"]

    let server: FeedTestServer
    let directory: URL
    let service: AggregatorService
    let frontEnd: HTTPFrontEnd
    let ann: AccountIdentity
    let bea: AccountIdentity
    let annToken: String
    let beaToken: String
    /// Ann's ids: her subscription, category, an entry of her feed, her token.
    let feed: Int64, category: Int64, entry: Int64, tokenID: Int64

    init() async throws {
        server = try FeedTestServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // SQLite, or a new database on the PostgreSQL test cluster (`make test-postgres`).
        let store = try FeedStore(path: try testDatabase(in: directory, named: "routes.db"))
        let logger = Logger(minimumLevel: .error, component: "test", journald: false) { _ in }
        let pipeline = RefreshPipeline(store: store, fetcher: FeedFetcher(userAgent: "aggregatord-test"), logger: logger)
        service = AggregatorService(store: store, scheduler: Scheduler(store: store, pipeline: pipeline, logger: logger),
                                    pipeline: pipeline)
        frontEnd = HTTPFrontEnd(service: service)
        _ = try await service.setPassword(name: "admin", password: Self.password)
        ann = try await service.account(named: nil)
        let beaSummary = try await service.addAccount(name: "bea", password: Self.password, isAdmin: false)
        bea = AccountIdentity(id: beaSummary.id, name: "bea", isAdmin: false)
        let annNew = try await service.createToken(for: ann, label: "ann-phone")
        (annToken, tokenID) = (annNew.secret, annNew.token.id)
        beaToken = try await service.createToken(for: bea, label: "bea").secret
        let added = try await service.addFeed(url: server.url("/feed.xml"), category: "AnnTech", for: ann)
        feed = added.feed.id.rawValue
        _ = try await service.refresh([.id(SubscriptionID(feed))], wait: true, for: ann)
        _ = try await service.updateFeed(.id(SubscriptionID(feed)), FeedChanges(title: "Ann private feed"), for: ann)
        category = try #require(try await service.categories(for: ann).first { $0.name == "AnnTech" }?.id)
        entry = try #require(try await service.articles(ArticleQuery(feed: .id(SubscriptionID(feed))), for: ann).articles.first?.id.rawValue)
        _ = try await service.editEntry(id: EntryID(entry), title: "Ann edited title", content: nil, for: ann)
    }

    deinit {
        service.stopFetching()
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    struct Answer {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// `method path` with `headers` (names in lower case, as the server gives them) and `body`; a query
    /// in `path` is split off as the server does.
    func call(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") async -> Answer {
        var (bare, query) = (path, [(name: String, value: String)]())
        if let mark = path.firstIndex(of: "?") {
            bare = String(path[..<mark])
            query = FormBody.pairs(String(path[path.index(after: mark)...]))
        }
        let request = HTTPRequest(method: method, path: bare, query: query, headers: headers, body: Data(body.utf8),
                                  clientAddress: "127.0.0.1")
        let response = await frontEnd.handle(request)
        return Answer(status: response.status, headers: response.headers, body: String(decoding: response.body, as: UTF8.self))
    }

    /// A web session for `name`: the login form's token and cookie, then the session cookie and the
    /// CSRF token of its pages.
    func webLogIn(_ name: String) async throws -> (cookie: String, csrf: String) {
        let form = await call("GET", "/login")
        let loginCookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let token = try #require(Self.value(of: "login_token", in: form.body))
        let posted = await call("POST", "/login", headers: ["cookie": loginCookie, "content-type": "application/x-www-form-urlencoded"],
                                body: "login_token=\(token)&name=\(name)&password=\(Self.password.replacingOccurrences(of: " ", with: "+"))")
        let cookies: [String] = posted.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        let prefix = WebUI.sessionCookie + "="
        let setCookie: String = try #require(cookies.first { $0.hasPrefix(prefix) })
        let session = String(setCookie.prefix { $0 != ";" })
        let page = await call("GET", "/settings", headers: ["cookie": session])
        let csrf = try #require(page.body.range(of: "data-csrf=\"").map { page.body[$0.upperBound...].prefix { $0 != "\"" } })
        return (session, String(csrf))
    }

    private static func value(of field: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(field)\" value=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    /// Ann's markers in `text` that `sent` (the request itself) did not hold.
    static func leaked(_ text: String, sent: String = "") -> [String] {
        markers.filter { text.contains($0) && !sent.contains($0) }
    }
}
