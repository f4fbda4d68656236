import Foundation
@testable import FeedStore
import Testing

@Suite struct IngestTests {
    @Test func newThenUnchangedThenUpdatedKeepingReadAndStarred() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        let first = try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [
            entry("https://a.example/1", title: "One", published: 1_000),
            entry("https://a.example/2", title: "Two", published: 2_000),
        ])], now: now)
        #expect(first == [IngestCounts(new: 2)])
        let id = try #require(try fixture.reader().articles().articles.first { $0.title == "Two" }?.id)
        try await fixture.store.mark(ids: [id], account: 1, read: true, starred: true)

        let again = try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [
            entry("https://a.example/1", title: "One", published: 1_000),
            entry("https://a.example/2?utm_source=rss", title: "Two, corrected", published: 2_000),
        ])], now: now)
        #expect(again == [IngestCounts(updated: 1, unchanged: 1)])
        let updated = try #require(try fixture.reader().article(id: id, account: 1))
        #expect(updated.title == "Two, corrected")
        #expect(updated.isRead && updated.isStarred)
        #expect(try fixture.reader().count() == 2)
    }

    @Test func aCrossPostIsStoredOnceAndListedUnderBothFeeds() async throws {
        let fixture = try StoreFixture()
        let tech = try await fixture.feed("https://a.example/feed", category: "Technology")
        let world = try await fixture.feed("https://b.example/feed", category: "World")
        let counts = try await fixture.store.ingest([
            IncomingFeed(feedID: FeedID(tech), entries: [entry("https://news.example/story#top", title: "Story")]),
            IncomingFeed(feedID: FeedID(world), entries: [entry("HTTPS://NEWS.example/story", title: "Story")]),
        ], now: now)
        #expect(counts == [IngestCounts(new: 1), IngestCounts(seenInAnotherFeed: 1)])
        let reader = try fixture.reader()
        #expect(try reader.count() == 1)
        #expect(try reader.count(ArticleFilter(account: 1, category: "world")) == 1)
        #expect(try reader.count(ArticleFilter(account: 1, feedID: SubscriptionID(tech))) == 1)
        // Marked read once, it is read under both feeds.
        try await fixture.store.mark(ArticleFilter(account: 1, category: "Technology"), read: true)
        #expect(try reader.count(ArticleFilter(account: 1, category: "World", unreadOnly: true)) == 0)
    }

    @Test func entriesWithoutLinksFallBackToGuidThenHash() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        let document = IncomingFeed(feedID: FeedID(feed), entries: [
            entry(nil, title: "By guid", guid: "tag:a,2024:1"),
            entry(nil, title: "By hash", published: 5_000),
            entry("/relative/only", title: "Relative link, by hash"),
        ])
        #expect(try await fixture.store.ingest([document], now: now) == [IngestCounts(new: 3)])
        #expect(try await fixture.store.ingest([document], now: now) == [IngestCounts(unchanged: 3)])
    }

    @Test func aFeedWhoseItemsAllShareOneLinkIsKeyedByGuid() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        let counts = try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [
            entry("https://a.example/", title: "Monday", guid: "1"),
            entry("https://a.example/", title: "Tuesday", guid: "2"),
            entry("https://a.example/", title: "Wednesday", guid: "3"),
        ])], now: now)
        #expect(counts == [IngestCounts(new: 3)])
    }

    @Test func missingDatesStayNullAndFutureDatesAreClampedToFirstSeen() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [
            entry("https://a.example/undated", title: "Undated"),
            entry("https://a.example/future", title: "Future", published: now.timeIntervalSince1970 + 30 * day),
        ])], now: now)
        let articles = try fixture.reader().articles().articles
        #expect(articles.first { $0.title == "Undated" }?.published == nil)
        #expect(articles.first { $0.title == "Future" }?.published == now)
    }

    @Test func aFailedGroupCommitStoresNothing() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        await #expect(throws: StoreError.self) {
            try await fixture.store.ingest([
                IncomingFeed(feedID: FeedID(feed), entries: [entry("https://a.example/1", title: "One")]),
                IncomingFeed(feedID: 999_999, entries: [entry("https://a.example/2", title: "No such feed")]),
            ], now: now)
        }
        #expect(try fixture.reader().count() == 0)
    }
}

@Suite struct FingerprintTests {
    /// Stored dedupe keys and fingerprints were made with these values: they must never change.
    @Test func fnv1aKeepsItsValues() {
        #expect(FeedStore.fnv1a([]) == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
        // Values of the byte-iterator version this replaced (and of any FNV-1a with a 0x1F separator).
        #expect(FeedStore.fnv1a(["a"]) == Int64(bitPattern: 0x089B_E907_B544_FDC9))
        #expect(FeedStore.fnv1a(["Title", "café 😀", ""]) == Int64(bitPattern: 0x41A3_F752_21F3_F76B))
    }

    /// `newest_entry_at` moves when a feed brings an entry, new or first carried by another feed, and
    /// stays when a poll brings nothing new.
    @Test func aFeedsNewestEntryTimeMovesOnlyWithEntriesItBrings() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.feed("https://a.example/feed")
        let second = try await fixture.feed("https://b.example/feed")
        let post = entry("https://a.example/1", title: "One", published: now.timeIntervalSince1970 - day)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(first), entries: [post])], now: now)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(first), entries: [post])], now: now.addingTimeInterval(60))
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(second), entries: [post])], now: now.addingTimeInterval(120))
        let feeds = Dictionary(uniqueKeysWithValues: try fixture.reader().feeds(account: 1).map { ($0.id, $0.newestEntryAt) })
        #expect(feeds[SubscriptionID(first)] == now && feeds[SubscriptionID(second)] == now.addingTimeInterval(120), "\(feeds)")
    }
}
