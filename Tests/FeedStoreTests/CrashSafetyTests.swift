import Foundation
@testable import FeedStore
import Testing

/// A writer killed with SIGKILL in the middle of ingesting must leave a consistent database that
/// still holds every committed entry and no half-stored feed (on PostgreSQL too: the server survives
/// the writer, and its transaction is rolled back).
@Suite struct CrashSafetyTests {
    @Test func killedMidIngestLeavesEveryCommittedEntryAndNoHalfFeed() async throws {
        let fixture = try StoreFixture()
        let helper = Bundle.main.bundleURL.appendingPathComponent("StoreCrashHelper")
        var lastCommitted = 0
        for round in 0..<25 {
            let process = Process()
            process.executableURL = helper
            process.arguments = [fixture.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Let it commit at least once more, then kill it at a moment that varies from round to round.
            var seen = ""
            let deadline = Date().addingTimeInterval(20)
            func reported() -> [Int] { seen.split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") } }
            while (reported().max() ?? 0) <= lastCommitted && Date() < deadline {
                seen += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            try await Task.sleep(for: .milliseconds(3 + (round * 7) % 40))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            lastCommitted = try #require(reported().max(), "round \(round): the helper never committed")

            let database = try Database(path: fixture.path)
            if database.dialect == .sqlite {
                let check = try database.prepare("PRAGMA integrity_check")
                #expect(try check.step())
                #expect(check.text(at: 0) == "ok", "round \(round)")
            }
            let stored = Int(try database.integer("SELECT count(*) FROM entries") ?? -1)
            #expect(stored >= lastCommitted, "round \(round): committed entries lost")
            #expect(stored % 100 == 0, "round \(round): a group commit was stored in part")
            let perFeed = try database.prepare("SELECT count(*) FROM entry_sources GROUP BY feed_id")
            while try perFeed.step() { #expect(perFeed.int64(at: 0) % 20 == 0, "round \(round): a half-stored feed") }
            lastCommitted = stored
        }
    }
}
