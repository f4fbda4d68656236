import ControlProtocol
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct DaemonLifecycleTests {
    let daemon = Binary("aggregatord")

    @Test func versionAndHelp() throws {
        let version = try daemon.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output == "aggregatord \(AggregatorVersion.current)\n")
        let help = try daemon.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: aggregatord"))
        let wrong = try daemon.run(["--frobnicate"])
        #expect(wrong.status == 2)
        #expect(wrong.error.hasPrefix("Error: Unknown option '--frobnicate'"))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func firstStartImportsTheSeedAndStopSignalsExitCleanly(signal: Int32) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = directory.appendingPathComponent("seed.opml")
        try Data("""
            <opml version="2.0"><body><outline text="World">
              <outline text="A" xmlUrl="http://127.0.0.1:9/a.xml"/>
              <outline text="B" xmlUrl="http://127.0.0.1:9/b.xml"/>
            </outline></body></opml>
            """.utf8).write(to: seed)
        let database = directory.appendingPathComponent("state/aggregator.db").path
        let arguments = ["--database", database, "--seed-opml", seed.path,
                         "--socket", directory.appendingPathComponent("ctl.sock").path]

        let log = directory.appendingPathComponent("first.log")
        let first = try daemon.start(arguments, logFile: log)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }  // a failed wait leaves none running
        let firstLog = try await waitFor("msg=Started", in: log)
        #expect(firstLog.contains("msg=\"Imported seed feeds\""))
        #expect(firstLog.contains("feeds=2"))
        kill(first.processIdentifier, signal)
        #expect(try await waitForExit(first) == 0)
        #expect(try await waitFor("msg=Stopped", in: log).contains("msg=Stopping"))

        // The second start finds the feeds already there and does not import again.
        let secondLog = directory.appendingPathComponent("second.log")
        let second = try daemon.start(arguments, logFile: secondLog)
        defer { if second.isRunning { kill(second.processIdentifier, SIGKILL) } }
        let text = try await waitFor("msg=Started", in: secondLog)
        #expect(!text.contains("Imported seed feeds"))
        #expect(text.contains("feeds=2"))
        kill(second.processIdentifier, SIGTERM)
        #expect(try await waitForExit(second) == 0)
    }

    @Test func aSecondDaemonOnTheSameDatabaseIsRefusedUntilTheFirstHasGone() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("a.db").path
        func arguments(_ socket: String) -> [String] {
            ["--database", database, "--seed-opml", "", "--socket", directory.appendingPathComponent(socket).path]
        }
        let log = directory.appendingPathComponent("first.log")
        let first = try daemon.start(arguments("first.sock"), logFile: log)
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        _ = try await waitFor("msg=Started", in: log)

        // Another socket does not make it another daemon: the database is taken, by that pid.
        let second = try daemon.run(arguments("second.sock"))
        #expect(second.status == 1)
        #expect(second.error.contains("database \(database) is in use by another aggregatord (pid \(first.processIdentifier))"),
                "\(second.error)")
        let once = try daemon.run(["--once"] + arguments("once.sock"))
        #expect(once.status == 1 && once.error.contains("is in use by another aggregatord"), "\(once.error)")

        // However the first ends, even killed, the database is free again.
        kill(first.processIdentifier, SIGKILL)
        _ = try await waitForExit(first)
        let after = try daemon.run(["--once"] + arguments("once.sock"))
        #expect(after.status == 0, "\(after.error)")
    }

    @Test func aFileThatIsNotADatabaseStopsStartupWithAReason() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notADatabase = directory.appendingPathComponent("notes.db")
        try Data(String(repeating: "hello\n", count: 200).utf8).write(to: notADatabase)
        let result = try daemon.run(["--database", notADatabase.path, "--seed-opml", ""])
        #expect(result.status == 1)
        #expect(result.error.contains("is not an SQLite database"))
    }

    @Test func anUnknownKeyInTheConfigFileIsNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("aggregatord.conf")
        try Data("database = \(directory.path)/a.db\npoll-interval = 5\n".utf8).write(to: config)
        let result = try daemon.run(["--config", config.path])
        #expect(result.status == 1)
        #expect(result.error.contains("unknown configuration key 'poll-interval'"))
    }
}
