import Foundation
import TestSupport
import Testing

/// `aggregatord --once` against a local server: fetch, parse, store, conditional GET, failures recorded.
@Suite struct RefreshOnceTests {
    let daemon = Binary("aggregatord")

    @Test func refreshOnceStoresEntriesThenGetsNotModifiedAndReportsFailures() throws {
        let server = try FeedTestServer()
        defer { server.stop() }  // also keeps it alive for the whole test
        let port = server.port
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.opml")
        try Data("""
            <opml version="2.0"><body><outline text="Test">
              <outline text="Good" xmlUrl="http://127.0.0.1:\(port)/feed.xml"/>
              <outline text="Gzip" xmlUrl="http://127.0.0.1:\(port)/gzip.xml"/>
              <outline text="Missing" xmlUrl="http://127.0.0.1:\(port)/status/404"/>
              <outline text="Page" xmlUrl="http://127.0.0.1:\(port)/nothing-here"/>
            </outline></body></opml>
            """.utf8).write(to: seed)
        let arguments = ["--once", "--database", try testDatabase(in: directory), "--seed-opml", seed.path]

        let first = try daemon.run(arguments)
        #expect(first.status == 1, "a failed feed makes --once exit 1")
        // Both good feeds carry the same item URL: stored once.
        #expect(first.output.hasPrefix("feeds=4 ok=2 not_modified=0 failed=2 new_entries=1 "))

        let second = try daemon.run(arguments)
        #expect(second.output.hasPrefix("feeds=4 ok=1 not_modified=1 failed=2 new_entries=0 "))
    }

    @Test func aRoundFetchesAtMostTheConfiguredNumberFromOneHostAtOnce() throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = try writeSeedOPML((1...6).map { ("Slow \($0)", server.url("/concurrent/300/\($0)")) }, in: directory)
        func mostAtOnce() throws -> String {
            try runPython("import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                          [server.url("/most-concurrent")]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        for (perHost, most) in [("2", "2"), ("6", "6")] {
            let run = try daemon.run(["--once", "--database", try testDatabase(in: directory, named: "a\(perHost).db"),
                                      "--seed-opml", seed.path, "--per-host-connections", perHost])
            #expect(run.output.hasPrefix("feeds=6 ok=6 not_modified=0 failed=0 new_entries=1 "), "\(run.output)")
            #expect(try mostAtOnce() == most, "--per-host-connections \(perHost)")
        }
    }

    @Test func oldEntriesExpireAfterTheRoundAndNeverComeBack() throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = try writeSeedOPML([("Old", server.url("/old.xml"))], in: directory)
        let arguments = ["--once", "--database", try testDatabase(in: directory), "--seed-opml", seed.path,
                         "--retention-days", "30", "--retention-keep-per-feed", "1"]
        let first = try daemon.run(arguments)
        #expect(first.output.hasPrefix("feeds=1 ok=1 not_modified=0 failed=0 new_entries=3 "))
        #expect(first.error.contains(#"msg="Retention run done" expired=2 days=30 keep_per_feed=1"#), "\(first.error)")
        // The 2020 items are still in the feed: they are known, not new.
        let second = try daemon.run(arguments)
        #expect(second.output.hasPrefix("feeds=1 ok=1 not_modified=0 failed=0 new_entries=0 "))
        #expect(!second.error.contains("expired="), "nothing left to expire is logged at debug only")
    }

    @Test func aLargerMaximumFeedSizeLetsALargerFeedThroughTheFetcherAndTheParser() throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = try writeSeedOPML([("Large", server.url("/large.xml"))], in: directory)
        func once(_ extra: [String], database: String) throws -> Binary.Result {
            try daemon.run(["--once", "--database", try testDatabase(in: directory, named: database),
                            "--seed-opml", seed.path] + extra)
        }
        // 18 MiB: refused at the default 16 MiB, stored with 32 MiB allowed.
        let refused = try once([], database: "a.db")
        #expect(refused.output.hasPrefix("feeds=1 ok=0 not_modified=0 failed=1 "), "\(refused.output)")
        let stored = try once(["--max-feed-size", "32M"], database: "b.db")
        #expect(stored.output.hasPrefix("feeds=1 ok=1 not_modified=0 failed=0 new_entries=1 "), "\(stored.output)")
    }

    @Test func theRunningDaemonRefreshesDueFeedsAndStopsCleanly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }  // also keeps it alive for the whole test
        let port = server.port
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.opml")
        try Data(#"""
            <opml><body><outline text="Good" xmlUrl="http://127.0.0.1:\#(port)/feed.xml"/>
            <outline text="Old" xmlUrl="http://127.0.0.1:\#(port)/old.xml"/></body></opml>
            """#.utf8).write(to: seed)
        let log = directory.appendingPathComponent("daemon.log")
        let process = try daemon.start(["--database", try testDatabase(in: directory),
                                        "--seed-opml", seed.path, "--socket", directory.appendingPathComponent("s").path,
                                        "--retention-days", "30", "--retention-keep-per-feed", "0"],
                                       logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }  // a failed wait leaves none running
        let text = try await waitFor("msg=\"Retention run done\"", in: log)
        #expect(text.contains("new_entries=4"))
        #expect(text.contains("expired=3"), "the three 2020 items expire after the first round")
        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)
    }
}
