import AggregatorCore
import Credentials
import FeedStore
import Foundation
import HTTPServer

/// The web page to read in: server-rendered HTML over the same service as the APIs. Every page
/// needs a session (a cookie from the login form); every form post carries the session's CSRF
/// token; every answer carries a Content-Security-Policy that allows no inline script and no
/// frames, so that even an article's HTML that slipped past the sanitizer could run nothing.
struct WebUI: Sendable {
    typealias Handler = @Sendable (WebUI, WebRequest) async throws -> HTTPResponse

    let service: AggregatorService
    let basePath: String
    let trustedProxies: TrustedProxies
    private let router: Router<Handler>

    static let sessionCookie = "aggregatord_session"
    static let loginCookie = "aggregatord_login"

    init(service: AggregatorService, basePath: String, trustedProxies: TrustedProxies) {
        (self.service, self.basePath, self.trustedProxies) = (service, basePath, trustedProxies)
        var router = Router<Handler>()
        for (method, pattern, handler) in Self.routes { router.add(method, pattern, handler) }
        self.router = router
    }

    /// The pages and form actions that need a session (login, logout and assets are answered first).
    static let routes: [(String, String, Handler)] = [
        ("GET", "/", { web, request in web.redirect(to: "/unread", request.http) }),
        ("GET", "/unread", { web, request in try await web.listing(request, kind: .unread) }),
        ("GET", "/starred", { web, request in try await web.listing(request, kind: .starred) }),
        ("GET", "/history", { web, request in try await web.listing(request, kind: .history) }),
        ("POST", "/history/flush", { web, request in try await web.flushHistory(request) }),
        ("GET", "/search", { web, request in try await web.listing(request, kind: .search) }),
        ("GET", "/uncategorized", { web, request in try await web.listing(request, kind: .uncategorized) }),
        ("POST", "/uncategorized/mark-read", { web, request in try await web.markUncategorizedRead(request) }),
        ("GET", "/category/{id}", { web, request in try await web.listing(request, kind: .category(try request.id())) }),
        ("GET", "/feed/{id}", { web, request in try await web.listing(request, kind: .feed(try request.id())) }),
        ("GET", "/entry/{id}", { web, request in try await web.entryPage(request) }),
        ("POST", "/entry/{id}/fetch-content", { web, request in try await web.fetchOriginalContent(request) }),
        ("POST", "/entries/mark", { web, request in try await web.markEntries(request) }),
        ("POST", "/category/{id}/mark-read", { web, request in try await web.markCategoryRead(request) }),
        ("POST", "/feed/{id}/mark-read", { web, request in try await web.markFeedRead(request) }),
        ("GET", "/feeds", { web, request in try await web.feedsPage(request) }),
        ("POST", "/feeds", { web, request in try await web.addFeed(request) }),
        ("GET", "/feed/{id}/edit", { web, request in try await web.editFeedPage(request) }),
        ("POST", "/feed/{id}/edit", { web, request in try await web.updateFeed(request) }),
        ("POST", "/feed/{id}/refresh", { web, request in try await web.refreshFeed(request) }),
        ("POST", "/feed/{id}/remove", { web, request in try await web.removeFeed(request) }),
        ("POST", "/categories", { web, request in try await web.createCategory(request) }),
        ("POST", "/category/{id}/rename", { web, request in try await web.renameCategory(request) }),
        ("POST", "/category/{id}/remove", { web, request in try await web.removeCategory(request) }),
        ("GET", "/settings", { web, request in try await web.settingsPage(request) }),
        ("GET", "/users", { web, request in try await web.usersPage(request) }),
        ("POST", "/users", { web, request in try await web.createUser(request) }),
        ("POST", "/users/{id}/password", { web, request in try await web.setUserPassword(request) }),
        ("POST", "/users/{id}/admin", { web, request in try await web.setUserAdmin(request) }),
        ("POST", "/users/{id}/remove", { web, request in try await web.removeUser(request) }),
        ("POST", "/settings/password", { web, request in try await web.changePassword(request) }),
        ("POST", "/settings/tokens", { web, request in try await web.createToken(request) }),
        ("POST", "/settings/tokens/{id}/revoke", { web, request in try await web.revokeToken(request) }),
        ("POST", "/settings/sessions/{id}/revoke", { web, request in try await web.revokeSession(request) }),
        ("POST", "/settings/import", { web, request in try await web.importOPML(request) }),
        ("GET", "/export.opml", { web, request in try await web.exportOPML(request) }),
        ("POST", "/logout", { web, request in try await web.logout(request) }),
    ]

