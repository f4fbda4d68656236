import AggregatorCore
import FeedStore
import Foundation
import HTTPServer

extension WebUI {
    // MARK: - The settings page

    private static let settingsNotices = [
        "password": "The password was changed; every other browser was logged out.",
        "token-revoked": "The token was revoked: apps using it are refused from now on.",
        "session-revoked": "That browser was logged out.",
    ]

    /// The account's password, its API tokens and the browsers logged in.
    func settingsPage(_ request: WebRequest, notice: String? = nil, error: String? = nil, secret: String? = nil,
                      status: Int = 200) async throws -> HTTPResponse {
        let page = try await self.page(request, section: "settings")
        let account = request.account
        let tokens = try await service.tokens(for: account)
        let sessions = try await service.sessions(for: account)
        var main: HTML = "<h1>Settings</h1>"
        if let notice = notice ?? request.http.queryValue("notice").flatMap({ Self.settingsNotices[$0] }) {
            main += "<p class=\"notice\" role=\"status\">\(notice)</p>"
        }
        if let error { main += "<p class=\"notice error\" role=\"alert\">\(error)</p>" }
        if let secret {
            main += "<div class=\"notice\" role=\"status\"><p>The new token (shown this once: copy it into your app now):</p>"
                + "<p class=\"secret\" id=\"new-token\">\(secret)</p></div>"
        }
        main += """
            <section aria-labelledby="password-title"><h2 id="password-title">Password of \(account.name)</h2>
            <form method="post" action="\(link("/settings/password"))">\(page.csrfField)
            <input type="hidden" name="name" value="\(account.name)" autocomplete="username">
            <label for="current">Current password</label>
            <input id="current" name="current" type="password" autocomplete="current-password" required maxlength="1024">
            <label for="new">New password (at least \(AggregatorService.minimumPasswordLength) characters)</label>
            <input id="new" name="new" type="password" autocomplete="new-password" required minlength="\(AggregatorService.minimumPasswordLength)" maxlength="1024">
            <label for="repeat">New password again</label>
            <input id="repeat" name="repeat" type="password" autocomplete="new-password" required maxlength="1024">
            <p><button>Change the password</button></p></form></section>
            <section aria-labelledby="tokens-title"><h2 id="tokens-title">API tokens</h2>
            <p class="muted">For apps that log in with a token (Miniflux's X-Auth-Token, Google Reader).</p><ul>
            """
        for token in tokens {
            let used: HTML = token.lastUsedAt.map { "last used \(WebPage.time($0))" } ?? "never used"
            main += "<li>\(token.label) <span class=\"muted\">made \(WebPage.time(token.createdAt)), \(used)</span> "
                + page.button("Revoke", action: "/settings/tokens/\(token.id)/revoke", fields: [], kind: "danger") + "</li>"
        }
        if tokens.isEmpty { main += "<li class=\"muted\">None.</li>" }
        main += """
            </ul><form class="toolbar" method="post" action="\(link("/settings/tokens"))">\(page.csrfField)
            <label class="hidden" for="label">Label of the new token</label>
            <input id="label" name="label" maxlength="100" placeholder="Label, e.g. phone">
            <button>Create a token</button></form></section>
            <section aria-labelledby="sessions-title"><h2 id="sessions-title">Browsers logged in</h2><ul>
            """
        for session in sessions {
            let this: HTML = session.id == request.session.id ? " <strong>(this one)</strong>" : ""
            main += "<li>\(Self.browserName(session.userAgent))\(this) <span class=\"muted\">from "
                + "\(session.address), logged in \(WebPage.time(session.createdAt)), last seen "
                + "\(WebPage.time(session.lastSeenAt))</span> "
                + page.button("Log out", action: "/settings/sessions/\(session.id)/revoke", fields: [], kind: "danger")
                + "</li>"
        }
        main += "</ul></section>"
        return Self.html(page.document(title: "Settings", main: main), status: status)
    }

    // MARK: - Settings actions

    func changePassword(_ request: WebRequest) async throws -> HTTPResponse {
        let new = request.form.value("new") ?? ""
        guard new == request.form.value("repeat") else {
            return try await settingsPage(request, error: "The two new passwords differ.", status: 400)
        }
        do {
            _ = try await service.changePassword(request.account, current: request.form.value("current") ?? "", new: new,
                                                 keepingSession: request.session.id)
        } catch {
            return try await settingsPage(request, error: error.description, status: MinifluxAPI.status(of: error))
        }
        return redirect(to: "/settings?notice=password", request.http)
    }

    func createToken(_ request: WebRequest) async throws -> HTTPResponse {
        let label = (request.form.value("label") ?? "").trimmingCharacters(in: .whitespaces)
        let new: NewToken
        do {
            new = try await service.createToken(for: request.account, label: label.isEmpty ? nil : label)
        } catch {
            return try await settingsPage(request, error: error.description, status: MinifluxAPI.status(of: error))
        }
        // Shown on this answer only; the page is not cached (Cache-Control: no-store).
        return try await settingsPage(request, notice: "Token \(new.token.label) created.", secret: new.secret)
    }

    func revokeToken(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.revokeToken(String(try request.id()), for: request.account)
        return redirect(to: "/settings?notice=token-revoked", request.http)
    }

    func revokeSession(_ request: WebRequest) async throws -> HTTPResponse {
        let id = try request.id()
        try await service.endSession(id: id, for: request.account)
        if id == request.session.id {
            return redirect(to: "/login", request.http, headers: [setCookie(Self.sessionCookie, "", maxAge: 0, request.http)])
        }
        return redirect(to: "/settings?notice=session-revoked", request.http)
    }

    func importOPML(_ request: WebRequest) async throws -> HTTPResponse {
        guard let document = request.form.files["opml"], !document.isEmpty else {
            return try await feedsPage(request, error: "Choose an OPML file to import.", status: 400)
        }
        let summary: ImportSummary
        do {
            summary = try await service.importOPML(document, for: request.account)
        } catch {
            return try await feedsPage(request, error: "That file could not be imported: \(error.description)", status: 400)
        }
        let notice = "Imported: \(summary.added) feeds added, \(summary.skipped) already subscribed, \(summary.invalid) "
            + "without a usable address."
        guard !summary.refused.isEmpty else { return try await feedsPage(request, notice: notice) }
        return try await feedsPage(request, error: notice + " Refused: " + summary.refused.map(\.reason).joined(separator: "; "),
                                   status: 200)
    }

    func exportOPML(_ request: WebRequest) async throws -> HTTPResponse {
        let document = try await service.exportOPML(for: request.account)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/x-opml; charset=utf-8"),
                                                   ("Content-Disposition", "attachment; filename=\"aggregatord.opml\"")],
                            body: Data(document.utf8))
    }

    /// A short name for a browser from its User-Agent, to tell sessions apart.
    static func browserName(_ userAgent: String) -> String {
        let browsers = ["Firefox", "Edg", "OPR", "Chrome", "Safari"]
        let systems = ["Android", "iPhone", "iPad", "Windows", "Mac OS X", "Linux", "CrOS"]
        let browser = browsers.first { userAgent.contains($0 + "/") }.map { $0 == "Edg" ? "Edge" : $0 == "OPR" ? "Opera" : $0 }
        let system = systems.first { userAgent.contains($0) }.map { $0 == "Mac OS X" ? "macOS" : $0 == "CrOS" ? "ChromeOS" : $0 }
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "a browser on \(system)"
        default: return userAgent.isEmpty ? "an unknown browser" : String(userAgent.prefix(60))
        }
    }
}
