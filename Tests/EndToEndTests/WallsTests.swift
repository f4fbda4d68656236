import Foundation
import TestSupport
import Testing

/// The small walls between accounts and against other sites (docs/SECURITY.md, "Browsers" and "Counts"),
/// tried as a regular account would: Bob follows one feed of the several the admin, Alice, follows.
@Suite(.timeLimit(.minutes(3))) struct WallsTests {
    let password = "correct horse battery"

    /// A new regular account with this name, and the header its API token logs in with.
    private func regularAccount(_ name: String, on daemon: ServedDaemon) throws -> [String] {
        #expect(try daemon.ctl(["user", "add", name], input: password + "\n").status == 0)
        return ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", name, "token", "create"]).output.trimmingCharacters(in: .newlines))"]
    }

    @Test func browsersAreRefusedAndCountsAreTheAccountsOwn() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        try await offThePool { try walls(daemon, server) }
    }

    private func walls(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        let alice = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/crosspost.xml")]).status == 0)
        let bob = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let asBob = ["-H", "X-Auth-Token: \(bob)"]

        // What a cross-site form or a simple fetch can send is refused before anything is read; JSON,
        // any other type, or none is accepted.
        for type in ["text/plain", "Text/Plain; charset=utf-8", "application/x-www-form-urlencoded",
                     "multipart/form-data; boundary=x"] {
            let planted = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: \(type)", "-d", #"{"title":"Planted"}"#])
            #expect(planted.status == 415 && planted.body.contains("send JSON"), "\(type): \(planted.status) \(planted.body)")
        }
        #expect(try daemon.curl("/v1/categories", ["-H", "Content-Type: text/plain", "-d", "{}"]).status == 415,
                "refused before the login is looked at")
        #expect(try !daemon.ctl(["--user", "bob", "categories"]).output.contains("Planted"))
        let json = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: application/json", "-d", #"{"title":"Typed"}"#])
        #expect(json.status == 201, "\(json.body)")
        let other = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: application/vnd.example+json",
                                                               "-d", #"{"title":"Other"}"#])
        #expect(other.status == 201, "\(other.body)")
        let opml = #"<opml version="2.0"><body><outline xmlUrl="\#(server.url("/other.xml"))"/></body></opml>"#
        let untyped = try daemon.curl("/v1/import", asBob + ["-H", "Content-Type:", "--data-binary", opml])
        #expect(untyped.status == 201, "an OPML import with no type, as the PyPI client sends it: \(untyped.body)")

        // A 401 does not make a browser ask for (and then keep sending) a password.
        let refused = try daemon.curl("/v1/me", ["-u", "bob:wrong"])
        #expect(refused.status == 401 && refused.headers["www-authenticate"] == nil)

        // /metrics from another host: an admin's token only.
        let outside = ["-H", "X-Forwarded-For: 198.51.100.7"]
        #expect(try daemon.curl("/metrics", outside + asBob).status == 403)
        #expect(try daemon.curl("/metrics", outside + ["-H", "X-Auth-Token: \(alice)"]).status == 200)

        // Fever's total_items is Bob's own entries, not the server's.
        #expect(try daemon.ctl(["--user", "bob", "user", "fever", "on"], input: password + "\n").status == 0)
        let bobs = try JSONSerialization.jsonObject(with: Data(daemon.ctl(["--user", "bob", "--json", "articles", "--limit", "1000"])
            .output.utf8)) as? [String: Any]
        let bobCount = (bobs?["articles"] as? [Any])?.count ?? -1
        let fever = try daemon.curl("/fever/?api&items", ["-d", "api_key=\(FeverAPITests.md5("bob:\(password)"))"])
        let answer = try JSONSerialization.jsonObject(with: Data(fever.body.utf8)) as? [String: Any]
        let serverTotal = try JSONSerialization.jsonObject(with: Data(daemon.ctl(["--json", "status"]).output.utf8)) as? [String: Any]
        #expect(answer?["total_items"] as? Int == bobCount, "\(fever.body.prefix(300))")
        #expect((serverTotal?["entries"] as? Int ?? 0) > bobCount, "the server holds more than Bob reads")
    }

    /// A regular account's on-demand refreshes are bounded (docs/SECURITY.md): a feed once a minute (429
    /// and Retry-After), refresh-all skips what is limited; the fetch of a new subscription does not
    /// count; admins are not limited.
    @Test func refreshOnDemandIsLimitedForRegularAccounts() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        let bob = try regularAccount("bob", on: daemon)
        let created = try daemon.curl("/v1/feeds", bob + ["-d", #"{"feed_url":"\#(server.url("/many.xml"))"}"#])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["feed_id"] as? Int,
                              "\(created.body)")
        let first = try daemon.curl("/v1/feeds/\(id)/refresh", bob + ["-X", "PUT"])
        #expect(first.status == 204, "subscribing's own fetch does not count: \(first.status) \(first.body)")
        let again = try daemon.curl("/v1/feeds/\(id)/refresh", bob + ["-X", "PUT"])
        let wait = Int(again.headers["retry-after"] ?? "") ?? 0
        #expect(again.status == 429 && (1...60).contains(wait) && again.body.contains("once a minute"),
                "\(again.status) \(again.headers) \(again.body)")
        // Refresh-all with every feed limited fetches nothing, and never everyone's feeds (`refresh` with
        // none named is the whole server's): Alice's feed gets no request from it.
        #expect(try daemon.ctl(["add", server.url("/other.xml")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        func hits(_ path: String) throws -> String {
            try Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-s", server.url("/hits")]).output
                .split(separator: "\n").first { $0.hasSuffix(" " + path) }.map(String.init) ?? "0 \(path)"
        }
        let before = try hits("/other.xml")
        #expect(try daemon.curl("/v1/feeds/refresh", bob + ["-X", "PUT"]).status == 204, "refresh-all skips it")
        try await Task.sleep(for: .seconds(1))
        #expect(try hits("/other.xml") == before, "nobody else's feed fetched")
        let web = daemon.directory.appendingPathComponent("bob-cookies").path
        let csrf = try daemon.webLogIn(name: "bob", password: password, jar: web)
        #expect(try daemon.curl("/feed/\(id)/refresh", ["-b", web, "-d", "csrf=\(csrf)"]).status == 429)

        let mine = try #require((try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", alice).body.utf8))
            as? [[String: Any]])?.first?["id"] as? Int)
        for _ in 0..<3 { #expect(try daemon.curl("/v1/feeds/\(mine)/refresh", alice + ["-X", "PUT"]).status == 204, "admins") }
    }

    /// An entry one account imports is its own, even in a feed that never fetched (docs/SECURITY.md): another
    /// account that follows the feed later, or again, neither lists, counts nor searches it.
    @Test func importedEntriesStayTheImportersWhateverTheFeedsHistory() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        let never = server.url("/status/404")  // a feed that never fetches
        #expect(try daemon.ctl(["add", never]).status == 0)
        let feed = try #require((try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", alice).body.utf8))
            as? [[String: Any]])?.first?["id"] as? Int)
        let imported = try daemon.curl("/v1/feeds/\(feed)/entries/import", alice + ["-d",
            #"{"url": "https://example.org/planted", "title": "Planted story", "content": "<p>planted words</p>"}"#])
        #expect(imported.status == 201, "\(imported.body)")
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        let bob = ["--user", "bob"]
        for round in 1...2 {
            #expect(try daemon.ctl(bob + ["add", never]).status == 0)
            let listed = try daemon.ctl(bob + ["--json", "articles"]).output
            let found = try daemon.ctl(bob + ["--json", "search", "planted"]).output
            let status = try daemon.ctl(bob + ["--json", "feeds"]).output
            #expect(!listed.contains("Planted") && !found.contains("Planted"), "round \(round): \(listed) \(found)")
            #expect(status.contains("\"unread\": 0") && status.contains("\"total\": 0"), "round \(round): \(status)")
            #expect(try daemon.ctl(bob + ["remove", never]).status == 0)
        }
        #expect(try daemon.ctl(["--json", "search", "planted"]).output.contains("Planted story"), "Alice's own")
        #expect(try daemon.ctl(["user", "show", "alice"]).output.contains("1 entry imported"))
        #expect(try daemon.ctl(["user", "show", "bob"]).output.contains("0 entries imported"))
    }

    /// Changing a feed's URL moves the subscription (docs/SECURITY.md): what was fetched at the old URL stays
    /// there, so the next account to follow the new URL is not shown it.
    @Test func aNewFeedURLMovesTheSubscriptionNotTheEntries() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        let bob = try regularAccount("bob", on: daemon)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/many.xml")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).output.contains("1 ok"))
        let id = try #require((try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", bob).body.utf8))
            as? [[String: Any]])?.first?["id"] as? Int)
        let popular = server.url("/status/503")  // stands for a popular URL, not fetched yet
        let moved = try daemon.curl("/v1/feeds/\(id)", bob + ["-X", "PUT", "-d", #"{"feed_url":"\#(popular)"}"#])
        #expect(moved.status == 201, "\(moved.body)")
        #expect(try daemon.ctl(["add", popular]).status == 0)
        let seen = try daemon.ctl(["--json", "articles", "--limit", "1000"]).output
        #expect(seen.contains("\"articles\": []"), "none of many.xml's entries: \(seen.prefix(500))")
        let feeds = try daemon.ctl(["--json", "feeds"]).output
        #expect(!feeds.contains("\"title\": \"Many\""), "nor its title: \(feeds)")
    }

    /// Rules are bounded (docs/SECURITY.md): at most 100 lines of 500 characters; and saving the worst rules
    /// the limits allow answers at once and keeps nobody else waiting, the entries judged again in the
    /// background.
    @Test func rulesAreBoundedAndNeverHoldTheWriter() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/many.xml")]).status == 0)
        let bob = ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        let me = try #require((try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/me", bob).body.utf8))
            as? [String: Any])?["id"] as? Int)
        func rules(_ lines: [String]) throws -> ServedDaemon.Response {
            let body = try JSONSerialization.data(withJSONObject: ["block_filter_entry_rules": lines.joined(separator: "\n")])
            return try daemon.curl("/v1/users/\(me)", bob + ["-X", "PUT", "-d", String(decoding: body, as: UTF8.self)])
        }
        let tooMany = try rules(Array(repeating: "EntryTitle=x", count: 101))
        #expect(tooMany.status == 400 && tooMany.body.contains("over the limit of 100"), "\(tooMany.body)")
        let tooLong = try rules(["EntryTitle=" + String(repeating: "x", count: 500)])
        #expect(tooLong.status == 400 && tooLong.body.contains("over the limit of 500"), "\(tooLong.body)")

        // The worst the limits allow: 100 lines that backtrack exponentially over every entry's content
        // until the budget runs out (each alone would take a budget an entry: 25,000 budgets).
        let worst = (0..<100).map { "EntryContent=(.|.)*z\($0)" }
        let started = ContinuousClock.now
        let saved = try rules(worst)
        #expect(saved.status == 201 && ContinuousClock.now - started < .seconds(3), "answers at once: \(saved.status)")
        let marking = ContinuousClock.now
        #expect(try daemon.curl("/v1/entries", alice + ["-X", "PUT", "-d", #"{"entry_ids":[1,2,3],"status":"read"}"#]).status == 204)
        #expect(ContinuousClock.now - marking < .seconds(1), "another account's mark is not held behind the judging")
    }

    /// A page or an icon fetched for an admin from a private address is not served to a regular account
    /// that follows the same feed (docs/SECURITY.md): its own fetch would have been refused. Bob follows the
    /// feeds (added while he was an admin); everything is on this machine, a private address.
    @Test func pagesAndIconsFromPrivateAddressesAreServedToAdminsOnly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--feed-icons", "true"])  // private-networks = admins
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["user", "admin", "bob", "on"]).status == 0)
        for user in ["alice", "bob"] {
            for path in ["/article.xml", "/iconic.xml"] { #expect(try daemon.ctl(["--user", user, "add", server.url(path)]).status == 0) }
        }
        #expect(try daemon.ctl(["user", "admin", "bob", "off"]).status == 0)
        let bob = ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)

        func feeds(_ auth: [String]) throws -> [[String: Any]] {
            (try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", auth).body.utf8)) as? [[String: Any]]) ?? []
        }
        var iconic: [String: Any] = [:]
        for _ in 0..<150 {
            iconic = try feeds(alice).first { ($0["feed_url"] as? String)?.hasSuffix("/iconic.xml") == true } ?? [:]
            if iconic["icon"] is [String: Any] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(iconic["icon"] is [String: Any], "Alice, an admin, is shown the icon: \(iconic)")
        let bobs = try #require(try feeds(bob).first { ($0["feed_url"] as? String)?.hasSuffix("/iconic.xml") == true })
        #expect(bobs["icon"] is NSNull, "\(bobs)")
        #expect(try daemon.curl("/v1/feeds/\(bobs["id"] as? Int ?? 0)/icon", bob).status == 404)
        let iconID = (iconic["icon"] as? [String: Any])?["icon_id"] as? Int ?? 0
        #expect(try daemon.curl("/v1/icons/\(iconID)", bob).status == 404)

        let ids = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries/ids", alice).body.utf8))
        let entries = ((ids as? [String: Any])?["entry_ids"] as? [Int]) ?? []
        var page = 0
        for id in entries where try daemon.curl("/v1/entries/\(id)/fetch-content", alice).status == 200 { page = id }
        #expect(page != 0, "Alice has the article's page kept")
        // Refused under his own rule, or (fetched for Alice from this machine after he was made a
        // regular account) hidden from him altogether: never the kept page.
        let refused = try daemon.curl("/v1/entries/\(page)/fetch-content", bob)
        #expect((refused.status == 400 && refused.body.contains("private-networks = admins") || refused.status == 404)
                && !refused.body.contains("Paragraph 1"), "\(refused.status) \(refused.body.prefix(300))")
    }

    /// Two feeds carry the same link with different text (many.xml's item 2 has a body, crosspost.xml's
    /// none): each account reads its own feed's text through the API, whichever feed was fetched last
    /// (docs/SECURITY.md, "Text versions").
    @Test func aFeedNeverRewritesWhatAnotherFeedsFollowersRead() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        let bob = try regularAccount("bob", on: daemon)
        func item2(_ auth: [String]) throws -> [String: Any]? {
            let page = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries?limit=1000", auth).body.utf8))
            return ((page as? [String: Any])?["entries"] as? [[String: Any]])?.first { $0["url"] as? String == "http://example.org/many/2" }
        }
        #expect(try daemon.ctl(["--user", "alice", "add", server.url("/many.xml")]).status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/crosspost.xml")]).status == 0)
        let fetches = [("alice", "/many.xml"), ("bob", "/crosspost.xml")]
        for order in [fetches, fetches.reversed()] {
            // Each feed fetched in this order: the last one used to set the text everyone read.
            for (user, path) in order {
                #expect(try daemon.ctl(["--user", user, "refresh", "--wait", server.url(path)]).status == 0)
            }
            let alices = try #require(try item2(alice)), bobs = try #require(try item2(bob))
            #expect((alices["content"] as? String)?.contains("Body of item 2") == true, "\(order): \(alices["content"] ?? "")")
            #expect((bobs["content"] as? String)?.contains("Body of item 2") != true, "\(order): \(bobs["content"] ?? "")")
            #expect(alices["id"] as? Int == bobs["id"] as? Int, "one entry for the link")
            // Searching finds what each reads: item 2's body is alice's text only.
            for (user, auth, found) in [("alice", alice, 1), ("bob", bob, 0)] {
                let page = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries?search=%22body%20of%20item%202%22", auth).body.utf8))
                #expect((page as? [String: Any])?["total"] as? Int == found, "\(user), \(order): \(page)")
                let listed = try daemon.ctl(["--user", user, "--json", "search", "\"body of item 2\""])
                #expect(listed.status == 0 && listed.output.contains("many/2") == (found == 1), "\(user): \(listed.output.prefix(300))")
            }
        }
    }
}
