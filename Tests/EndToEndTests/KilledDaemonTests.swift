import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon killed with SIGKILL in the middle of its rounds, again and again, on one database:
/// each restart opens it, and in the end every feed's entries are there exactly once. A feed
/// recorded as fetched (so not due again for 15 minutes) without its entries would stay short.
@Suite struct KilledDaemonTests {
    let daemon = Binary("aggregatord")
    let cli = Binary("aggregatorctl")

    @Test func killedMidRoundTheDaemonRestartsOnAConsistentDatabaseAndLosesNothing() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 100 feeds of 20 items each, 100 ms apiece, one at a time: a round of ten seconds, whose
        // group commits (every 2 s) land before each kill, so each run stores part of it.
        let feeds = 100
        let seed = try writeSeedOPML((1...feeds).map { ("Feed \($0)", server.url("/numbered/100/\($0)")) }, in: directory)
        let database = try testDatabase(in: directory)
        let socket = directory.appendingPathComponent("ctl.sock").path
        // On PostgreSQL each restart has its predecessor's node name (the same host and socket), so it
        // takes the killed daemon's claims back at once: the default lease (60 s) never holds it up.
        let arguments = ["--database", database, "--socket", socket, "--seed-opml", seed.path,
                         "--per-host-connections", "1"]

        for (round, after) in [2.6, 3.1, 2.2].enumerated() {
            let log = directory.appendingPathComponent("killed-\(round).log")
            let process = try daemon.start(arguments, logFile: log)
            // Killed by a Dispatch timer, on time however busy Swift's pool is in a full test run
            // (a late `Task.sleep` let whole rounds finish before the kill).
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + after) { kill(pid, SIGKILL) }
            _ = try await waitForExit(process, timeout: after + 30)
            #expect(process.terminationReason == .uncaughtSignal, "round \(round) ended before it was killed")
        }

        let log = directory.appendingPathComponent("daemon.log")
        let process = try daemon.start(arguments, logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The rest of the round: several seconds of 100 ms answers, more on a loaded machine.
        do {
            _ = try await waitFor("msg=\"Refresh round done\"", in: log, timeout: 60)
        } catch {
            // Say what the daemon was doing, not only that it was slow.
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            Issue.record("\(error)\nthe daemon's log ends:\n\(text.suffix(3000))")
            throw error
        }
        let status = try cli.run(["--socket", socket, "--json", "status"])
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        #expect(object?["entries"] as? Int == feeds * 20, "\(status.output)")
        #expect((object?["feeds"] as? [String: Any])?["ok"] as? Int == feeds, "\(status.output)")
        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)

        if !TestPostgres.isOn {  // PostgreSQL outlives the daemon: its writes are whole transactions or none
            let check = try runPython(
                "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
                [database])
            #expect(check.output == "ok\n", "\(check.output)\(check.error)")
        }
    }
}