    /// The answer, and the route it counts under.
    func handle(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        if let asset = WebAssets.asset(at: request.path) {
            guard request.method == "GET" || request.method == "HEAD" else { return ("/static", notFound()) }
            return ("/static", asset.response)
        }
        if request.path == "/favicon.ico" { return ("/static", redirect(to: WebAssets.icon.path, request)) }
        if request.path == "/login" {
            switch request.method {
            case "GET", "HEAD": return ("/login", await loginPage(request))
            case "POST": return ("/login", await login(request))
            default: return ("/login", notFound())
            }
        }
        switch router.match(method: request.method, path: request.path) {
        case .notFound, .methodNotAllowed:
            return ("web other", notFound())
        case .found(let handler, let parameters, let pattern):
            let found: (WebSession, AccountIdentity)?
            do {
                found = try await self.session(of: request)
            } catch {
                return (pattern, secured(.text("the database cannot be read now; retry in a moment", status: 503)))
            }
            guard let (session, account) = found, let secret = cookie(Self.sessionCookie, in: request) else {
                if request.method == "GET" || request.method == "HEAD" {
                    let next = request.path == "/" ? "" : "?next=" + (request.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["/", "-", "_"])) ?? "")
                    return (pattern, redirect(to: "/login" + next, request))
                }
                return (pattern, secured(.text("your session has ended: log in again", status: 403)))
            }
            var web = WebRequest(http: request, parameters: parameters, session: session, account: account,
                                 csrf: Self.csrfToken(secret))
            if request.method == "POST" {
                web.form = WebForm(request)
                // The token of this session, from the form or (the page's script) a header.
                let sent = web.form.value("csrf") ?? request.headers["x-csrf-token"] ?? ""
                guard SecretToken.equal(sent, web.csrf) else {
                    return (pattern, secured(.text("this form has expired or did not come from this site: reload the page "
                                                   + "and try again", status: 403)))
                }
            }
            do {
                return (pattern, secured(try await handler(self, web)))
            } catch let error as AggregatorError {
                return (pattern, secured(await errorPage(web, message: error.description,
                                                         status: MinifluxAPI.status(of: error))))
            } catch let error as WebError {
                return (pattern, secured(await errorPage(web, message: error.message, status: error.status)))
            } catch {
                return (pattern, secured(await errorPage(web, message: String(describing: error), status: 500)))
            }
        }
    }

    // MARK: - Sessions and tokens

    /// The session the request's cookie names, if it is live.
    private func session(of request: HTTPRequest) async throws(AggregatorError) -> (WebSession, AccountIdentity)? {
        guard let secret = cookie(Self.sessionCookie, in: request) else { return nil }
        return try await service.session(secret: secret)
    }

    /// The CSRF token of a session: a digest of its secret, so a page can carry it without the
    /// cookie's value, and no table holds it.
    static func csrfToken(_ secret: String) -> String {
        SecretToken.digest("csrf " + secret)
    }

    func cookie(_ name: String, in request: HTTPRequest) -> String? {
        guard let header = request.headers["cookie"], header.utf8.count <= 8192 else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Lax, scoped to the base path, Secure when the
    /// browser reached us over HTTPS through a trusted proxy.
    func setCookie(_ name: String, _ value: String, maxAge: Int, _ request: HTTPRequest) -> (String, String) {
        let secure = trustedProxies.isHTTPS(request) ? "; Secure" : ""
        return ("Set-Cookie", "\(name)=\(value); Path=\(basePath); Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)")
    }

    // MARK: - Answers

    /// The headers every page and form answer carries.
    func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers += [
            ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' http: https:; "
                + "media-src http: https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            ("Cache-Control", "no-store"),
        ]
        return response
    }

    static func html(_ page: HTML, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(page.markup.utf8))
    }

    /// 303 to `path` under the base path (after a form post: reloading the page does not post again).
    func redirect(to path: String, _ request: HTTPRequest, headers: [(String, String)] = []) -> HTTPResponse {
        let location = basePath == "/" ? path : basePath + path
        return secured(HTTPResponse(status: 303, headers: [("Location", location)] + headers))
    }

    /// After a form post: 204 for the page's script (it updates the page itself), else back to `back`
    /// when it is one of our paths, else to `fallback`.
    func done(_ request: WebRequest, fallback: String) -> HTTPResponse {
        if request.http.headers["x-requested-with"] == "fetch" { return HTTPResponse(status: 204) }
        return redirect(to: Self.localPath(request.form.value("back")) ?? fallback, request.http)
    }

    /// `path` when it is a path of this site ("/…", not "//host/…"), else nil.
    static func localPath(_ path: String?) -> String? {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"), path.count <= 2000,
              !path.unicodeScalars.contains(where: { $0.value < 0x20 }) else { return nil }
        return path
    }

    func notFound() -> HTTPResponse {
        secured(Self.html("""
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found · aggregatord</title>
            <link rel="stylesheet" href="\(link(WebAssets.stylesheet.path))"></head>
            <body><main class="login"><h1>Not found</h1><p>There is no page here. <a href="\(link("/unread"))">Unread articles</a></p>
            </main></body></html>
            """, status: 404))
    }

    func link(_ path: String) -> String {
        basePath == "/" ? path : basePath + path
    }

    /// The frame of a signed-in page, with the counts of the sidebar and navigation filled in.
    func page(_ request: WebRequest, section: String, search: String = "") async throws -> WebPage {
        var page = WebPage(base: basePath, csrf: request.csrf, section: section, search: search)
        page.showsUsers = request.account.isAdmin
        let counts = try await service.readingCounts(for: request.account)
        page.categories = counts.categories
        page.uncategorizedUnread = counts.uncategorizedFeeds == 0 ? nil : counts.uncategorizedUnread
        page.unread = counts.unread
        return page
    }

    private func errorPage(_ request: WebRequest, message: String, status: Int) async -> HTTPResponse {
        let main: HTML = "<h1>That did not work</h1><p class=\"notice error\" role=\"alert\">\(message)</p>"
            + "<p><a href=\"\(link("/unread"))\">Back to unread articles</a></p>"
        let page = (try? await self.page(request, section: "")) ?? WebPage(base: basePath, csrf: request.csrf)
        return Self.html(page.document(title: "Error", main: main), status: status)
    }
}

