@testable import AggregatorCore
import FeedFetcher
@testable import FeedStore
import Foundation
import TestSupport
import Testing

/// A round whose results cannot be stored (the database full: SQLite's max_page_count) tells the
/// truth: those feeds count as failed, are recorded failing with a storage reason and checked again
/// soon; once there is room, the next round stores everything.
@Suite(.timeLimit(.minutes(3))) struct StorageFaultTests {
    @Test func aFullDatabaseFailsTheRoundsFeedsAndTheNextRoundStoresThem() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("full.db").path
        let store = try FeedStore(path: path)
        let logger = Logger(minimumLevel: .error, component: "test", journald: false) { _ in }
        let pipeline = RefreshPipeline(store: store, fetcher: FeedFetcher(userAgent: "aggregatord-test"), logger: logger)
        try await store.addFeeds([.init(url: server.url("/many.xml"))])
        let due = try await store.feedsToFetch()
        #expect(due.count == 1)

        // Room for what is there now and a little more: not for 250 entries with their index.
        let pages = try #require(try StoreReader(path: path).database.integer("PRAGMA page_count"))
        try await store.limitPages(to: Int(pages) + 2)
        let failed = await pipeline.refresh(due)
        #expect(failed.failed == 1 && failed.ok == 0 && failed.newEntries == 0 && failed.unstored == 1, "\(failed.line)")
        #expect(failed.line.contains(" unstored=1 "))
        let feeds = try StoreReader(path: path).feeds()
        #expect(feeds.allSatisfy { $0.status == .failing && ($0.lastError ?? "").contains("not stored: ") }, "\(feeds)")
        #expect(feeds.allSatisfy { $0.lastError?.contains("not the feed's") == true })
        #expect(try StoreReader(path: path).totals().entries == 0)
        // Checked again after the shortest interval, not at once and not at some unrelated later time.
        let retries = feeds.compactMap(\.nextCheckAt).map { $0.timeIntervalSinceNow }
        #expect(retries.count == 1 && retries.allSatisfy { $0 > 0 && $0 <= pipeline.policy.minimumInterval + 5 }, "\(retries)")

        // Room again: the next round stores everything.
        try await store.limitPages(to: 1_000_000)
        let stored = await pipeline.refresh(due)
        #expect(stored.failed == 0 && stored.ok == 1 && stored.newEntries == 250, "\(stored.line)")
        #expect(try StoreReader(path: path).feeds().allSatisfy { $0.status == .ok })
        #expect(try StoreReader(path: path).totals().entries == 250)
    }

    /// Another program holding the database's write lock through a round: the round's results
    /// cannot be stored, the round says so, and the next one, the lock gone, stores everything.
    @Test func aDatabaseLockedByAnotherProgramFailsTheRoundAndLosesNothing() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("locked.db").path
        let store = try FeedStore(path: path)
        let logger = Logger(minimumLevel: .error, component: "test", journald: false) { _ in }
        let pipeline = RefreshPipeline(store: store, fetcher: FeedFetcher(userAgent: "aggregatord-test"), logger: logger)
        try await store.addFeeds([.init(url: server.url("/many.xml"))])
        let due = try await store.feedsToFetch()

        let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")  // what `sqlite3 a.db` does on its first write
        let failed = await pipeline.refresh(due)
        #expect(failed.failed == 1 && failed.ok == 0 && failed.newEntries == 0 && failed.unstored == 1, "\(failed.line)")
        try other.execute("ROLLBACK")

        let stored = await pipeline.refresh(due)
        #expect(stored.failed == 0 && stored.ok == 1 && stored.newEntries == 250, "\(stored.line)")
        #expect(try StoreReader(path: path).totals().entries == 250)
        #expect(try StoreReader(path: path).feeds().allSatisfy { $0.status == .ok })
    }
}
