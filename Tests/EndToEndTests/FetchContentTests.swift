import Foundation
import TestSupport
import Testing

/// Full article content (docs/ARCHITECTURE.md): Miniflux's `fetch-content` and the web page's "Fetch original
/// content" extract a teaser's page once, sanitized, and show it instead of the feed's content only
/// to the account that asked.
@Suite(.timeLimit(.minutes(2))) struct FetchContentTests {
    let password = "correct horse battery"

    @Test func thePageIsExtractedOnceAndShownToWhoAskedOnly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        try await offThePool { try fetchAsTwoAccounts(daemon, server) }
    }

    /// The crawler: an account with `crawler` on sees each new entry's article from its page, fetched
    /// once, after the round; another account following the same feed still sees the feed's text.
    @Test func theCrawlerShowsNewEntriesPagesToWhoTurnedItOn() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        defer { daemon.stop() }
        try await offThePool {
            _ = try daemon.createAccount(name: "ann", password: password)
            #expect(try daemon.ctl(["user", "add", "bea"], input: password + "\n").status == 0)
            let feed = try daemon.ctl(["add", server.url("/article.xml")])
            let id = try #require(feed.output.firstMatch(of: /Added feed (\d+)/)?.1, "\(feed.output)")
            #expect(try daemon.ctl(["edit", String(id), "--crawler", "on"]).status == 0)
            #expect(try daemon.ctl(["--json", "feeds"]).output.contains("\"crawler\": true"))
            #expect(try daemon.ctl(["--user", "bea", "add", server.url("/article.xml")]).status == 0)
            #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
            let entry = try #require(try daemon.ctl(["--json", "articles"]).output.firstMatch(of: /"id": (\d+)/)?.1)
            // The pass runs after the round, never during it: wait for it (10 s at most).
            var shown = ""
            for _ in 0..<100 where !shown.contains("Paragraph 1 of the whole story") {
                Thread.sleep(forTimeInterval: 0.1)
                shown = try daemon.ctl(["show", String(entry)]).output
            }
            #expect(shown.contains("Paragraph 1 of the whole story") && !shown.contains("<script"), "\(shown.prefix(300))")
            #expect(try daemon.ctl(["--user", "bea", "show", String(entry)]).output.contains("Only the first line"))
            let hits = try Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-s", server.url("/hits")]).output
            #expect(hits.contains("1 /articles/1.html"), "the page fetched once: \(hits)")
        }
    }

    /// The test's body, on a thread of its own (`offThePool`).
    private func fetchAsTwoAccounts(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        let ann = try daemon.createAccount(name: "ann", password: password)
        #expect(try daemon.ctl(["user", "add", "bea"], input: password + "\n").status == 0)
        let bea = try daemon.ctl(["--user", "bea", "token", "create"]).output.trimmingCharacters(in: .newlines)
        for user in ["ann", "bea"] { #expect(try daemon.ctl(["--user", user, "add", server.url("/article.xml")]).status == 0) }
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        let annAuth = ["-H", "X-Auth-Token: \(ann)"], beaAuth = ["-H", "X-Auth-Token: \(bea)"]
        let ids = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries/ids", annAuth).body.utf8))
        let id = try #require(((ids as? [String: Any])?["entry_ids"] as? [Int])?.first)

        // Asked without update_content: the article comes back, the entry keeps the feed's teaser.
        let fetched = try daemon.curl("/v1/entries/\(id)/fetch-content", beaAuth)
        #expect(fetched.status == 200, "\(fetched.body)")
        let content = try #require((try JSONSerialization.jsonObject(with: Data(fetched.body.utf8)) as? [String: Any])?["content"] as? String)
        #expect(content.contains("Paragraph 1 of the whole story") && content.contains("Paragraph 6"))
        #expect(!content.contains("Sidebar headline") && !content.contains("First comment") && !content.contains("Footer links"))
        #expect(!content.contains("<script") && !content.contains("javascript:"), "sanitized as all content")
        #expect(content.contains("/images/figure.png"), "its figure kept, the address made absolute")
        #expect(try daemon.curl("/v1/entries/\(id)", beaAuth).body.contains("Only the first line"))

        // update_content: Bea sees the article from now on; Ann still sees the feed's teaser.
        #expect(try daemon.curl("/v1/entries/\(id)/fetch-content?update_content=true", beaAuth).status == 200)
        let beas = try daemon.curl("/v1/entries/\(id)", beaAuth).body
        #expect(beas.contains("Paragraph 1 of the whole story") && !beas.contains("Only the first line"))
        #expect(try daemon.curl("/v1/entries/\(id)", annAuth).body.contains("Only the first line"))
        #expect(try daemon.ctl(["--user", "bea", "show", String(id)]).output.contains("Paragraph 1 of the whole story"))
        #expect(try daemon.ctl(["show", String(id)]).output.contains("Only the first line"))

        // The web page's button does the same for Ann.
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let csrf = try daemon.webLogIn(name: "ann", password: password, jar: jar)
        let entryPage = try daemon.curl("/entry/\(id)", ["-b", jar]).body
        #expect(entryPage.contains("Fetch original content") && entryPage.contains("Only the first line"))
        let pressed = try daemon.curl("/entry/\(id)/fetch-content", ["-b", jar, "-d", "csrf=\(csrf)"])
        #expect(pressed.status == 303 && pressed.headers["location"] == "/entry/\(id)")
        #expect(try daemon.curl("/entry/\(id)", ["-b", jar]).body.contains("Paragraph 1 of the whole story"))

        // Not an entry of the asker's, or not there: 404.
        #expect(try daemon.curl("/v1/entries/999999/fetch-content", beaAuth).status == 404)

        // Bea's scraper rules for her feed choose the article on its pages, for her alone.
        let beasFeeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", beaAuth).body.utf8))
        let beasFeed = try #require(((beasFeeds as? [[String: Any]])?.first)?["id"] as? Int)
        #expect(try daemon.curl("/v1/feeds/\(beasFeed)", beaAuth + ["-X", "PUT", "-d", #"{"scraper_rules": "div > p"}"#]).status == 400)
        let ruled = try daemon.curl("/v1/feeds/\(beasFeed)", beaAuth + ["-X", "PUT", "-d", #"{"scraper_rules": "section.comments"}"#])
        #expect(ruled.status == 201 && ruled.body.contains(#""scraper_rules":"section.comments""#), "\(ruled.body)")
        let comments = try daemon.curl("/v1/entries/\(id)/fetch-content?update_content=true", beaAuth).body
        #expect(comments.contains("First comment") && !comments.contains("Paragraph 1"), "\(comments)")
        #expect(try daemon.curl("/v1/entries/\(id)", beaAuth).body.contains("First comment"))
        let annsAgain = try daemon.curl("/v1/entries/\(id)/fetch-content", annAuth).body
        #expect(annsAgain.contains("Paragraph 1") && !annsAgain.contains("First comment"), "Ann's is the page's article still")
        #expect(try daemon.curl("/entry/\(id)", ["-b", jar]).body.contains("Paragraph 1 of the whole story"))
        #expect(try daemon.curl("/v1/feeds/\(beasFeed)", beaAuth + ["-X", "PUT", "-d", #"{"scraper_rules": "div.missing"}"#]).status == 201)
        let nothing = try daemon.curl("/v1/entries/\(id)/fetch-content", beaAuth)
        #expect(nothing.status >= 400 && nothing.body.contains("select nothing"), "\(nothing.status) \(nothing.body)")
    }
}