/// A request to a signed-in page: the HTTP request, the route's placeholders, the session, and
/// (for posts) the form.
struct WebRequest: Sendable {
    let http: HTTPRequest
    let parameters: [String: String]
    let session: WebSession
    /// The account logged in.
    let account: AccountIdentity
    let csrf: String
    var form = WebForm()

    /// The route's `{id}`.
    func id() throws(WebError) -> Int64 {
        guard let text = parameters["id"], let id = Int64(text), id > 0 else {
            throw WebError("not a valid id: \(parameters["id"] ?? "")", status: 404)
        }
        return id
    }
}

/// A form post's fields: url-encoded, or multipart (a file upload).
struct WebForm: Sendable {
    var fields: [(name: String, value: String)] = []
    var files: [String: Data] = [:]

    init() {}

    init(_ request: HTTPRequest) {
        let type = request.headers["content-type"] ?? ""
        if type.lowercased().hasPrefix("multipart/form-data"), let parts = MultipartForm.parts(of: request.body, contentType: type) {
            for part in parts {
                if part.filename != nil { files[part.name] = part.body } else { fields.append((part.name, String(decoding: part.body, as: UTF8.self))) }
            }
        } else {
            fields = FormBody.pairs(String(decoding: request.body, as: UTF8.self))
        }
    }

    func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }
}

/// A web page's own error: shown on an error page with its status.
struct WebError: Error {
    let message: String
    let status: Int

    init(_ message: String, status: Int = 400) {
        (self.message, self.status) = (message, status)
    }
}
