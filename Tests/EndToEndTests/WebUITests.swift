import Foundation
import TestSupport
import Testing

/// The web page: in Debian's headless Chromium (driven by Selenium from PyPI), and by curl for what
/// a browser would never send (posts without the CSRF token, requests without a session).
@Suite(.timeLimit(.minutes(3))) struct WebUITests {
    let password = "correct horse battery"

    private static let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/web_ui_scenario.py")

    /// Where the browser's screenshots go (docs/web.md's come from here).
    private static let artifacts = TestVenv.directory.deletingLastPathComponent().appendingPathComponent("test-artifacts/web")

    /// The whole scenario at 1280×900 (then the hostile feed's article), and again at 360×740.
    @Test(arguments: ["desktop", "phone"])
    func aBrowserLogsInReadsStarsSearchesAddsMarksAndLogsOut(viewport: String) async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.ctl(["add", server.url("/hostile-web.xml")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).output.contains("3 ok"))

        let result = try await TestVenv.run(Self.scenario, [daemon.baseURL, "alice", password, server.url(""),
                                                            Self.artifacts.path, viewport])
        #expect(result.status == 0 && result.output.contains("ok"), "\(result.output)\n\(result.error)")
        // What the browser did is what the CLI sees: the category marked read, the feed added by its page.
        let status = try daemon.ctl(["--json", "articles", "--unread", "--category", "News"]).output
        #expect(status.contains("\"articles\": []"), "\(status)")
        #expect(try daemon.ctl(["--json", "feeds"]).output.contains("\"\(server.url("/feed.xml"))\""))
    }

    @Test func pagesNeedASessionAndFormsTheirCSRFToken() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)

        // Without a session: pages send to the login (keeping where to go), posts are refused.
        let page = try daemon.curl("/starred")
        #expect(page.status == 303 && page.headers["location"] == "/login?next=/starred")
        #expect(try daemon.curl("/entries/mark", ["-d", "ids=1&read=1"]).status == 403)
        #expect(try daemon.curl("/unread", ["-H", "Cookie: aggregatord_session=" + String(repeating: "ab", count: 32)])
            .status == 303)

        // The login form's own token must come back in the form and its cookie.
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let loginPage = try daemon.curl("/login", ["-c", jar])
        let token = try #require(loginPage.body.firstMatch(of: /name="login_token" value="([0-9a-f]{64})"/)?.1)
        let forged = try daemon.curl("/login", ["-d", "login_token=\(token)&name=alice&password=\(password)"])
        #expect(forged.status == 403, "a login posted without the form's cookie was taken")
        let login = try daemon.curl("/login", ["-b", jar, "-c", jar, "-d", "login_token=\(token)&name=alice&password=\(password)"])
        #expect(login.status == 303 && login.headers["location"] == "/unread")
        #expect(login.headers["set-cookie"]?.contains("HttpOnly; SameSite=Lax") == true)
        #expect(login.headers["set-cookie"]?.contains("Secure") == false)
        // Behind a TLS proxy (trusted: loopback by default), the cookie is Secure.
        let proxied = try daemon.curl("/login", ["-H", "X-Forwarded-Proto: https"])
        #expect(proxied.headers["set-cookie"]?.hasSuffix("SameSite=Lax; Secure") == true, "\(proxied.headers)")

        // Signed in: the page carries its CSRF token and the headers that keep content inert.
        let unread = try daemon.curl("/unread", ["-b", jar])
        #expect(unread.status == 200)
        let csp = unread.headers["content-security-policy"] ?? ""
        #expect(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe"))
        #expect(unread.headers["referrer-policy"] == "no-referrer" && unread.headers["x-content-type-options"] == "nosniff")
        let csrf = try #require(unread.body.firstMatch(of: /data-csrf="([0-9a-f]{64})"/)?.1)

        // A post without the token, or with another, is refused and changes nothing.
        #expect(try daemon.curl("/categories", ["-b", jar, "-d", "name=Forged"]).status == 403)
        #expect(try daemon.curl("/categories", ["-b", jar, "-d", "name=Forged&csrf=" + String(repeating: "0", count: 64)])
            .status == 403)
        #expect(try daemon.ctl(["categories"]).output.contains("Forged") == false)
        let made = try daemon.curl("/categories", ["-b", jar, "-d", "name=Made&csrf=\(csrf)"])
        #expect(made.status == 303)
        #expect(try daemon.ctl(["categories"]).output.contains("Made"))

        // Static files are immutable under hashed names; unknown paths are a 404 page.
        let stylesheet = try #require(unread.body.firstMatch(of: /href="(\/static\/app\.[0-9a-f]{12}\.css)"/)?.1)
        let css = try daemon.curl(String(stylesheet))
        #expect(css.status == 200 && css.headers["cache-control"]?.contains("immutable") == true)
        #expect(try daemon.curl("/static/app.000000000000.css").status == 404)

        // Logging out ends the session for good.
        #expect(try daemon.curl("/logout", ["-b", jar, "-d", "csrf=\(csrf)"]).status == 303)
        #expect(try daemon.curl("/unread", ["-b", jar]).status == 303)
    }

    /// An admin creates an account, sets its password and role, and removes it on the users page;
    /// a regular account has no users page.
    @Test func anAdminManagesAccountsOnTheUsersPage() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        try await offThePool { try manageAccounts(daemon) }
    }

    /// The test's body, on a thread of its own (`offThePool`).
    private func manageAccounts(_ daemon: ServedDaemon) throws {
        _ = try daemon.createAccount(name: "alice", password: password)
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let csrf = try logIn(daemon, jar: jar, password: password)
        #expect(try daemon.curl("/unread", ["-b", jar]).body.contains(">Users</a>"), "admins see the link")
        let made = try daemon.curl("/users", ["-b", jar, "-d", "csrf=\(csrf)&name=bob&password=bobs+password"])
        #expect(made.status == 303 && made.headers["location"] == "/users?notice=created", "\(made.status)")
        let page = try daemon.curl("/users?notice=created", ["-b", jar]).body
        #expect(page.contains("The account was created.") && page.contains("<td>bob</td>"))
        let bobMatch = try #require(page.firstMatch(of: /\/users\/([0-9]+)\/remove/)?.1)
        let bob = try #require(Int(bobMatch))
        #expect(try daemon.curl("/users", ["-b", jar, "-d", "csrf=\(csrf)&name=BOB&password=bobs+password"]).status == 400)
        #expect(try daemon.curl("/users/\(bob)/password", ["-b", jar, "-d", "csrf=\(csrf)&password=short"]).status == 400)
        #expect(try daemon.curl("/users/\(bob)/password", ["-b", jar, "-d", "csrf=\(csrf)&password=another+password"]).status == 303)

        // Bob, regular: no users page, no link, and the forms refuse him.
        let bobJar = daemon.directory.appendingPathComponent("bob-cookies").path
        let bobCSRF = try logIn(daemon, jar: bobJar, name: "bob", password: "another password")
        #expect(try daemon.curl("/users", ["-b", bobJar]).status == 403)
        #expect(!(try daemon.curl("/unread", ["-b", bobJar]).body.contains(">Users</a>")))
        #expect(try daemon.curl("/users/1/admin", ["-b", bobJar, "-d", "csrf=\(bobCSRF)&admin=0"]).status == 403)

        #expect(try daemon.curl("/users/\(bob)/admin", ["-b", jar, "-d", "csrf=\(csrf)&admin=1"]).status == 303)
        #expect(try daemon.ctl(["user", "show", "bob"]).output.hasPrefix("User bob (admin)"))
        #expect(try daemon.curl("/users/\(bob)/remove", ["-b", jar, "-d", "csrf=\(csrf)"]).status == 303)
        #expect(try daemon.ctl(["user", "show", "bob"]).status == 1)
        #expect(try daemon.curl("/unread", ["-b", bobJar]).status == 303, "a removed account's session ends")
        let myself = try daemon.curl("/users/1/remove", ["-b", jar, "-d", "csrf=\(csrf)"])
        #expect(myself.status == 400 && myself.body.contains("you cannot remove yourself"))
    }

    /// Logs in with curl: the cookie jar's path and the page's CSRF token.
    private func logIn(_ daemon: ServedDaemon, jar: String, name: String = "alice", password: String) throws -> String {
        try daemon.webLogIn(name: name, password: password, jar: jar)
    }

    @Test func theSettingsAndFeedsFormsDoWhatTheySay() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--deny-private-networks", "false"])
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let otherJar = daemon.directory.appendingPathComponent("other-cookies").path
        let csrf = try logIn(daemon, jar: jar, password: password)
        _ = try logIn(daemon, jar: otherJar, password: password)

        // An OPML file uploaded as a browser does (multipart), then a feed edited and removed.
        let opml = daemon.directory.appendingPathComponent("feeds.opml")
        try """
            <opml version="2.0"><body><outline text="Tech"><outline type="rss" text="Many" xmlUrl="\(server.url("/many.xml"))"/>
            </outline><outline type="rss" text="Old" xmlUrl="\(server.url("/old.xml"))"/></body></opml>
            """.write(to: opml, atomically: true, encoding: .utf8)
        let imported = try daemon.curl("/settings/import", ["-b", jar, "-F", "csrf=\(csrf)", "-F", "opml=@\(opml.path)"])
        #expect(imported.status == 200 && imported.body.contains("Imported: 2 feeds added"), "\(imported.body)")
        let feeds = try daemon.curl("/feeds", ["-b", jar]).body
        let feedID = try #require(feeds.firstMatch(of: /action="\/feed\/([0-9]+)\/remove"/)?.1)
        let edited = try daemon.curl("/feed/\(feedID)/edit", ["-b", jar, "-d", "csrf=\(csrf)&title=Renamed&category=Kept"])
        #expect(edited.status == 303 && edited.headers["location"] == "/feeds?notice=updated")
        #expect(try daemon.ctl(["feeds"]).output.contains("Renamed"))
        #expect(try daemon.curl("/feed/\(feedID)/remove", ["-b", jar, "-d", "csrf=\(csrf)"]).status == 303)
        #expect(try daemon.ctl(["feeds"]).output.contains("Renamed") == false)
        // Any page number gives a page (unclamped, the largest overflowed and stopped the daemon).
        #expect(try daemon.curl("/feeds?page=9223372036854775807", ["-b", jar]).status == 200)
        #expect(try daemon.curl("/feeds?page=-5", ["-b", jar]).status == 200)
        let export = try daemon.curl("/export.opml", ["-b", jar])
        #expect(export.status == 200 && export.body.contains("<opml") && export.body.split(separator: "xmlUrl").count == 2)

        // A token made on the page is shown once and works; revoked, it does not.
        let made = try daemon.curl("/settings/tokens", ["-b", jar, "-d", "csrf=\(csrf)&label=phone"])
        let token = try #require(made.body.firstMatch(of: /id="new-token">([0-9a-f]{64})</)?.1)
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 200)
        #expect(try daemon.curl("/settings", ["-b", jar]).body.contains(String(token)) == false, "the token was shown again")
        let tokenID = try #require(try daemon.curl("/settings", ["-b", jar]).body
            .firstMatch(of: /<li>phone .*?action="\/settings\/tokens\/([0-9]+)\/revoke"/)?.1)
        #expect(try daemon.curl("/settings/tokens/\(tokenID)/revoke", ["-b", jar, "-d", "csrf=\(csrf)"]).status == 303)
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 401)

        // A new password needs the current one, and logs every other browser out.
        let wrong = try daemon.curl("/settings/password", ["-b", jar, "-d", "csrf=\(csrf)&current=nope&new=another one&repeat=another one"])
        #expect(wrong.status == 400 && wrong.body.contains("current password is not right"))
        let changed = try daemon.curl("/settings/password",
                                      ["-b", jar, "-d", "csrf=\(csrf)&current=\(password)&new=another one&repeat=another one"])
        #expect(changed.status == 303)
        #expect(try daemon.curl("/unread", ["-b", jar]).status == 200, "the browser that changed it was logged out")
        #expect(try daemon.curl("/unread", ["-b", otherJar]).status == 303, "another browser stayed logged in")
        #expect(try daemon.curl("/v1/me", ["-u", "alice:another one"]).status == 200)
    }

    @Test func wrongPasswordsAreThrottledAndNeverLogged() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let page = try daemon.curl("/login", ["-c", jar])
        let token = try #require(page.body.firstMatch(of: /name="login_token" value="([0-9a-f]{64})"/)?.1)
        // Five failures are free; then each attempt must wait (1 s, 2 s, … doubling). An attempt that
        // comes after its wait (a slow machine: each is an Argon2id hash) is checked, and the wait
        // doubles: a 429 comes within a few attempts, whatever the machine's speed.
        var statuses: [Int] = []
        for attempt in 0..<10 where !statuses.contains(429) {
            statuses.append(try daemon.curl("/login", ["-b", jar, "-d", "login_token=\(token)&name=alice&password=guess\(attempt)"])
                .status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429
                && statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
        let log = try String(contentsOf: daemon.log, encoding: .utf8)
        #expect(log.contains("Login refused") && !log.contains("guess"))
    }
}
