import Foundation
import TestSupport
import Testing

/// The Fever API through a client written from the protocol (Python, `requests` from PyPI), with the
/// daemon's state checked through `aggregatorctl`.
@Suite(.timeLimit(.minutes(3))) struct FeverAPITests {
    let password = "correct horse battery"

    private static let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/fever_scenario.py")

    @Test func aFeverClientLogsInPagesItemsAndMarks() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let noAccount = try daemon.ctl(["user", "fever", "on"], input: password + "\n")
        #expect(noAccount.status == 1
            && noAccount.error.contains("admin has no password yet: set one with 'aggregatorctl user set admin'"))
        _ = try daemon.createAccount(name: "alice", password: password)

        // Off by default: the right key is refused.
        let off = try daemon.curl("/fever/?api", ["-d", "api_key=\(Self.md5("alice:\(password)"))"])
        #expect(off.status == 200 && off.body.contains("\"auth\":0"))
        let wrong = try daemon.ctl(["user", "fever", "on"], input: "not the password\n")
        #expect(wrong.status == 1 && wrong.error.contains("not alice's password"))
        #expect(try daemon.ctl(["user", "fever", "on"], input: password + "\n").output.contains("Fever on"))

        let result = try await TestVenv.run(Self.scenario, [daemon.baseURL, "alice", password])
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Int])
        let starred = try daemon.ctl(["--json", "articles", "--starred"]).output
        #expect(starred.contains("\"id\": \(try #require(ids["saved"]))"))
        #expect(try daemon.ctl(["--json", "status"]).output.contains("\"unread\": 0"))

        // Off again: the key stops working at once; a new password also turns it off.
        _ = try daemon.ctl(["user", "fever", "off"])
        #expect(try daemon.curl("/fever/?api", ["-d", "api_key=\(Self.md5("alice:\(password)"))"]).body.contains("\"auth\":0"))
    }

    static func md5(_ text: String) -> String {
        let result = try? runPython("import hashlib, sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())", [text])
        return result?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
