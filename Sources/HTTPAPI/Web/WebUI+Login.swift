import AggregatorCore
import Credentials
import Foundation
import HTTPServer

extension WebUI {
    // MARK: - Logging in and out

    /// The login form. It carries a random token that must come back with the form and in a
    /// cookie set here (no session exists yet to tie a CSRF token to): another site cannot read
    /// the cookie, so it cannot post a login of its own choosing.
    func loginPage(_ request: HTTPRequest, message: String? = nil, status: Int = 200) async -> HTTPResponse {
        let token = SecretToken.generate()
        let next = Self.localPath(request.queryValue("next") ?? FormBody.pairs(String(decoding: request.body, as: UTF8.self))
            .first { $0.name == "next" }?.value) ?? "/unread"
        var notice: HTML = message.map { "<p class=\"notice error\" role=\"alert\">\($0)</p>" } ?? ""
        if message == nil, await !service.hasLoginAccount() {
            notice = "<p class=\"notice\">No account has a password yet. On the server, set one with "
                + "<code>aggregatorctl user set NAME</code>, then log in here.</p>"
        }
        let html: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Log in · aggregatord</title>
            <link rel="stylesheet" href="\(link(WebAssets.stylesheet.path))">
            <link rel="icon" href="\(link(WebAssets.icon.path))" type="image/svg+xml"></head>
            <body><main class="login" id="main"><h1>aggregatord</h1>\(notice)
            <form method="post" action="\(link("/login"))">
            <input type="hidden" name="login_token" value="\(token)">
            <input type="hidden" name="next" value="\(next)">
            <label for="name">User name</label><input id="name" name="name" autocomplete="username" required maxlength="64" autofocus>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
            <p><button>Log in</button></p></form></main></body></html>
            """
        var response = secured(Self.html(html, status: status))
        response.headers.append(setCookie(Self.loginCookie, token, maxAge: 3600, request))
        return response
    }

    func login(_ request: HTTPRequest) async -> HTTPResponse {
        let form = WebForm(request)
        guard let sent = form.value("login_token"), let expected = cookie(Self.loginCookie, in: request),
              SecretToken.equal(sent, expected) else {
            return await loginPage(request, message: "The login form had expired: please log in again.", status: 403)
        }
        let name = form.value("name") ?? ""
        let password = form.value("password") ?? ""
        guard !name.isEmpty, !password.isEmpty, name.count <= 64, password.count <= 1024 else {
            return await loginPage(request, message: "Enter the user name and the password.", status: 400)
        }
        let userAgent = request.headers["user-agent"] ?? ""
        switch await service.startSession(name: name, password: password, from: request.clientAddress, userAgent: userAgent) {
        case .started(let new):
            let next = Self.localPath(form.value("next")) ?? "/unread"
            return redirect(to: next, request, headers: [
                setCookie(Self.sessionCookie, new.secret, maxAge: Int(AggregatorService.sessionLifetime), request),
                setCookie(Self.loginCookie, "", maxAge: 0, request),
            ])
        case .refused(.throttled(let seconds)):
            var response = await loginPage(request, message: "Too many failed logins from this address: try again in "
                                                 + "\(seconds) s.", status: 429)
            response.headers.append(("Retry-After", String(seconds)))
            return response
        case .refused(.noAccount):
            return await loginPage(request, message: "No account has a password yet: on the server, run "
                                          + "'aggregatorctl user set NAME'.", status: 401)
        case .refused(.unavailable):
            return await loginPage(request, message: "The database cannot be read now: try again in a moment.", status: 503)
        case .refused:
            return await loginPage(request, message: "Wrong user name or password.", status: 401)
        }
    }

    func logout(_ request: WebRequest) async throws -> HTTPResponse {
        try? await service.endSession(id: request.session.id, for: request.account)
        return redirect(to: "/login", request.http, headers: [setCookie(Self.sessionCookie, "", maxAge: 0, request.http)])
    }
}
