import Foundation
@testable import FeedStore
import Testing

@Suite struct RemoveFeedTests {
    @Test func removingAFeedKeepsStarredAndCrossPostedEntries() async throws {
        let fixture = try StoreFixture()
        let a = try await fixture.feed("https://a.example/feed", category: "One")
        let b = try await fixture.feed("https://b.example/feed", category: "Two")
        try await fixture.store.ingest([
            IncomingFeed(feedID: FeedID(a), entries: [
                entry("https://a.example/only", title: "Only in A"),
                entry("https://a.example/starred", title: "Starred in A"),
                entry("https://shared.example/x", title: "Shared"),
            ]),
            IncomingFeed(feedID: FeedID(b), entries: [entry("https://shared.example/x", title: "Shared")]),
        ], now: now)
        let reader = try fixture.reader()
        let starred = try #require(try reader.articles().articles.first { $0.title == "Starred in A" })
        try await fixture.store.mark(ids: [starred.id], account: 1, starred: true)

        try await fixture.store.removeFeed(id: SubscriptionID(a), account: 1)
        let titles = try reader.articles().articles.compactMap(\.title).sorted()
        #expect(titles == ["Shared", "Starred in A"])
        #expect(try reader.articles(ArticleFilter(account: 1, category: "Two")).articles.map(\.title) == ["Shared"])
        #expect(try reader.count(ArticleFilter(account: 1, search: "only")) == 0)
        #expect(try reader.feeds(account: 1).map(\.url) == ["https://b.example/feed"])
        await #expect(throws: StoreError.self) { try await fixture.store.removeFeed(id: SubscriptionID(a), account: 1) }
    }

    /// Apps cache ids: the entries a removed feed took with it leave their ids unused for good.
    @Test func theIdsOfRemovedEntriesAreNeverGivenOutAgain() async throws {
        let fixture = try StoreFixture()
        let a = try await fixture.feed("https://a.example/feed")
        let b = try await fixture.feed("https://b.example/feed")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(a), entries: [entry("https://a.example/1", title: "A1")])], now: now)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(b), entries: [entry("https://b.example/1", title: "B1"),
                                                                          entry("https://b.example/2", title: "B2")])], now: now)
        let reader = try fixture.reader()
        let removed = try reader.articles().articles.filter { $0.feedID?.rawValue == b }.map(\.id)
        try await fixture.store.removeFeed(id: SubscriptionID(b), account: 1)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(a), entries: [entry("https://a.example/2", title: "A2")])], now: now)
        let next = try #require(try reader.articles().articles.first { $0.title == "A2" }?.id)
        #expect(next > removed.max() ?? EntryID(.max), "\(next) reuses one of \(removed)")
    }
}
