import Foundation
import TestSupport
import Testing

/// The Google Reader API through a client written from the protocol (Python, `requests`), syncing
/// as NetNewsWire does, with the daemon's state checked through `aggregatorctl`.
@Suite(.timeLimit(.minutes(3))) struct GoogleReaderAPITests {
    let password = "correct horse battery"

    private static let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/greader_scenario.py")

    @Test func aReaderClientLogsInSyncsAndMarks() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)

        let result = try await TestVenv.run(Self.scenario, [daemon.baseURL, "alice", password, server.url("")])
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Int])
        #expect(try daemon.ctl(["--json", "articles", "--starred"]).output.contains("\"id\": \(try #require(ids["starred"]))"))
        #expect(try daemon.ctl(["--json", "status"]).output.contains("\"unread\": 248"))
        // Each ClientLogin made a token, listed and revocable like any other.
        let tokens = try daemon.ctl(["token", "list"]).output
        #expect(tokens.components(separatedBy: "Google Reader login").count - 1 == 2, "\(tokens)")
    }

    /// Debian's newsboat in its Google Reader mode (`urls-source "feedhq"`, which reads /reader/atom/):
    /// the same unread count as ours, and its marks reach the daemon.
    @Test func newsboatInFeedHQModeReadsAndMarks() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--deny-private-networks", "false"])
        defer { daemon.stop() }
        _ = try daemon.ctl(["add", server.url("/crosspost.xml")])
        _ = try daemon.ctl(["add", server.url("/old.xml"), "--category", "News"])
        _ = try daemon.ctl(["refresh", "--wait"])
        _ = try daemon.createAccount(name: "alice", password: password)
        let newsboat = try Newsboat(in: daemon.directory, configuration: """
            urls-source "feedhq"
            feedhq-url "\(daemon.baseURL)"
            feedhq-login "alice"
            feedhq-password "\(password)"
            feedhq-show-special-feeds "no"
            """)
        let first = try await newsboat.reload()
        // Ours: Crosspost's two entries and Old's three.
        #expect(first.status == 0 && first.output.contains("5 unread articles"), "\(first.output) \(first.error)")

        try await newsboat.runOnStartup("mark-feed-read")
        var status = ""
        for _ in 0..<100 {
            status = try daemon.ctl(["--json", "status"]).output
            if !status.contains("\"unread\": 5") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Its first feed (as subscription/list orders them) was marked read: 2 or 3 entries fewer.
        #expect(status.contains("\"unread\": 3") || status.contains("\"unread\": 2"), "\(status)")
    }
}

/// One state behind every front end: a mark made through one API is seen at once through the others
/// and the CLI.
@Suite(.timeLimit(.minutes(3))) struct CrossAPITests {
    @Test func aMarkThroughOneAPIIsSeenThroughAllTheOthers() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--deny-private-networks", "false"])
        defer { daemon.stop() }
        _ = try daemon.ctl(["add", server.url("/old.xml")])
        _ = try daemon.ctl(["refresh", "--wait"])
        let password = "correct horse battery"
        let token = try daemon.createAccount(name: "alice", password: password)
        _ = try daemon.ctl(["user", "fever", "on"], input: password + "\n")
        let key = FeverAPITests.md5("alice:\(password)")
        let miniflux = ["-H", "X-Auth-Token: \(token)"]
        let reader = ["-H", "Authorization: GoogleLogin auth=\(token)"]
        let unreadIDs = "/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read"

        // Read through Fever …
        let listed = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries/ids", miniflux).body.utf8))
        let id = try #require(((listed as? [String: Any])?["entry_ids"] as? [Int])?.first)
        let readerID = String(id + 1_000_000_000_000_000)  // Reader's id: the entry's plus 10^15
        _ = try daemon.curl("/fever/?api", ["-d", "api_key=\(key)&mark=item&as=read&id=\(id)"])
        // … seen by Miniflux, Google Reader and the CLI.
        #expect(try daemon.curl("/v1/entries/\(id)", miniflux).body.contains("\"status\":\"read\""))
        #expect(!(try daemon.curl(unreadIDs, reader).body.contains("\"\(readerID)\"")))
        #expect(try daemon.ctl(["--json", "status"]).output.contains("\"unread\": 2"))
        // Starred through Google Reader, seen by Fever and Miniflux; unread through the CLI, seen by all.
        _ = try daemon.curl("/reader/api/0/edit-tag", reader + ["-d", "i=\(readerID)&a=user/-/state/com.google/starred"])
        #expect(try daemon.curl("/fever/?api&saved_item_ids", ["-d", "api_key=\(key)"]).body.contains("\"saved_item_ids\":\"\(id)\""))
        #expect(try daemon.curl("/v1/entries?starred=true", miniflux).body.contains("\"total\":1"))
        _ = try daemon.ctl(["unread", String(id)])
        #expect(try daemon.curl(unreadIDs, reader).body.contains("\"\(readerID)\""))
        #expect(try daemon.curl("/fever/?api&unread_item_ids", ["-d", "api_key=\(key)"]).body.contains("\(id)"))
        #expect(try daemon.curl("/v1/entries/\(id)", miniflux).body.contains("\"status\":\"unread\""))
    }
}
