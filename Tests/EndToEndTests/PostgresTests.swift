import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon on PostgreSQL (docs/ARCHITECTURE.md), where only PostgreSQL can say something: start-up refused
/// with a reason that says which and what to do and never the password, and `copy-database` both
/// ways with the real binaries. Runs with the test cluster (`make test-postgres`).
@Suite(.enabled(if: TestPostgres.isOn, "needs the PostgreSQL test cluster (make test-postgres)"))
struct PostgresTests {
    let daemon = Binary("aggregatord")

    private func start(_ database: String, in directory: URL) throws -> Binary.Result {
        try daemon.run(["--database", database, "--socket", directory.appendingPathComponent("ctl.sock").path,
                        "--seed-opml", "", "--once"])
    }

    @Test func startUpSaysWhatIsWrongWithTheDatabaseAndNeverThePassword() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = try #require(TestPostgres.baseURI)
        let secret = "hunter2-\(UUID().uuidString.prefix(8))"
        let cases: [(uri: String, says: [String])] = [
            ("postgresql:///aggregator?host=\(directory.path)/nowhere&password=\(secret)",
             ["cannot connect to PostgreSQL", "is the server running", "password=***"]),
            (base.replacingOccurrences(of: "/postgres?", with: "/no_such_database?") + "&password=\(secret)",
             ["no_such_database", "does not exist", "createdb"]),
            ("postgresql://aggregator:\(secret)@[::1:5432/x", ["cannot connect to PostgreSQL", "fix the URI", ":***@"]),
        ]
        for (uri, says) in cases {
            let result = try start(uri, in: directory)
            #expect(result.status == 1, "\(uri)")
            for part in says { #expect(result.error.contains(part), "\(uri): \(result.error)") }
            #expect(!result.error.contains(secret) && !result.output.contains(secret), "the password was shown: \(result.error)")
        }
    }

    @Test func aSchemaFromANewerBuildIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try TestPostgres.freshDatabase()
        let psql = Binary(url: URL(fileURLWithPath: "/usr/bin/psql"))
        #expect(try psql.run(["-q", "-X", database, "-c",
                              "CREATE TABLE aggregator_schema (version bigint NOT NULL); INSERT INTO aggregator_schema VALUES (999)"]).status == 0)
        let result = try start(database, in: directory)
        #expect(result.status == 1)
        #expect(result.error.contains("schema version 999, newer than this build's"), "\(result.error)")
    }

    /// A database made on SQLite moves to PostgreSQL and back, and the daemon started on each copy
    /// lists the same articles through the CLI.
    @Test func copyDatabaseMovesEverythingBothWaysAndRefusesToOverwrite() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = try writeSeedOPML((1...3).map { ("Feed \($0)", server.url("/numbered/20/\($0)")) }, in: directory)
        let sqlite = directory.appendingPathComponent("a.db").path
        let round = try daemon.run(["--once", "--database", sqlite, "--seed-opml", seed.path])
        #expect(round.status == 0, "\(round.error)")

        let postgres = try TestPostgres.freshDatabase()
        let there = try daemon.run(["copy-database", sqlite, postgres])
        #expect(there.status == 0, "\(there.error)")
        #expect(there.output.contains("accounts=1 feeds=3 subscriptions=3 entries=60 marks=0 tokens=0"), "\(there.output)")
        #expect(there.error.contains("copied entries: 60"))
        #expect(there.error.contains("indexing 60 entries for search"))
        let again = try daemon.run(["copy-database", sqlite, postgres])
        #expect(again.status == 1 && again.error.contains("already holds aggregator tables"), "\(again.error)")

        let back = directory.appendingPathComponent("back.db").path
        let returned = try daemon.run(["copy-database", postgres, back])
        #expect(returned.status == 0, "\(returned.error)")
        #expect(returned.output.contains("entries=60"))

        var listings: [String] = []
        for database in [sqlite, postgres, back] {
            let socket = directory.appendingPathComponent("ctl.sock").path
            let log = directory.appendingPathComponent("daemon.log")
            let process = try daemon.start(["--database", database, "--socket", socket, "--seed-opml", ""], logFile: log)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            _ = try await waitFor("msg=Started", in: log)
            let list = try Binary("aggregatorctl").run(["--socket", socket, "--json", "articles", "--limit", "100"])
            #expect(list.status == 0, "\(list.error)")
            listings.append(list.output)
            kill(process.processIdentifier, SIGTERM)
            _ = try await waitForExit(process)
            try? FileManager.default.removeItem(at: log)
        }
        #expect(listings[0].contains("\"id\""))
        #expect(listings[1] == listings[0] && listings[2] == listings[0])
    }
}
