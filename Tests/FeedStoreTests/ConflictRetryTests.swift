import Foundation
@testable import FeedStore
import Testing

/// A transaction PostgreSQL undoes to end a deadlock is run again (docs/RELIABILITY.md, "Conflicts"):
/// two daemons storing the same new entries at once deadlock now and then, and the loser's feeds
/// used to wait for their next turn. One whose connection is lost before COMMIT is run again once.
@Suite(.enabled(if: TestDatabase.isPostgres, "PostgreSQL's deadlocks")) struct ConflictRetryTests {
    @Test func aTransactionThatLosesADeadlockIsRunAgain() async throws {
        let (fixture, feeds, done) = try await Self.deadlockAhead()
        let mine = try Database(path: fixture.path)
        var runs = 0
        try mine.transaction { () throws(StoreError) in
            runs += 1
            try mine.execute("UPDATE feeds SET title = 'mine' WHERE id = \(feeds.0)")
            try mine.execute("UPDATE feeds SET title = 'mine' WHERE id = \(feeds.1)")
        }
        done.wait()
        #expect(runs == 2, "undone once, then run again")
        #expect(try mine.integer("SELECT count(*) FROM feeds WHERE title = 'mine'") == 2)
    }

    /// Its session ended by the server mid-transaction (an administrator's pg_terminate_backend, a
    /// restart): the transaction was rolled back, so it runs again on a new connection, once.
    @Test func aTransactionWhoseConnectionIsLostBeforeCommitIsRunAgainOnce() async throws {
        let fixture = try StoreFixture()
        let mine = try Database(path: fixture.path)
        let other = try Database(path: fixture.path)
        try mine.execute("CREATE TABLE lost_test (n INTEGER)")
        var runs = 0
        try mine.transaction { () throws(StoreError) in
            runs += 1
            try mine.execute("INSERT INTO lost_test VALUES (\(runs))")
            if runs == 1 {
                let pid = try mine.integer("SELECT pg_backend_pid()") ?? 0
                try other.execute("SELECT pg_terminate_backend(\(pid))")
            }
            try mine.execute("INSERT INTO lost_test VALUES (\(runs))")
        }
        #expect(runs == 2)
        #expect(try mine.integer("SELECT count(*) FROM lost_test WHERE n = 2") == 2)
        #expect(try mine.integer("SELECT count(*) FROM lost_test WHERE n = 1") == 0, "the first run was rolled back")

        // Lost again on the second run too: the error, not a third run.
        runs = 0
        #expect(throws: StoreError.self) {
            try mine.transaction { () throws(StoreError) in
                runs += 1
                let pid = try mine.integer("SELECT pg_backend_pid()") ?? 0
                try other.execute("SELECT pg_terminate_backend(\(pid))")
                try mine.execute("INSERT INTO lost_test VALUES (3)")
            }
        }
        #expect(runs == 2)
    }

    /// A statement run alone (its own transaction) that loses a deadlock is run again the same way.
    @Test func aStatementOfItsOwnThatLosesADeadlockIsRunAgain() async throws {
        let (fixture, feeds, done) = try await Self.deadlockAhead()
        let mine = try Database(path: fixture.path)
        // One statement taking the rows in order (a CTE ordered by id, locking as it goes).
        try mine.statement("""
            UPDATE feeds SET title = 'mine' WHERE id IN (SELECT id FROM feeds WHERE id IN (?1, ?2) ORDER BY id FOR UPDATE)
            """).run([.feed(feeds.0), .feed(feeds.1)])
        done.wait()
        #expect(try mine.integer("SELECT count(*) FROM feeds WHERE title = 'mine'") == 2, "undone, then run again")
    }

    /// Two feeds, and another session that holds the second's row now and asks for the first's in
    /// 0.3 s: a transaction that takes the first's row meanwhile and then asks for the second's
    /// deadlocks with it, and PostgreSQL ends that (after deadlock_timeout, 1 s) by undoing the one
    /// that waited first, the test's. `done` is signalled once the other session has committed.
    private static func deadlockAhead() async throws -> (StoreFixture, (FeedID, FeedID), DispatchSemaphore) {
        let fixture = try StoreFixture()
        let first = try await fixture.feed("https://a.example/feed"), second = try await fixture.feed("https://b.example/feed")
        let feeds = (try await fixture.store.feedID(ofSubscription: SubscriptionID(first), account: 1),
                     try await fixture.store.feedID(ofSubscription: SubscriptionID(second), account: 1))
        nonisolated(unsafe) let other = try Database(path: fixture.path)
        try other.execute("BEGIN; UPDATE feeds SET title = 'other' WHERE id = \(feeds.1)")
        let done = DispatchSemaphore(value: 0)
        Thread {
            Thread.sleep(forTimeInterval: 0.3)
            try? other.execute("UPDATE feeds SET title = 'other' WHERE id = \(feeds.0)")
            try? other.execute("COMMIT")
            done.signal()
        }.start()
        return (fixture, feeds, done)
    }
}
