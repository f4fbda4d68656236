import Foundation
import Glibc
import TestSupport
import Testing

/// One round of the running daemon over two good feeds and every kind of misbehaving server, read
/// back through the CLI: each failure ends within the configured limits, is recorded on its own feed
/// with an error that says what happened, and backs off; the good feeds are stored without waiting.
@Suite struct HostileServerTests {
    let daemon = Binary("aggregatord")
    let cli = Binary("aggregatorctl")

    /// A feed of the round and what its `last_error` must say (nil: it must succeed).
    struct Case {
        let title: String
        let url: String
        let error: String?
    }

    @Test func everyMisbehaviourIsRecordedOnItsFeedAndNoneHoldsUpTheGoodOnes() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases = [
            Case(title: "good", url: server.url("/feed.xml"), error: nil),
            Case(title: "wrong content type", url: server.url("/wrong-type.xml"), error: nil),
            Case(title: "refused", url: "http://127.0.0.1:\(try closedPort())/feed.xml", error: "Couldn't connect"),
            Case(title: "500", url: server.url("/status/500"), error: "server answered HTTP 500"),
            Case(title: "404", url: server.url("/status/404"), error: "server answered HTTP 404"),
            Case(title: "429", url: server.url("/status/429"), error: "HTTP 429, retry after 120 s"),
            Case(title: "410", url: server.url("/status/410"), error: "HTTP 410 (gone: feed disabled)"),
            Case(title: "never answers", url: server.url("/hang"), error: "timed out"),
            Case(title: "a byte a second", url: server.url("/slow"), error: "timed out"),
            Case(title: "endless body", url: server.url("/endless"), error: "response larger than 1048576 bytes"),
            Case(title: "gzip bomb", url: server.url("/gzip-bomb"), error: "response larger than 1048576 bytes"),
            Case(title: "huge Content-Length", url: server.url("/big-length"), error: "response larger than 1048576 bytes"),
            Case(title: "redirect loop", url: server.url("/redirect-loop"), error: "more than 5 redirects"),
            Case(title: "redirect to file", url: server.url("/redirect-file"), error: "not an http(s) URL: file:///etc/passwd"),
            Case(title: "link-local", url: "http://169.254.169.254/latest/meta-data/", error: "is link-local"),
            Case(title: "HTML page", url: server.url("/nolinks.html"), error: "not a feed"),
        ]
        let seed = try writeSeedOPML(cases.map { ($0.title, $0.url) }, in: directory)
        let socket = directory.appendingPathComponent("ctl.sock").path
        let log = directory.appendingPathComponent("daemon.log")
        // Every server here is 127.0.0.1: the per-host bound is lifted so that no feed waits for a
        // slot behind another (that would be politeness, not a hostile server holding it up).
        // Short limits keep the round to a few seconds.
        let process = try daemon.start([
            "--database", try testDatabase(in: directory), "--socket", socket, "--seed-opml", seed.path,
            "--per-host-connections", "16", "--fetch-timeout", "6s", "--connect-timeout", "2s",
            "--low-speed-time", "3s", "--max-feed-size", "1M", "--min-interval", "20m",
        ], logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let roundLog = try await waitFor("msg=\"Refresh round done\"", in: log)
        #expect(roundLog.contains("feeds=16 ok=2 not_modified=0 failed=14 new_entries=2"), "\(roundLog)")

        let listed = try cli.run(["--socket", socket, "--json", "feeds"])
        #expect(listed.status == 0, "\(listed.error)")
        let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
        let feeds = try #require(object?["feeds"] as? [[String: Any]])
        let byTitle = Dictionary(feeds.map { ($0["title"] as? String ?? "", $0) }) { first, _ in first }
        let formatter = ISO8601DateFormatter()
        func date(_ feed: [String: Any]?, _ key: String) -> Date? { (feed?[key] as? String).flatMap(formatter.date) }
        for item in cases {
            // A feed that answers takes the title its document gives.
            let feed = item.error == nil ? feeds.first { $0["url"] as? String == item.url } : byTitle[item.title]
            let status = feed?["status"] as? String
            if let expected = item.error {
                let lastError = feed?["last_error"] as? String ?? ""
                #expect(lastError.contains(expected), "\(item.title): \(lastError)")
                #expect(status == (item.title == "410" ? "disabled" : "failing"), "\(item.title)")
                #expect(feed?["error_count"] as? Int == 1, "\(item.title)")
            } else {
                #expect(status == "ok" && feed?["unread"] as? Int == 1, "\(item.title): \(String(describing: feed))")
            }
            // Backed off, or scheduled: no sooner than the configured shortest interval, 20 min less 10 % jitter
            // (the default, 15 min, would allow 13.5).
            if let checked = date(feed, "checked_at"), let next = date(feed, "next_check_at") {
                #expect(next.timeIntervalSince(checked) >= 1_080, "\(item.title)")
            } else {
                Issue.record("\(item.title): no checked_at/next_check_at in \(String(describing: feed))")
            }
        }
        // The good feed's answer was recorded as it came, not after the stalled ones gave up (≥ 3 s).
        let good = feeds.first { $0["url"] as? String == cases[0].url }
        if let goodAt = date(good, "checked_at"), let stalledAt = date(byTitle["never answers"], "checked_at") {
            #expect(stalledAt.timeIntervalSince(goodAt) >= 1)
        } else {
            Issue.record("no checked_at on the good or the stalled feed")
        }
        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)
    }

    /// A port of 127.0.0.1 that nothing listens on (bound, then let go).
    private func closedPort() throws -> Int {
        Int(try ServedDaemon.freePort())
    }
}
