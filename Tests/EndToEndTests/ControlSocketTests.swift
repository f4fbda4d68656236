import ControlProtocol
import Foundation
import Glibc
import TestSupport
import Testing

/// The real daemon on a temporary socket and database, fed by a local server, driven by the real CLI.
@Suite(.serialized) struct ControlSocketTests {
    let daemon = Binary("aggregatord")
    let cli = Binary("aggregatorctl")

    /// A daemon subscribed to the test server's feed, after its first refresh round.
    final class Running: @unchecked Sendable {
        let directory: URL
        let socket: String
        let process: Process
        let server: FeedTestServer
        let port: Int

        init(daemon: Binary) async throws {
            directory = try temporaryDirectory()
            socket = directory.appendingPathComponent("ctl.sock").path
            server = try FeedTestServer()
            port = server.port
            let seed = directory.appendingPathComponent("seed.opml")
            try Data(#"<opml><body><outline text="News"><outline text="Test feed" xmlUrl="http://127.0.0.1:\#(port)/feed.xml"/></outline></body></opml>"#.utf8)
                .write(to: seed)
            let log = directory.appendingPathComponent("daemon.log")
            process = try daemon.start(["--database", try testDatabase(in: directory), "--socket", socket,
                                        "--seed-opml", seed.path], logFile: log)
            _ = try await waitFor("msg=\"Refresh round done\"", in: log)
        }

        deinit {
            // A test that failed half-way still leaves no process behind.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            server.stop()
        }

        func stop() async throws {
            kill(process.processIdentifier, SIGTERM)
            _ = try await waitForExit(process)
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    private func ctl(_ running: Running, _ arguments: [String]) throws -> Binary.Result {
        try cli.run(["--socket", running.socket] + arguments, environment: ["NO_COLOR": "1"])
    }

    @Test func commandsWorkThroughTheSocket() async throws {
        let running = try await Running(daemon: daemon)

        let status = try ctl(running, ["status", "--json"])
        #expect(status.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        #expect(object["entries"] as? Int == 1)
        #expect((object["feeds"] as? [String: Any])?["ok"] as? Int == 1)

        let feeds = try ctl(running, ["feeds"])
        #expect(feeds.output.contains("Test feed"))
        #expect(try ctl(running, ["categories"]).output.contains("News"))

        let articles = try ctl(running, ["articles", "--category", "news", "--unread"])
        #expect(articles.output.contains("One"))
        let listed = try JSONSerialization.jsonObject(with: Data(try ctl(running, ["articles", "--json"]).output.utf8)) as? [String: Any]
        let id = try #require((listed?["articles"] as? [[String: Any]])?.first?["id"] as? Int)

        #expect(try ctl(running, ["read", String(id)]).output == "Marked 1 article read\n")
        #expect(try ctl(running, ["articles", "--unread"]).output == "No articles.\n")
        #expect(try ctl(running, ["star", "--all", "--category", "News"]).output == "Marked 1 article starred\n")
        #expect(try ctl(running, ["show", String(id)]).output.hasPrefix("One\n"))
        #expect(try ctl(running, ["search", "one"]).output.contains("One"))

        let added = try ctl(running, ["add", "http://127.0.0.1:\(running.port)/gzip.xml", "--category", "World"])
        #expect(added.status == 0)
        #expect(added.output.hasPrefix("Added feed 2: "))
        let refreshed = try ctl(running, ["refresh", "--wait"])
        #expect(refreshed.output.hasPrefix("Refreshed 2 feeds: "))

        let exported = try ctl(running, ["export"])
        #expect(exported.output.contains("gzip.xml") && exported.output.contains("World"))
        let opml = running.directory.appendingPathComponent("export.opml").path
        try Data(exported.output.utf8).write(to: URL(fileURLWithPath: opml))
        #expect(try ctl(running, ["import", opml]).output == "Imported 0 feeds (2 already subscribed, 0 not http(s))\n")

        let backupPath = running.directory.appendingPathComponent("backup.db").path
        let backup = try ctl(running, ["backup", backupPath])
        #expect(backup.status == 0 && backup.output.hasPrefix("Backed up the database to \(backupPath)"))
        #expect(try ctl(running, ["backup", backupPath]).error.contains("already exists"))

        #expect(try ctl(running, ["remove", "2"]).output == "Removed feed 2\n")
        let gone = try ctl(running, ["remove", "2"])
        #expect(gone.status == 1)
        #expect(gone.error.contains("no feed with id 2"))
        // Discovery: a page linking to feeds, and a page that names none but whose site serves /feed.
        let page = try ctl(running, ["add", "http://127.0.0.1:\(running.port)/page.html"])
        #expect(page.status == 1 && page.error.contains("already subscribed to http://127.0.0.1:\(running.port)/feed.xml"))
        let discovered = try ctl(running, ["add", "http://127.0.0.1:\(running.port)/nolinks.html"])
        #expect(discovered.output.contains("/feed (") || discovered.output.contains("/feed\n"))
        let nothing = try ctl(running, ["add", "http://127.0.0.1:\(running.port)/status/404"])
        #expect(nothing.status == 0 && nothing.output.contains("could not check the feed now"))

        let bad = try ctl(running, ["add", "ftp://example.org/feed"])
        #expect(bad.status == 1 && bad.error.contains("not an http(s) URL"))
        try await running.stop()
    }

    @Test func feedsAreRenamedAndMovedAndCategoriesRenamed() async throws {
        let running = try await Running(daemon: daemon)
        #expect(try ctl(running, ["rename", "1", "Local news"]).output == "Feed 1: Local news (News)\n")
        #expect(try ctl(running, ["move", "1", "Tech"]).output == "Feed 1: Local news (Tech)\n")
        let categories = try ctl(running, ["categories"]).output
        #expect(categories.contains("Tech      1      1       1"), "the move carries the feed's counts: \(categories)")
        #expect(try ctl(running, ["rename-category", "tech", "Technology"]).output == "Category Technology: 1 feed, 1 unread\n")
        #expect(try ctl(running, ["feeds"]).output.contains("Technology"))
        #expect(try ctl(running, ["move", running.server.url("/feed.xml"), ""]).output == "Feed 1: Local news (no category)\n")

        let unknownCategory = try ctl(running, ["rename-category", "Nope", "X"])
        #expect(unknownCategory.status == 1 && unknownCategory.error == "Error: no category named 'Nope'\n")
        let unknownFeed = try ctl(running, ["move", "99", "X"])
        #expect(unknownFeed.status == 1 && unknownFeed.error == "Error: no feed with id 99\n")
        let missing = try ctl(running, ["move", "1"])
        #expect(missing.status == 2 && missing.error.hasPrefix("Error: Missing expected argument 'CATEGORY'"))
        try await running.stop()
    }

    @Test func articlesAreFilteredSortedAndPagedThroughTheDaemon() async throws {
        let running = try await Running(daemon: daemon)
        let old = "http://127.0.0.1:\(running.port)/old.xml"  // Old 1, 2 and 3, from 6 to 8 January 2020
        #expect(try ctl(running, ["add", old, "--category", "Archive"]).status == 0)
        #expect(try ctl(running, ["refresh", "--wait"]).status == 0)
        func titles(_ arguments: [String]) throws -> (titles: [String], ids: [Int], cursor: String?) {
            let result = try ctl(running, ["--json", "articles", "--feed", old] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let articles = try #require(object["articles"] as? [[String: Any]])
            return (articles.compactMap { $0["title"] as? String }, articles.compactMap { $0["id"] as? Int },
                    object["next_cursor"] as? String)
        }
        #expect(try titles([]).titles == ["Old 3", "Old 2", "Old 1"])
        #expect(try titles(["--sort", "oldest"]).titles == ["Old 1", "Old 2", "Old 3"])
        #expect(try titles(["--sort", "title"]).titles == ["Old 1", "Old 2", "Old 3"])
        #expect(try titles(["--since", "2020-01-07"]).titles == ["Old 3", "Old 2"])
        // Ages are counted back from now by the client: 10,000 days reach back to 1999.
        #expect(try titles(["--since", "10000d"]).titles.count == 3)
        #expect(try titles(["--since", "yesterday"]).titles.isEmpty)
        #expect(try titles(["--before", "2020-01-07"]).titles == ["Old 1"])
        #expect(try titles(["--since", "2020-01-07", "--before", "2020-01-08"]).titles == ["Old 2"])
        #expect(try titles(["--before", "1d"]).titles.count == 3)
        let badSince = try ctl(running, ["articles", "--since", "last tuesday"])
        #expect(badSince.status == 2 && badSince.error.contains("Invalid value 'last tuesday' for '--since'"))
        #expect(try titles(["--category", "Archive"]).titles.count == 3)
        #expect(try titles(["--category", "News"]).titles.isEmpty)
        #expect(try titles(["--search", "old", "--sort", "relevance"]).titles.count == 3)

        // Page by page, one article a page, with the cursor each page gives.
        var paged: [String] = []
        var cursor: String?
        repeat {
            let page = try titles(["--limit", "1"] + (cursor.map { ["--cursor", $0] } ?? []))
            paged += page.titles
            cursor = page.cursor
        } while cursor != nil && paged.count < 10
        #expect(paged == ["Old 3", "Old 2", "Old 1"])

        let ids = try titles([]).ids
        #expect(try ctl(running, ["star", String(ids[0])]).status == 0)
        #expect(try titles(["--starred"]).titles == ["Old 3"])
        #expect(try ctl(running, ["unstar", String(ids[0])]).status == 0)
        #expect(try titles(["--starred"]).titles.isEmpty)
        // Everything of the feed older than a date, then the rest.
        #expect(try ctl(running, ["read", "--all", "--feed", old, "--before", "2020-01-08"]).output == "Marked 2 articles read\n")
        #expect(try titles(["--unread"]).titles == ["Old 3"])
        #expect(try ctl(running, ["read", "--all", "--feed", old]).output == "Marked 1 article read\n")
        #expect(try titles(["--unread"]).titles.isEmpty)
        #expect(try ctl(running, ["unread", String(ids[1])]).status == 0)
        #expect(try titles(["--unread"]).titles == ["Old 2"])
        try await running.stop()
    }

    @Test func anUnreachableDaemonExitsThreeNamingTheSocket() throws {
        let result = try cli.run(["--socket", "/nonexistent/aggregatord.sock", "status"])
        #expect(result.status == 3)
        #expect(result.error.contains("/nonexistent/aggregatord.sock"))
        #expect(result.error.contains("Start it with"))
    }

    @Test func garbageOversizedLinesAndBusyClientsGetAnswersAndTheDaemonKeepsServing() async throws {
        let running = try await Running(daemon: daemon)
        func connected() -> Int32 {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = unixAddress(running.socket)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(status == 0)
            return descriptor
        }
        func exchange(_ bytes: Data, readReply: Bool = true) -> String {
            let descriptor = connected()
            defer { close(descriptor) }
            _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard readReply else { return "" }
            var reply = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &reply, reply.count, 0)
            return count > 0 ? String(decoding: reply[0..<count], as: UTF8.self) : ""
        }
        let before = try ctl(running, ["status", "--json"]).output
        let articlesBefore = try ctl(running, ["articles", "--json"]).output

        #expect(exchange(Data("garbage\n".utf8)).contains("-32700"))
        #expect(exchange(Data("[1,2,3]\n".utf8)).contains("-32600"))
        #expect(exchange(Data(#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#.utf8 + [0x0A])).contains("-32601"))
        #expect(exchange(Data(#"{"jsonrpc":"2.0","id":1,"method":"articles.list","params":{"limit":"x"}}"#.utf8 + [0x0A])).contains("\"id\":1"))
        // Each of the service's errors has its code (docs/cli.md, "The control protocol", lists them).
        func call(_ method: String, _ params: String) -> String {
            exchange(Data(#"{"jsonrpc":"2.0","id":7,"method":"\#(method)","params":\#(params)}"#.utf8 + [0x0A]))
        }
        #expect(call("feeds.remove", #"{"feed":99}"#).contains(#""code":-32002,"message":"no feed with id 99""#))
        #expect(call("articles.get", #"{"id":424242}"#).contains(#""code":-32002"#))
        #expect(call("feeds.add", #"{"url":"\#(running.server.url("/feed.xml"))"}"#).contains(#""code":-32003"#))
        #expect(call("feeds.add", #"{"url":"ftp://example.org/feed"}"#).contains(#""code":-32602"#))
        #expect(call("articles.list", #"{"limit":5000}"#).contains(#""code":-32602"#))
        #expect(call("articles.list", #"{"query":"\"unclosed"}"#).contains("\"id\":7"))
        #expect(exchange(Data(repeating: UInt8(ascii: "a"), count: 10 << 20)).contains("line longer than"))  // 10 MB
        _ = exchange(Data(#"{"jsonrpc":"2.0","id":1,"me"#.utf8), readReply: false)  // cut in half, then gone
        // Gone before the answer is read: the daemon's write fails, and nothing else does.
        for _ in 0..<20 {
            _ = exchange(Data(#"{"jsonrpc":"2.0","id":1,"method":"articles.list","params":{"limit":1000}}"#.utf8 + [0x0A]),
                         readReply: false)
        }

        // Connections that say nothing are held until the daemon turns one away (its limit is 64,
        // and connections still being served count): the CLI started then waits its turn.
        func unasked(_ descriptor: Int32) -> String {  // what the daemon has said, unasked
            var reader = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&reader, 1, 0) == 1 else { return "" }
            var reply = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &reply, reply.count, 0)
            return count > 0 ? String(decoding: reply[0..<count], as: UTF8.self) : ""
        }
        var held: [Int32] = []
        var refused = false
        while !refused && held.count < 100 {
            let batch = (0..<10).map { _ in connected() }
            try await Task.sleep(for: .milliseconds(200))
            for descriptor in batch {
                if unasked(descriptor).contains("-32001") {
                    refused = true
                    close(descriptor)
                } else {
                    held.append(descriptor)
                }
            }
        }
        #expect(refused && held.count <= 64)
        let waiting = Process()
        waiting.executableURL = cli.url
        waiting.arguments = ["--socket", running.socket, "status"]
        waiting.standardOutput = FileHandle.nullDevice
        try waiting.run()
        try await Task.sleep(for: .milliseconds(500))
        // 50 stay idle through what follows.
        held[50...].forEach { close($0) }
        let idle = held.prefix(50)
        defer { idle.forEach { close($0) } }
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0)

        // 200 clients at once, each running a query, while those 50 hold their connections.
        let clients = try (0..<200).map { _ -> Process in
            let process = Process()
            process.executableURL = cli.url
            process.arguments = ["--socket", running.socket, "articles", "--json"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        clients.forEach { $0.waitUntilExit() }
        #expect(clients.filter { $0.terminationStatus != 0 }.count == 0)

        // Nothing was lost, and the daemon still serves.
        #expect(try ctl(running, ["status", "--json"]).status == 0)
        #expect(try ctl(running, ["articles", "--json"]).output == articlesBefore)
        let after = try ctl(running, ["status", "--json"]).output
        for key in ["\"entries\"", "\"unread\""] {
            #expect(field(key, in: after) == field(key, in: before))
        }
        try await running.stop()
    }

    /// The number after `key` in a JSON text (status counts).
    private func field(_ key: String, in json: String) -> Substring? {
        guard let range = json.range(of: key + ":") else { return nil }
        return json[range.upperBound...].prefix { $0.isNumber }
    }

    /// `refresh` without `--wait` fetches the feeds named (or all) now, though none is due: the first
    /// round left the feed's next check 15 minutes away (its Cache-Control max-age).
    @Test func refreshWithoutWaitFetchesTheNamedFeedsNow() async throws {
        let running = try await Running(daemon: daemon)
        let log = running.directory.appendingPathComponent("daemon.log")
        let queued = try ctl(running, ["refresh", "1"])
        #expect(queued.output == "Refresh of 1 feed started (add --wait to wait for it)\n")
        // The second round: the feed answered 304 to the validators of the first.
        #expect(try await roundsLogged(in: log, atLeast: 2).last?.contains("feeds=1 ok=0 not_modified=1") == true)
        #expect(try ctl(running, ["refresh"]).status == 0)
        #expect(try await roundsLogged(in: log, atLeast: 3).count == 3)
        try await running.stop()
    }

    /// The daemon's "Refresh round done" lines, once there are `count` of them (up to 10 s).
    private func roundsLogged(in log: URL, atLeast count: Int) async throws -> [Substring] {
        let deadline = Date().addingTimeInterval(10)
        var rounds: [Substring] = []
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            rounds = text.split(separator: "\n").filter { $0.contains("msg=\"Refresh round done\"") }
            if rounds.count >= count { return rounds }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(rounds.count) refresh rounds logged, expected \(count)")
        return rounds
    }

    @Test func watchPrintsEntriesAsTheyAreStored() async throws {
        let running = try await Running(daemon: daemon)
        let output = running.directory.appendingPathComponent("watch.out")
        let errors = running.directory.appendingPathComponent("watch.err")
        let watch = try cli.start(["--socket", running.socket, "--json", "watch"], logFile: errors, standardOutput: output)
        _ = try await waitFor("Watching for new articles", in: errors)  // subscribed before the entry arrives
        #expect(try ctl(running, ["add", running.server.url("/other.xml")]).status == 0)
        #expect(try ctl(running, ["refresh", "--wait"]).status == 0)
        let text = try await waitFor("\"title\":\"Two\"", in: output)
        #expect(!text.contains("\"title\":\"One\""), "only entries stored after subscribing")
        // Killed, not SIGTERMed: a child of the test runner inherits its blocked signals (an interactive
        // Ctrl-C stops `watch` as usual).
        kill(watch.processIdentifier, SIGKILL)
        _ = try await waitForExit(watch)  // throws when it does not end
        #expect(try ctl(running, ["status"]).status == 0, "the daemon keeps serving after a watcher leaves")
        try await running.stop()
    }

    /// Without a socket path of their own, the daemon and the CLI fall back to `/tmp/aggregator-$UID`;
    /// when that directory is not the user's own with mode 0700 (another local user may have made it
    /// first, to receive what `user set` sends), both refuse it and say why (docs/SECURITY.md). Skipped when
    /// the directory is already there (a developer's own daemon may use it).
    @Test func anUnsafeFallbackDirectoryIsRefused() async throws {
        let directory = ControlSocketPath.fallbackDirectory()
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        #expect(mkdir(directory, 0o755) == 0)
        defer { rmdir(directory) }
        let fallback = ["AGGREGATOR_SOCKET": "", "RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""]
        let cli = try Binary("aggregatorctl").run(["status"], environment: fallback)
        #expect(cli.status == 3 && cli.error.contains("refusing to use \(directory)/aggregatord.sock")
            && cli.error.contains("with mode 755"), "\(cli.error)")
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = scratch.appendingPathComponent("daemon.log")
        let daemon = try Binary("aggregatord").start(["--database", scratch.appendingPathComponent("a.db").path,
                                                      "--seed-opml", ""], logFile: log, environment: fallback)
        let status = try await waitForExit(daemon)  // throws (and the test fails) if it keeps running
        let said = try String(contentsOf: log, encoding: .utf8)
        #expect(status != 0 && said.contains("refusing the control socket's directory"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/aggregatord.sock"))
    }
}
