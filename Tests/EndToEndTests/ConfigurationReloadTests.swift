import Foundation
import Glibc
import TestSupport
import Testing

/// SIGHUP: the daemon reads its configuration file again and applies what it can without a restart.
@Suite struct ConfigurationReloadTests {
    let daemon = Binary("aggregatord")
    let cli = Binary("aggregatorctl")

    @Test func sighupAppliesTheNewFileAndKeepsRunningOnABadOne() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try FeedTestServer()
        defer { server.stop() }
        let socket = directory.appendingPathComponent("ctl.sock").path
        let seed = try writeSeedOPML([("Local", server.url("/feed.xml"))], in: directory)
        let config = directory.appendingPathComponent("aggregatord.conf")
        let common = "database = \(directory.path)/a.db\nsocket = \(socket)\nseed-opml = \(seed.path)\n"
        try Data((common + "log-level = info\n").utf8).write(to: config)
        let log = directory.appendingPathComponent("daemon.log")
        let process = try daemon.start(["--config", config.path], logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try await waitFor("msg=\"Refresh round done\"", in: log)
        let ctl = { (arguments: [String]) throws -> Binary.Result in
            try cli.run(["--socket", socket] + arguments, environment: ["NO_COLOR": "1"])
        }
        let failingFeeds = { () throws -> [[String: Any]] in
            let output = try ctl(["feeds", "--failing", "--json"]).output
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return try #require(object?["feeds"] as? [[String: Any]])
        }
        #expect(try failingFeeds().isEmpty)

        // Stricter addresses, debug logging and fetch limits apply at once; a new database path waits for a restart.
        try Data((common.replacingOccurrences(of: "a.db", with: "b.db")
                  + "log-level = debug\ndeny-private-networks = true\nfetch-timeout = 20s\n").utf8).write(to: config)
        kill(process.processIdentifier, SIGHUP)
        let reloaded = try await waitFor("Changed settings that apply only after a restart", in: log)
        #expect(reloaded.contains(#"msg="Configuration reloaded" changed="log-level=debug,private-networks=none,fetch-timeout=20s""#))
        #expect(reloaded.contains("keys=database"))
        #expect(try ctl(["refresh", "--wait"]).status == 0)
        let failing = try failingFeeds()
        let lastError = failing.first?["last_error"] as? String ?? ""
        #expect(lastError.contains("refused: private-networks = none"), "the reloaded policy reaches the fetcher: \(failing)")
        #expect(try await waitFor("level=debug", in: log).contains(#"msg="Feed failed""#))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("a.db").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.db").path))

        // A file that no longer parses is reported; the daemon keeps its configuration and serves on.
        try Data((common + "log-level = loud\n").utf8).write(to: config)
        kill(process.processIdentifier, SIGHUP)
        let rejected = try await waitFor("Configuration reload failed", in: log)
        #expect(rejected.contains("invalid value 'loud' for 'log-level'"))
        #expect(try ctl(["status"]).status == 0)

        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)
    }
}
