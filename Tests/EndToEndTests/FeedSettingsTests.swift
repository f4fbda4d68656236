import Foundation
import TestSupport
import Testing

/// A feed's own fetch settings (docs/ARCHITECTURE.md, §15): a user agent, a cookie, HTTP Basic credentials,
/// ignoring the HTTP cache. They make the feed the account's private copy, fetched with them, whose
/// entries are never merged with anyone else's; the secrets are write-only everywhere.
@Suite(.timeLimit(.minutes(3))) struct FeedSettingsTests {
    let password = "correct horse battery"
    static let secrets = ["open sesame", "s3cret"]

    @Test func aFeedWithItsOwnSettingsIsTheAccountsPrivateCopy() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        try await offThePool { try privateCopies(daemon, server) }
    }

    private func privateCopies(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        func object(_ response: ServedDaemon.Response) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any], "\(response.body)")
        }
        func send(_ method: String, _ path: String, _ body: String) throws -> ServedDaemon.Response {
            try daemon.curl(path, alice + ["-X", method, "-d", body])
        }
        func seen() throws -> String {
            try Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-s", server.url("/members-seen")]).output + "\n"
        }
        func entries(_ feed: Int) throws -> [[String: Any]] {
            try object(try daemon.curl("/v1/feeds/\(feed)/entries?limit=100", alice))["entries"] as? [[String: Any]] ?? []
        }
        func refresh() throws { #expect(try daemon.ctl(["refresh", "--wait"]).status == 0) }
        /// The last request for a /members… path sent each of `lines`.
        func expectSeen(_ lines: String..., sourceLocation: SourceLocation = #_sourceLocation) throws {
            let text = try seen()
            for line in lines { #expect(text.contains(line), "\(line) in \(text)", sourceLocation: sourceLocation) }
        }

        // A feed behind HTTP Basic and a cookie, with a user agent of its own and no HTTP cache.
        let created = try send("POST", "/v1/feeds", """
            {"feed_url": "\(server.url("/members.xml"))", "username": "member", "password": "open sesame",
             "cookie": "session=s3cret; theme=dark", "user_agent": "MembersReader/2.0", "ignore_http_cache": true}
            """)
        #expect(created.status == 201, "\(created.body)")
        let feed = try #require(try object(created)["feed_id"] as? Int)
        try expectSeen("user-agent: MembersReader/2.0", "authorized: True")
        let shown = try daemon.curl("/v1/feeds/\(feed)", alice).body
        for expected in [#""user_agent":"MembersReader/2.0""#, #""username":"member""#, #""password":"""#, #""cookie":"""#,
                         #""ignore_http_cache":true"#] {
            #expect(shown.contains(expected), "\(expected) in \(shown)")
        }
        let listed = try entries(feed)
        #expect(Set(listed.compactMap { $0["title"] as? String }) == ["Members-only take on item 2", "Members only", "Members article"])
        // Its article page, on the feed's own host behind the same login, is fetched with its settings.
        let article = try #require(listed.first { ($0["title"] as? String) == "Members article" }?["id"] as? Int)
        let fetched = try daemon.curl("/v1/entries/\(article)/fetch-content", alice)
        #expect(fetched.status == 200 && fetched.body.contains("Paragraph 1 of the whole story"), "\(fetched.body.prefix(200))")
        try expectSeen("path: /members-page", "authorized: True")
        // Its item at a URL /many.xml carries too is an entry of its own, not the shared one.
        let all = try object(try daemon.curl("/v1/entries?limit=1000", alice))["entries"] as? [[String: Any]] ?? []
        let item2 = all.filter { ($0["url"] as? String) == "http://example.org/many/2" }
        #expect(Set(item2.compactMap { $0["id"] as? Int }).count == 2, "\(item2.map { $0["title"] ?? "" })")
        let neighbours = try daemon.ctl(["--user", "neighbour", "--json", "articles", "--limit", "1000"]).output
        #expect(!neighbours.contains("Members"), "another account never sees what the credentials fetched")

        // The HTTP cache ignored: no validator sent; taken into account again once it is not.
        try refresh()
        try expectSeen("if-none-match: \n")
        #expect(try send("PUT", "/v1/feeds/\(feed)", #"{"ignore_http_cache": false}"#).status == 201)
        try refresh()
        try refresh()
        try expectSeen(#"if-none-match: "m1""#)

        // Secrets are write-only: "" (or absent) keeps them, null clears them.
        #expect(try send("PUT", "/v1/feeds/\(feed)", #"{"password": "", "cookie": "", "title": "Members"}"#).status == 201)
        try refresh()
        try expectSeen("authorized: True")
        #expect(try send("PUT", "/v1/feeds/\(feed)", #"{"cookie": null}"#).status == 201)
        try refresh()
        try expectSeen("cookie: \n", "authorized: False")
        #expect(try daemon.curl("/v1/feeds/\(feed)", alice).body.contains("401"), "the feed shows its error")
        // The CLI sets them as well, the secret from standard input.
        #expect(try daemon.ctl(["edit", String(feed), "--cookie-stdin", "--user-agent", "CLI/1"], input: "session=s3cret\n").status == 0)
        try refresh()
        try expectSeen("authorized: True", "user-agent: CLI/1")

        // And the web page's feed form: the secrets' fields stay empty, an empty one keeps its secret.
        let jar = daemon.directory.appendingPathComponent("alice-cookies").path
        let csrf = try daemon.webLogIn(name: "alice", password: password, jar: jar)
        let form = try daemon.curl("/feed/\(feed)/edit", ["-b", jar]).body
        #expect(form.contains("CLI/1") && form.contains("your private copy"), "\(form.prefix(300))")
        let posted = try daemon.curl("/feed/\(feed)/edit", ["-b", jar, "--data-urlencode", "user_agent=Web/1", "--data-urlencode",
                                                          "username=member", "-d", "password=&cookie=&title=&category=&csrf=\(csrf)"])
        #expect(posted.status == 303, "\(posted.body)")
        try refresh()
        try expectSeen("authorized: True", "user-agent: Web/1")

        // Never shown back: not in any answer, the OPML export, the CLI's JSON, /metrics or the log.
        let answers = [try daemon.curl("/v1/feeds", alice).body, try daemon.curl("/v1/export", alice).body,
                       try daemon.ctl(["--json", "feeds"]).output, try daemon.ctl(["export"]).output,
                       try daemon.curl("/metrics", alice).body, try String(contentsOf: daemon.log, encoding: .utf8),
                       try daemon.curl("/feed/\(feed)/edit", ["-b", jar]).body, try daemon.curl("/feeds", ["-b", jar]).body]
        for (answer, secret) in answers.flatMap({ answer in Self.secrets.map { (answer, $0) } }) {
            #expect(!answer.contains(secret), "\(secret) shown: \(answer.prefix(200))")
        }

        // A redirect to another host carries neither the cookie nor the password there.
        let away = try send("POST", "/v1/feeds", """
            {"feed_url": "\(server.url("/members-away"))", "username": "member", "password": "open sesame",
             "cookie": "session=s3cret"}
            """)
        #expect(away.status == 201, "\(away.body)")
        try expectSeen("path: /members-echo", "cookie: \n", "authorization: \n")

        // Moved for good to another host: the private copy stays where it was (its secrets would follow).
        let moved = try send("POST", "/v1/feeds", """
            {"feed_url": "\(server.url("/members-moved"))", "username": "member", "password": "open sesame"}
            """)
        #expect(moved.status == 201, "\(moved.body)")
        let movedID = try #require(try object(moved)["feed_id"] as? Int)
        try refresh()
        #expect(try daemon.curl("/v1/feeds/\(movedID)", alice).body.contains("/members-moved"), "not moved to localhost")

        // A shared feed given a setting of its own is split off for this account, its id kept; the
        // neighbour keeps the shared one. Back to the defaults, it is the shared feed again.
        let feeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", alice).body.utf8)) as? [[String: Any]]
        let crosspost = try #require(feeds?.first { ($0["feed_url"] as? String)?.hasSuffix("/crosspost.xml") == true }?["id"] as? Int)
        let split = try send("PUT", "/v1/feeds/\(crosspost)", #"{"user_agent": "Split/1"}"#)
        #expect(split.status == 201 && split.body.contains(#""id":\#(crosspost),"#), "\(split.body)")
        try refresh()
        #expect(try entries(crosspost).count == 2)
        let neighboursFeeds = try daemon.ctl(["--user", "neighbour", "--json", "feeds"]).output
        #expect(neighboursFeeds.contains("crosspost.xml") && !neighboursFeeds.contains(#""private": true"#))
        #expect(try send("PUT", "/v1/feeds/\(crosspost)", #"{"user_agent": ""}"#).status == 201)
        #expect(try entries(crosspost).count == 2, "the shared feed's latest document, at once")
        #expect(try daemon.ctl(["--json", "feeds"]).output.components(separatedBy: #""private": true"#).count == 4,
                "members.xml, members-away and members-moved stay private; crosspost.xml is shared again")

        // Accepting a self-signed certificate is an admin's choice.
        #expect(try daemon.ctl(["user", "add", "bea"], input: password + "\n").status == 0)
        let bea = ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", "bea", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        let refused = try daemon.curl("/v1/feeds", bea + ["-X", "POST", "-d",
                                                          #"{"feed_url": "https://example.org/feed", "allow_self_signed_certificates": true}"#])
        #expect(refused.status == 403, "\(refused.body)")
        // Settings that could not be sent as given are refused.
        #expect(try send("PUT", "/v1/feeds/\(feed)", #"{"user_agent": "line\nbreak"}"#).status == 400)
    }
}
