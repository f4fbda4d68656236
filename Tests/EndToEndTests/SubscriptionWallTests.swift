import Foundation
import Glibc
@testable import HTTPAPI
import TestSupport
import Testing

/// Every route that subscribes goes through one gate (docs/SECURITY.md, "One gate for subscriptions"
/// and "Quotas"), tried as a hostile regular account would: Bob tries to follow feeds on this
/// machine, one of them an admin's (whose fetches may reach it), through every route of the APIs,
/// the web page and the CLI.
@Suite(.timeLimit(.minutes(3))) struct SubscriptionWallTests {
    let password = "correct horse battery"

    @Test func noRouteSubscribesARegularAccountToAPrivateAddress() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let (listener, port) = try ServedDaemon.listeningSocket()  // never accepts: connections are counted
        defer { close(listener) }
        let daemon = try await ServedDaemon()  // the default rule: private-networks = admins
        defer { daemon.stop() }
        try await offThePool { try walkEveryRoute(daemon, server, lan: "http://127.0.0.1:\(port)/feed.xml") }
        var pending = 0
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        while case let connection = accept(listener, nil, nil), connection >= 0 { close(connection); pending += 1 }
        #expect(pending == 0, "no request reached the private address")
    }

    private func walkEveryRoute(_ daemon: ServedDaemon, _ server: FeedTestServer, lan: String) throws {
        _ = try daemon.createAccount(name: "alice", password: password)
        let adminsFeed = server.url("/many.xml")
        #expect(try daemon.ctl(["add", adminsFeed]).status == 0)
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        // Bob follows one feed (added while he was an admin), to have a feed whose URL he may try to change.
        #expect(try daemon.ctl(["user", "admin", "bob", "on"]).status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/crosspost.xml"), "--category", "Mine"]).status == 0)
        #expect(try daemon.ctl(["user", "admin", "bob", "off"]).status == 0)
        let bob = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let feeds = try JSONSerialization.jsonObject(with: Data(daemon.ctl(["--user", "bob", "--json", "feeds"]).output.utf8))
            as? [String: Any]
        let mine = (feeds?["feeds"] as? [[String: Any]])?.first
        let feedID = mine?["id"] as? Int ?? 0
        let opml = daemon.directory.appendingPathComponent("lan.opml")
        try #"<opml version="2.0"><body><outline xmlUrl="\#(adminsFeed)"/><outline xmlUrl="\#(lan)"/></body></opml>"#
            .write(to: opml, atomically: true, encoding: .utf8)
        let targets = [adminsFeed, lan]

        // The Miniflux API: every POST and PUT route, with each field that names a feed URL.
        for (method, pattern, _) in MinifluxAPI.routes where ["POST", "PUT"].contains(method) {
            let path = pattern.replacingOccurrences(of: "{feedID}", with: String(feedID))
                .replacingOccurrences(of: #"\{[A-Za-z]+\}"#, with: "1", options: .regularExpression)
            for target in targets {
                let body = pattern == "/v1/import" ? ["--data-binary", "@\(opml.path)"]
                    : ["-d", #"{"feed_url":"\#(target)","url":"\#(target)","site_url":"\#(target)","title":"t"}"#]
                let answer = try daemon.curl(path, ["-X", method, "-H", "X-Auth-Token: \(bob)"] + body)
                #expect(answer.status < 500, "\(method) \(pattern): \(answer.status) \(answer.body)")
            }
        }
        // Google Reader: every route, with every argument that names a feed, and the import's OPML.
        let reader = ["-H", "Authorization: GoogleLogin auth=\(bob)"]
        for (_, pattern, _) in GoogleReaderAPI.routes {
            for target in targets {
                let body = pattern.hasSuffix("/subscription/import") ? ["--data-binary", "@\(opml.path)"]
                    : ["quickadd=\(target)", "s=feed/\(target)", "ac=subscribe", "ac=edit", "t=t"].flatMap { ["-d", $0] }
                let answer = try daemon.curl(pattern, reader + body)
                #expect(answer.status < 500, "\(pattern): \(answer.status)")
            }
        }
        // The web page: every form, signed in as Bob.
        let jar = daemon.directory.appendingPathComponent("bob-cookies").path
        let csrf = try daemon.webLogIn(name: "bob", password: password, jar: jar)
        for (method, pattern, _) in WebUI.routes where method == "POST" && !["/logout", "/settings/password"].contains(pattern) {
            let path = pattern.replacingOccurrences(of: "{id}", with: String(feedID))
            for target in targets {
                let body = pattern == "/settings/import" ? ["-F", "csrf=\(csrf)", "-F", "opml=@\(opml.path)"]
                    : ["-d", "csrf=\(csrf)&url=\(target)&feed_url=\(target)&title=t"]
                let answer = try daemon.curl(path, ["-b", jar] + body)
                #expect(answer.status < 500, "\(pattern): \(answer.status)")
            }
        }
        // The CLI, acting for Bob.
        for target in targets { #expect(try daemon.ctl(["--user", "bob", "add", target]).status == 1) }
        let imported = try daemon.ctl(["--user", "bob", "import", opml.path])
        #expect(imported.output.contains("Refused \(adminsFeed): cannot subscribe to \(adminsFeed): address 127.0.0.1 is loopback"),
                "\(imported.output)")

        let followed = try daemon.ctl(["--user", "bob", "--json", "feeds"]).output
        for target in targets { #expect(!followed.contains(target), "Bob follows \(target): \(followed)") }
    }

    /// An import subscribes what it may and names each refused outline with why, on every front end.
    @Test func anImportNamesEveryRefusedOutline() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        let bob = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let lan = server.url("/many.xml")
        func opml(_ outlines: [String]) -> String {
            #"<opml version="2.0"><body>"# + outlines.map { #"<outline xmlUrl="\#($0)"/>"# }.joined() + "</body></opml>"
        }
        // A name that does not resolve is let through: only what resolves to a refused address is refused.
        let file = daemon.directory.appendingPathComponent("a.opml")
        try opml([lan, "http://feeds.invalid/one.xml", "ftp://example.org/x"]).write(to: file, atomically: true, encoding: .utf8)
        let cli = try daemon.ctl(["--user", "bob", "import", file.path])
        #expect(cli.status == 0 && cli.output.contains("Imported 1 feed (0 already subscribed, 1 not http(s))")
            && cli.output.contains("Refused \(lan): cannot subscribe to \(lan): address 127.0.0.1 is loopback "
                + "(refused: private-networks = admins"), "\(cli.output)")

        let partly = try daemon.curl("/v1/import", ["-H", "X-Auth-Token: \(bob)", "--data-binary",
                                                    opml([lan, "http://feeds.invalid/two.xml"])])
        #expect(partly.status == 201 && partly.body.contains("\"error_message\"") && partly.body.contains("private-networks = admins"),
                "\(partly.status) \(partly.body)")
        let refused = try daemon.curl("/v1/import", ["-H", "X-Auth-Token: \(bob)", "--data-binary", opml([lan])])
        #expect(refused.status == 400 && refused.body.contains("cannot subscribe to"), "\(refused.status) \(refused.body)")
        let reader = try daemon.curl("/reader/api/0/subscription/import", ["-H", "Authorization: GoogleLogin auth=\(bob)",
                                                                            "--data-binary", opml([lan])])
        #expect(reader.body.hasPrefix("OK\ncannot subscribe to \(lan)"), "\(reader.body)")
        let jar = daemon.directory.appendingPathComponent("bob-cookies").path
        let csrf = try daemon.webLogIn(name: "bob", password: password, jar: jar)
        try opml([lan]).write(to: file, atomically: true, encoding: .utf8)
        let web = try daemon.curl("/settings/import", ["-b", jar, "-F", "csrf=\(csrf)", "-F", "opml=@\(file.path)"])
        #expect(web.body.contains("Refused: cannot subscribe to \(lan)"), "\(web.body.prefix(2000))")
        let followed = try daemon.ctl(["--user", "bob", "--json", "feeds"]).output
        #expect(!followed.contains(lan) && followed.contains("feeds.invalid/one.xml") && followed.contains("feeds.invalid/two.xml"))
    }

    /// `max-subscriptions`, `max-tokens` and `max-import-bytes` hold for regular accounts, with errors
    /// naming the key, and not for admins; `user show` and `user list --json` show the usage.
    @Test func quotasHoldForRegularAccountsAndNameTheirKeys() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all", "--max-subscriptions", "2",
                                                             "--max-tokens", "2", "--max-import-bytes", "1K"])
        defer { daemon.stop() }
        let alice = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        let bob = ["--user", "bob"]
        #expect(try daemon.ctl(bob + ["add", server.url("/many.xml")]).status == 0)
        #expect(try daemon.ctl(bob + ["add", server.url("/crosspost.xml")]).status == 0)
        let third = try daemon.ctl(bob + ["add", server.url("/other.xml")])
        #expect(third.status == 1 && third.error.contains("max-subscriptions = 2 reached"), "\(third.error)")
        let token = try daemon.ctl(bob + ["token", "create"]).output.trimmingCharacters(in: .newlines)
        let api = try daemon.curl("/v1/feeds", ["-H", "X-Auth-Token: \(token)", "-d", #"{"feed_url":"\#(server.url("/other.xml"))"}"#])
        #expect(api.status == 400 && api.body.contains("max-subscriptions"), "\(api.status) \(api.body)")
        #expect(try daemon.ctl(bob + ["token", "create"]).status == 0)
        let tooMany = try daemon.ctl(bob + ["token", "create"])
        #expect(tooMany.status == 1 && tooMany.error.contains("max-tokens = 2 reached"), "\(tooMany.error)")

        let big = #"<opml version="2.0"><body>"# + String(repeating: "<!-- padding -->", count: 100)
            + #"<outline xmlUrl="\#(server.url("/other.xml"))"/></body></opml>"#
        let refused = try daemon.curl("/v1/import", ["-H", "X-Auth-Token: \(token)", "--data-binary", big])
        #expect(refused.status == 413 && refused.body.contains("max-import-bytes"), "\(refused.status) \(refused.body)")
        let file = daemon.directory.appendingPathComponent("big.opml")
        try big.write(to: file, atomically: true, encoding: .utf8)
        let cli = try daemon.ctl(bob + ["import", file.path])
        #expect(cli.status == 1 && cli.error.contains("max-import-bytes"), "\(cli.error)")

        // Admins are not limited.
        #expect(try daemon.ctl(["import", file.path]).status == 0)
        for _ in 0..<3 { #expect(try daemon.ctl(["token", "create"]).status == 0) }
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(alice)"]).status == 200)

        let shown = try daemon.ctl(["user", "show", "bob"]).output
        #expect(shown.contains("Usage: 2 subscriptions, 2 tokens, 0 entries imported"), "\(shown)")
        let listed = try daemon.ctl(["--json", "user", "list"]).output
        #expect(listed.contains("\"usage\"") && listed.contains("\"entries_imported\""), "\(listed)")
    }
}
