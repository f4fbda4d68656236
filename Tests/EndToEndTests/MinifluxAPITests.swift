import Foundation
import Glibc
import TestSupport
import Testing

/// Miniflux's API as apps use it: the `miniflux` client from PyPI and Debian's newsboat against the
/// built daemon, with every mark checked through `aggregatorctl` too (one state behind every front end).
@Suite(.timeLimit(.minutes(3))) struct MinifluxAPITests {
    let password = "correct horse battery"

    private static let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/miniflux_scenario.py")

    @Test func theMinifluxClientFromPyPIWorksEveryRouteItUses() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: password)

        let result = try await TestVenv.run(Self.scenario, [daemon.baseURL, token, "alice", password, server.url("")])
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Int])

        // What the app did is what the CLI sees.
        let starred = try daemon.ctl(["--json", "articles", "--starred"]).output
        #expect(starred.contains("\"id\": \(try #require(ids["starred"]))"))
        let status = try daemon.ctl(["--json", "status"]).output
        #expect(status.contains("\"unread\": 249") && status.contains("\"entries\": 251"), "\(status)")
        #expect(try daemon.ctl(["feeds"]).output.split(separator: "\n").count == 3, "the feed added by the app is gone")
    }

    @Test func newsboatInMinifluxModeReadsTheFeedsAndMarksRead() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)
        let newsboat = try Newsboat(in: daemon.directory, configuration: """
            urls-source "miniflux"
            miniflux-url "\(daemon.baseURL)/"
            miniflux-login "alice"
            miniflux-password "\(password)"
            """)
        let first = try await newsboat.reload()
        // It asks for each feed's entries without a limit, which Miniflux (and we) answer with the newest
        // 100, and counts each entry once: 101 or 102, as the cross-posted item's date came from the feed
        // stored first (one without a date makes it new). Ours, asked the same way:
        let auth = ["-u", "alice:\(password)"]
        let feeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", auth).body.utf8)) as? [[String: Any]]
        var ours: Set<Int> = []
        for feed in feeds ?? [] {
            let page = try daemon.curl("/v1/feeds/\(feed["id"] as? Int ?? 0)/entries?order=published_at&direction=desc", auth)
            let entries = (try JSONSerialization.jsonObject(with: Data(page.body.utf8)) as? [String: Any])?["entries"]
            ours.formUnion((entries as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int })
        }
        #expect(first.status == 0 && first.output.contains("\(ours.count) unread articles") && ours.count >= 101,
                "\(first.output) \(first.error), ours \(ours.count)")

        // newsboat marks its first feed read: Crosspost, listed first as /v1/feeds lists feeds with no
        // category first …
        try await newsboat.runOnStartup("mark-feed-read")
        // … and the daemon sees it (newsboat writes from a background thread: poll).
        var unread = ""
        for _ in 0..<100 {
            unread = try daemon.ctl(["--json", "status"]).output
            if unread.contains("\"unread\": 249") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(unread.contains("\"unread\": 249"), "\(unread)")
        let crosspost = try daemon.ctl(["--json", "articles", "--unread", "--feed", server.url("/crosspost.xml")]).output
        #expect(crosspost.contains("\"articles\": []"), "\(crosspost)")
    }

    /// Miniflux's `hide_globally`: a hidden category's entries leave `globally_visible=true` listings
    /// and stay in every other; `PUT /v1/categories/{id}` changes only the fields it is given.
    @Test func aCategoryHiddenGloballyLeavesTheGlobalListings() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        func json(_ path: String, _ arguments: [String] = []) throws -> (Int, [String: Any]) {
            let response = try daemon.curl(path, auth + arguments)
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]) ?? [:])
        }
        let categories = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/categories", auth).body.utf8))
        let news = try #require((categories as? [[String: Any]])?.first { $0["title"] as? String == "News" }?["id"] as? Int)
        let (hid, hidden) = try json("/v1/categories/\(news)", ["-X", "PUT", "-d", #"{"hide_globally": true}"#])
        #expect(hid == 201 && hidden["hide_globally"] as? Bool == true && hidden["title"] as? String == "News", "\(hidden)")
        let everything = try json("/v1/entries?limit=1").1["total"] as? Int
        let visible = try json("/v1/entries?limit=1&globally_visible=true").1["total"] as? Int
        let inNews = try json("/v1/categories/\(news)/entries?limit=1").1["total"] as? Int
        // Visible: the crosspost feed's own entry, and the entry it shares with a News feed.
        #expect(everything == 251 && inNews == 250 && visible == 2, "\(String(describing: (everything, visible, inNews)))")
        // The feeds (and entries) of the hidden category embed it as hidden.
        let feeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/categories/\(news)/feeds", auth).body.utf8))
        let embedded = try #require((feeds as? [[String: Any]])?.first?["category"] as? [String: Any])
        #expect(embedded["hide_globally"] as? Bool == true, "\(embedded)")
        let (_, renamed) = try json("/v1/categories/\(news)", ["-X", "PUT", "-d", #"{"title": "Later"}"#])
        #expect(renamed["title"] as? String == "Later" && renamed["hide_globally"] as? Bool == true, "\(renamed)")
        #expect(try json("/v1/categories/\(news)", ["-X", "PUT", "-d", "{}"]).0 == 400)
        let (made, created) = try json("/v1/categories", ["-X", "POST", "-d", #"{"title": "Quiet", "hide_globally": true}"#])
        #expect(made == 201 && created["hide_globally"] as? Bool == true, "\(created)")
        // A feed hidden on its own: with News hidden, the crosspost feed (uncategorized) was all the
        // global listing had; hidden too, nothing is left there.
        let feedList = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", auth).body.utf8)) as? [[String: Any]]
        let crosspost = try #require(feedList?.first { ($0["feed_url"] as? String)?.hasSuffix("/crosspost.xml") == true }?["id"] as? Int)
        let (changed, feed) = try json("/v1/feeds/\(crosspost)", ["-X", "PUT", "-d", #"{"hide_globally": true}"#])
        #expect(changed == 201 && feed["hide_globally"] as? Bool == true, "\(feed)")
        #expect(try json("/v1/entries?limit=1&globally_visible=true").1["total"] as? Int == 0)
        #expect(try json("/v1/entries?limit=1").1["total"] as? Int == 251, "still listed where not global")
        #expect(try json("/v1/feeds/\(crosspost)", ["-X", "PUT", "-d", #"{"fetch_via_proxy": true}"#]).0 == 400, "a setting not kept is refused")
        #expect(try json("/v1/feeds/\(crosspost)", ["-X", "PUT", "-d", #"{"hide_globally": false}"#]).1["hide_globally"] as? Bool == false)
        #expect(try json("/v1/entries?limit=1&globally_visible=true").1["total"] as? Int == 2)
    }

    /// A starred entry stays when its feed is removed; apps read `entry.feed` unchecked, so it still
    /// carries one: a stand-in with id 0, titled as removed.
    @Test func aStarredEntryWhoseFeedWasRemovedStillCarriesAFeed() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        #expect(try daemon.ctl(["add", server.url("/feed.xml")]).status == 0)
        _ = try daemon.ctl(["refresh", "--wait"])
        let page = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries?limit=1", auth).body.utf8))
        let entry = try #require(((page as? [String: Any])?["entries"] as? [[String: Any]])?.first?["id"] as? Int)
        #expect(try daemon.curl("/v1/entries/\(entry)/bookmark", auth + ["-X", "PUT"]).status == 204)
        #expect(try daemon.ctl(["remove", server.url("/feed.xml")]).status == 0)
        let kept = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries/\(entry)", auth).body.utf8))
        let feed = try #require((kept as? [String: Any])?["feed"] as? [String: Any], "\(kept)")
        #expect(feed["id"] as? Int == 0 && feed["title"] as? String == "Removed feed" && feed["category"] != nil, "\(feed)")
        #expect((kept as? [String: Any])?["starred"] as? Bool == true)
    }

    /// Flushing the history hides the account's read entries but the starred ones, from every
    /// listing and count; the neighbour who read and starred everything keeps all of it.
    @Test func flushingTheHistoryHidesReadEntriesButTheStarred() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        func object(_ path: String, _ arguments: [String] = []) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try daemon.curl(path, auth + arguments).body.utf8)) as? [String: Any])
        }
        let unread = try #require(try object("/v1/entries?status=unread&limit=3")["entries"] as? [[String: Any]])
        let ids = unread.compactMap { $0["id"] as? Int }
        let before = try object("/v1/entries?status=unread")["total"] as? Int
        #expect(try daemon.curl("/v1/entries", auth + ["-X", "PUT", "-d", #"{"entry_ids":[\#(ids[0]),\#(ids[1])],"status":"read"}"#]).status == 204)
        #expect(try daemon.curl("/v1/entries/\(ids[1])/bookmark", auth + ["-X", "PUT"]).status == 204)
        #expect(try daemon.curl("/v1/flush-history", auth + ["-X", "DELETE"]).status == 202)
        #expect(try daemon.curl("/v1/flush-history", auth + ["-X", "PUT"]).status == 202, "again: nothing left to flush")
        let read = try object("/v1/entries?status=read")
        #expect(read["total"] as? Int == 1 && (read["entries"] as? [[String: Any]])?.first?["id"] as? Int == ids[1], "the starred one stays")
        #expect(try daemon.curl("/v1/entries/\(ids[0])", auth).status == 404)
        #expect(try object("/v1/entries?status=unread")["total"] as? Int == (before ?? 0) - 2, "the unread ones stay unread")
        #expect(try daemon.ctl(["--user", "neighbour", "show", String(ids[0])]).status == 0, "still the neighbour's")
    }

    /// A feed's filter rules hide entries from the account that set them only, and a pattern that
    /// backtracks catastrophically gives up instead of holding the daemon.
    @Test func filterRulesHideEntriesFromTheirAccountOnly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        let neighbour = ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", "neighbour", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        func feedID(_ auth: [String]) throws -> Int {
            let feeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", auth).body.utf8)) as? [[String: Any]]
            return try #require(feeds?.first { ($0["feed_url"] as? String)?.hasSuffix("/many.xml") == true }?["id"] as? Int)
        }
        func total(_ auth: [String], _ feed: Int) throws -> Int? {
            (try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds/\(feed)/entries?limit=1", auth).body.utf8))
                as? [String: Any])?["total"] as? Int
        }
        // A rule change answers after its judging or 300 ms, whichever is first (docs/SECURITY.md,
        // "Filter rules"): on a loaded machine the verdicts land a little later, so the test waits for them.
        func settles(_ auth: [String], _ feed: Int, at expected: Int) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try total(auth, feed) == expected { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return try total(auth, feed) == expected
        }
        let (alices, neighbours) = (try feedID(auth), try feedID(neighbour))
        let ruled = try daemon.curl("/v1/feeds/\(alices)", auth + ["-X", "PUT", "-d", #"{"blocklist_rules": "(?i)item 1\\d\\b"}"#])
        #expect(ruled.status == 201 && ruled.body.contains(#""blocklist_rules":"(?i)item 1\\d\\b""#), "\(ruled.body)")
        #expect(try await settles(auth, alices, at: 240), "Item 10 to Item 19 hidden")
        #expect(try await settles(neighbour, neighbours, at: 250), "the neighbour's view is its own")
        #expect(try daemon.curl("/v1/feeds/\(alices)", auth + ["-X", "PUT", "-d", #"{"keeplist_rules": "(?=x)"}"#]).status == 400)
        let start = ContinuousClock.now
        let slow = try daemon.curl("/v1/feeds/\(alices)", auth + ["-X", "PUT", "-d", #"{"blocklist_rules": "(a+)+$", "title": "Many"}"#])
        #expect(slow.status == 201 && ContinuousClock.now - start < .seconds(10), "gives up, does not hang")
        #expect(try await settles(auth, alices, at: 250), "a pattern that gave up hides nothing; the old rule's hidden are back")
        #expect(try daemon.curl("/v1/feeds/\(alices)", auth + ["-X", "PUT", "-d", #"{"keeplist_rules": "Item 25\\d"}"#]).status == 201)
        #expect(try await settles(auth, alices, at: 1), "Item 250 kept (the blocklist hides none of the rest)")
        #expect(try daemon.curl("/v1/feeds/\(alices)", auth + ["-X", "PUT", "-d", #"{"keeplist_rules": "", "blocklist_rules": ""}"#]).status == 201)
        #expect(try await settles(auth, alices, at: 250))

        // The account's own filter rules (Miniflux's user settings) judge all its feeds the same way.
        let me = try #require((try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/me", auth).body.utf8))
            as? [String: Any])?["id"] as? Int)
        let filtered = try daemon.curl("/v1/users/\(me)", auth + ["-X", "PUT", "-d",
                                                                 #"{"block_filter_entry_rules": "EntryTitle=(?i)^item 2\\d$\nEntryDate=future"}"#])
        #expect(filtered.status == 201, "\(filtered.body)")
        #expect(try await settles(auth, alices, at: 240), "Item 20 to Item 29 hidden")
        #expect(try await settles(neighbour, neighbours, at: 250))
        #expect(try daemon.curl("/v1/users/\(me)", auth + ["-X", "PUT", "-d", #"{"block_filter_entry_rules": ""}"#]).status == 201)
        #expect(try await settles(auth, alices, at: 250))
    }

    @Test func badInputGetsA400ThatNamesTheParameter() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: password)
        let auth = ["-H", "X-Auth-Token: \(token)"]
        let cases: [(String, [String], Int, String)] = [
            ("/v1/entries?limit=abc", [], 400, "invalid limit"),
            ("/v1/entries?order=rank", [], 400, "invalid order"),
            ("/v1/entries?direction=up", [], 400, "invalid direction"),
            ("/v1/entries?status=gone", [], 400, "invalid status"),
            ("/v1/entries?starred=maybe", [], 400, "invalid starred"),
            ("/v1/entries?feed_id=999", [], 400, "invalid feed ID"),
            ("/v1/entries?category_id=999", [], 400, "invalid category ID"),
            ("/v1/entries?after=-5", [], 400, "invalid after"),
            ("/v1/feeds/abc", [], 400, "invalid feedID"),
            ("/v1/feeds/999", [], 404, "no feed with id 999"),
            ("/v1/entries/999999", [], 404, "no entry"),
            ("/v1/entries/9223372036854775807", [], 404, "no entry"),  // id + 1 overflowed and stopped the daemon
            ("/v1/entries", ["-X", "PUT", "-d", "not json"], 400, "JSON object"),
            ("/v1/entries", ["-X", "PUT", "-d", #"{"entry_ids":[1],"status":"gone"}"#], 400, "invalid status"),
            ("/v1/entries", ["-X", "PUT", "-d", #"{"entry_ids":["x"],"status":"read"}"#], 400, "positive integers"),
            ("/v1/entries", ["-X", "PUT", "-d", #"{"entry_ids":[]}"#], 400, "entry_ids"),
            ("/v1/feeds", ["-X", "POST", "-d", #"{"feed_url":"ftp://x/"}"#], 400, "not an http(s) URL"),
            ("/v1/feeds", ["-X", "POST", "-d", #"{"feed_url":"\#(server.url("/many.xml"))"}"#], 400, "already subscribed"),
            ("/v1/categories", ["-X", "POST", "-d", #"{"title":""}"#], 400, "title is required"),
            ("/v1/feeds/1", ["-X", "PATCH"], 405, "not allowed"),
            ("/v1/nothing", [], 404, "Not Found"),
        ]
        for (path, arguments, status, message) in cases {
            let response = try daemon.curl(path, auth + arguments)
            #expect(response.status == status && response.body.contains(message), "\(path): \(response.status) \(response.body)")
            #expect(response.headers["content-type"] == "application/json", "\(path)")
        }
        // Credentials come before routing, as in Miniflux: a bad token is told so on any path.
        for path in ["/v1/nothing", "/v1/users", "/v1/feeds/999", "/v1"] {
            let response = try daemon.curl(path, ["-H", "X-Auth-Token: wrong"])
            #expect(response.status == 401 && response.body.contains("Access Unauthorized"), "\(path): \(response.status)")
        }
        // A client that never finishes its request holds up no one; a huge body is refused unread.
        let slow = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(slow) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = daemon.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(slow, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let partial = "PUT /v1/entries HTTP/1.1\r\nHost: x\r\nX-Auth-Token: \(token)\r\nContent-Length: 100\r\n\r\n{\"entry"
        _ = partial.withCString { send(slow, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #expect(try daemon.curl("/v1/me", auth).status == 200)
        let huge = daemon.directory.appendingPathComponent("huge.json")
        try Data(repeating: UInt8(ascii: " "), count: 2 << 20).write(to: huge)
        let refused = try daemon.curl("/v1/entries", auth + ["-X", "PUT", "--data-binary", "@\(huge.path)"])
        #expect(refused.status == 413, "\(refused.status) \(refused.body)")

        // Large JSON goes out gzipped to a client that takes it.
        let gzipped = try daemon.curl("/v1/entries?limit=50", auth + ["-H", "Accept-Encoding: gzip", "-o", "/dev/null"])
        #expect(gzipped.status == 200 && gzipped.headers["content-encoding"] == "gzip")
        // The daemon is still there and consistent.
        #expect(try daemon.curl("/v1/entries?limit=1", auth).body.contains("\"total\":251"))
    }
}
