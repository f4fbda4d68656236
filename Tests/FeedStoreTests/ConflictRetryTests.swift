import Foundation
@testable import FeedStore
import Testing

/// A transaction PostgreSQL undoes to end a deadlock is run again (docs/RELIABILITY.md, "Conflicts"):
/// two daemons storing the same new entries at once deadlock now and then, and the loser's feeds
/// used to wait for their next turn.
@Suite(.enabled(if: TestDatabase.isPostgres, "PostgreSQL's deadlocks")) struct ConflictRetryTests {
    @Test func aTransactionThatLosesADeadlockIsRunAgain() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.feed("https://a.example/feed"), second = try await fixture.feed("https://b.example/feed")
        let feeds = (try await fixture.store.feedID(ofSubscription: first, account: 1),
                     try await fixture.store.feedID(ofSubscription: second, account: 1))
        let mine = try Database(path: fixture.path)
        nonisolated(unsafe) let other = try Database(path: fixture.path)
        try other.execute("BEGIN; UPDATE feeds SET title = 'other' WHERE id = \(feeds.1)")
        // The other session then asks for the row this transaction holds, while this one waits for
        // the row it holds: a deadlock, which PostgreSQL ends (after deadlock_timeout, 1 s) by undoing
        // the transaction that waited first, this one.
        let done = DispatchSemaphore(value: 0)
        Thread {
            Thread.sleep(forTimeInterval: 0.3)
            try? other.execute("UPDATE feeds SET title = 'other' WHERE id = \(feeds.0)")
            try? other.execute("COMMIT")
            done.signal()
        }.start()
        var runs = 0
        try mine.retryingConflicts { () throws(StoreError) in
            runs += 1
            try mine.execute("UPDATE feeds SET title = 'mine' WHERE id = \(feeds.0)")
            try mine.execute("UPDATE feeds SET title = 'mine' WHERE id = \(feeds.1)")
        }
        done.wait()
        #expect(runs == 2, "undone once, then run again")
        #expect(try mine.integer("SELECT count(*) FROM feeds WHERE title = 'mine'") == 2)
    }
}
