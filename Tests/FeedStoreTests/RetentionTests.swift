import Foundation
@testable import FeedStore
import Testing

@Suite struct RetentionTests {
    @Test func expiredEntriesNeverComeBackAndStarredOnesStay() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        let document = IncomingFeed(feedID: FeedID(feed), entries: (0..<10).map {
            entry("https://a.example/\($0)", title: "Entry \($0)", published: now.timeIntervalSince1970 - Double(100 - $0) * day)
        })
        try await fixture.store.ingest([document], now: now)
        let starred = try #require(try fixture.reader().articles(sort: .oldest, limit: 1).articles.first)
        try await fixture.store.mark(ids: [starred.id], account: 1, starred: true)

        let expired = try await fixture.store.expire(RetentionPolicy(maximumAgeDays: 30, keepNewestPerFeed: 3),
                                                     now: now, batchSize: 2)
        #expect(expired == 6)  // 10 old entries, 3 newest kept, 1 starred kept
        #expect(try fixture.reader().count() == 4)
        #expect(try fixture.reader().count(ArticleFilter(account: 1, search: "entry")) == 4)
        // Expired rows sort below every date: oldest-first listings start past them.
        #expect(try fixture.reader().articles(sort: .oldest, limit: 10).articles.map(\.title) ==
            ["Entry 0", "Entry 7", "Entry 8", "Entry 9"])
        #expect(try fixture.reader().database.integer("SELECT count(*) FROM entries WHERE sort_at = -9223372036854775808") == 6)

        // The next poll carries the same items: nothing comes back.
        let counts = try await fixture.store.ingest([document], now: now)
        #expect(counts == [IngestCounts(unchanged: 10)])
        #expect(try fixture.reader().count() == 4)
    }

    @Test func onlyFeedsCarryingMoreThanTheyKeepLoseEntries() async throws {
        let fixture = try StoreFixture()
        let small = try await fixture.feed("https://small.example/feed")
        let large = try await fixture.feed("https://large.example/feed")
        func old(_ site: String, _ count: Int) -> [IncomingEntry] {
            (0..<count).map { entry("https://\(site)/\($0)", title: "Old \($0)", published: now.timeIntervalSince1970 - Double(200 - $0) * day) }
        }
        // The small feed carries 3 entries of its own and the large feed's newest 2: 5, all it keeps.
        let largeEntries = old("large.example", 8)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(large), entries: largeEntries)], now: now)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(small), entries: old("small.example", 3) + largeEntries.suffix(2))], now: now)

        let expired = try await fixture.store.expire(RetentionPolicy(maximumAgeDays: 30, keepNewestPerFeed: 5), now: now)
        #expect(expired == 3)  // the large feed's 3 oldest; the small feed is within its 5
        #expect(try fixture.reader().count() == 8)
        #expect(try fixture.reader().count(ArticleFilter(account: 1, search: "old")) == 8)
    }
}
