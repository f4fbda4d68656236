import Foundation
import TestSupport
import Testing

/// Following a feed another account's fetches stored sends no request to its server
/// (docs/ARCHITECTURE.md, "Fetch once"): not to discover it, not to fetch it again, not for its icon,
/// through each route that follows one. A regular account following a stored feed only admins may
/// reach is still refused, with no request either.
@Suite(.timeLimit(.minutes(3))) struct FetchOnceTests {
    let password = "correct horse battery"

    @Test func followingAStoredFeedSendsNoRequestThroughAnyRoute() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        try await offThePool { try follow(daemon, server) }
    }

    private func follow(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        _ = try daemon.createAccount(name: "alice", password: password)
        let paths = ["/many.xml", "/crosspost.xml", "/numbered/0/1", "/numbered/0/2", "/numbered/0/3", "/numbered/0/4"]
        for path in paths {
            #expect(try daemon.ctl(["add", server.url(path)]).status == 0)
            #expect(try daemon.ctl(["refresh", "--wait", server.url(path)]).status == 0)
        }
        // What the server was asked for Alice, once the icons' lookups that follow her fetches are done.
        func hits() throws -> String { try curlBody(server.url("/hits")) }
        var before = try hits()
        for _ in 0..<50 {
            Thread.sleep(forTimeInterval: 0.2)
            let now = try hits()
            if now == before { break }
            before = now
        }

        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        let token = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let bob = ["-H", "X-Auth-Token: \(token)"]
        // Miniflux, as apps subscribe.
        let created = try daemon.curl("/v1/feeds", bob + ["-d", #"{"feed_url": "\#(server.url(paths[0]))"}"#])
        #expect(created.status == 201, "\(created.body)")
        // The CLI.
        #expect(try daemon.ctl(["--user", "bob", "add", server.url(paths[1])]).status == 0)
        // Google Reader's quickadd.
        let login = try daemon.curl("/accounts/ClientLogin", ["-d", "Email=bob", "--data-urlencode", "Passwd=\(password)"]).body
        let auth = login.split(separator: "\n").first { $0.hasPrefix("Auth=") }.map { String($0.dropFirst(5)) } ?? ""
        let quick = try daemon.curl("/reader/api/0/subscription/quickadd",
                                    ["-H", "Authorization: GoogleLogin auth=\(auth)", "--data-urlencode", "quickadd=\(server.url(paths[2]))"])
        #expect(quick.body.contains("\"numResults\":1"), "\(quick.body)")
        // An OPML import of the rest.
        let outlines = paths[3...].map { #"<outline type="rss" xmlUrl="\#(server.url($0))"/>"# }.joined()
        let imported = try daemon.curl("/v1/import", bob + ["-H", "Content-Type: application/xml",
                                                            "-d", "<opml version=\"2.0\"><body>\(outlines)</body></opml>"])
        #expect(imported.status == 201, "\(imported.body)")

        #expect(try hits() == before, "no request for Bob's follows")
        // And Bob reads what was stored: Alice's fetch of many.xml, its 250 items (its latest document).
        let feeds = try daemon.ctl(["--user", "bob", "--json", "feeds"]).output
        #expect(paths.allSatisfy { feeds.contains(server.url($0)) }, "\(feeds)")
        let page = try daemon.curl("/v1/entries?limit=1", bob).body
        #expect(page.contains("\"total\":"), "\(page)")
        #expect(!page.contains("\"total\":0"), "Bob's feeds show their stored entries: \(page.prefix(200))")
    }

    /// A feed nobody follows yet is fetched once when followed: the document discovery fetched is
    /// stored as its first fetch, so its entries are there when the route answers (Miniflux's, which
    /// used to refresh it again and wait; the CLI's, which left it to the scheduler).
    @Test func aNewFeedIsFetchedOnceWhenFollowed() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all", "--feed-icons", "false"])
        defer { daemon.stop() }
        try await offThePool {
            let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
            let created = try daemon.curl("/v1/feeds", auth + ["-d", #"{"feed_url": "\#(server.url("/numbered/0/7"))"}"#])
            #expect(created.status == 201, "\(created.body)")
            let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["feed_id"] as? Int)
            #expect(try daemon.curl("/v1/feeds/\(id)/entries", auth).body.contains("\"total\":20"), "its entries, at once")
            #expect(try daemon.ctl(["add", server.url("/numbered/0/8")]).status == 0)
            #expect(try daemon.ctl(["--json", "articles", "--limit", "100"]).output.components(separatedBy: "\"id\"").count - 1 == 40,
                    "the CLI's too")
            let hits = try curlBody(server.url("/hits"))
            for path in ["/numbered/0/7", "/numbered/0/8"] {
                #expect(hits.contains("1 \(path)\n"), "one request for \(path): \(hits)")
            }
        }
    }

    private func curlBody(_ url: String) throws -> String {
        try Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-s", url]).output
    }
}
