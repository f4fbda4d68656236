import Foundation
@testable import FeedStore
import Glibc
import Testing

/// Every call to PostgreSQL has a deadline on this side (docs/RELIABILITY.md, "A silent network"),
/// sending included: a statement larger than the socket's buffers, sent to a server that reads
/// nothing (as over a network gone silent), used to wait on the kernel for good.
@Suite(.enabled(if: TestDatabase.isPostgres, "PostgreSQL's connections")) struct ConnectionDeadlineTests {
    @Test func aLargeStatementSentIntoSilenceEndsAtTheDeadline() throws {
        let fixture = try StoreFixture()
        nonisolated(unsafe) let database = try Database(path: fixture.path, limits: DatabaseLimits(statementTimeout: .milliseconds(500)))
        let statement = "SELECT length(?1)"
        #expect(try database.integer(statement, [.text("prepared")]) == 8)
        let backend = pid_t(try #require(try database.integer("SELECT pg_backend_pid()")))
        // The server's process for this session stops: it reads nothing more, and its socket's buffers fill.
        try #require(kill(backend, SIGSTOP) == 0, "the test must be able to signal the server's processes")
        defer { kill(backend, SIGCONT) }

        let ended = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: (error: StoreError?, took: Duration)?
        Thread {  // on a thread of its own: without a deadline the send never returns
            let started = ContinuousClock.now
            do throws(StoreError) {
                _ = try database.integer(statement, [.text(String(repeating: "x", count: 32 << 20))])
                outcome = (nil, started.duration(to: .now))
            } catch {
                outcome = (error, started.duration(to: .now))
            }
            ended.signal()
        }.start()
        try #require(ended.wait(timeout: .now() + 60) == .success, "the statement was still being sent after 60 s")
        let (error, took) = try #require(outcome)
        #expect(error?.kind == .busy, "\(String(describing: error))")
        #expect(took >= .seconds(5) && took < .seconds(20), "db-statement-timeout (0.5 s) + 5 s: \(took)")

        kill(backend, SIGCONT)
        #expect(try database.integer("SELECT 1") == 1, "the next statement connects again")
    }
}
