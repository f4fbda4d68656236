import Foundation
import Testing
@testable import FeedStore

/// Group commits held open across calls (`holdingOpen`), as a refresh round stores its feeds.
@Suite struct GroupCommitTests {
    @Test func heldFeedsAreInvisibleUntilTheCommitEnds() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await store(fixture, "https://a.example/1", title: "One", feed: feed, holdingOpen: true)
        try await store(fixture, "https://a.example/2", title: "Two", feed: feed, holdingOpen: true)
        #expect(try fixture.reader().count() == 0)
        try await fixture.store.finishHeldCommit()
        #expect(try fixture.reader().count() == 2)
        try await fixture.store.finishHeldCommit()  // nothing held: nothing to do
    }

    @Test func anotherWriteCommitsWhatIsHeldFirst() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await store(fixture, "https://a.example/1", title: "One", feed: feed, holdingOpen: true)
        #expect(try await fixture.store.mark(ArticleFilter(account: 1), starred: true) == 1)
        let stored = try fixture.reader().articles().articles
        #expect(stored.map(\.title) == ["One"] && stored.first?.isStarred == true)
    }

    @Test func aGroupWithoutHoldingCommitsEverythingHeld() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await store(fixture, "https://a.example/1", title: "One", feed: feed, holdingOpen: true)
        try await store(fixture, "https://a.example/2", title: "Two", feed: feed)
        #expect(try fixture.reader().count() == 2)
    }

    @Test func aFailingGroupUndoesTheHeldOnesAndSaysSo() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await store(fixture, "https://a.example/1", title: "One", feed: feed, holdingOpen: true)
        let error = await #expect(throws: StoreError.self) {
            try await store(fixture, "https://a.example/2", title: "Bad", feed: 999_999, holdingOpen: true)
        }
        #expect(error?.message.contains("(undone with it: 1 earlier group held open)") == true)
        try await fixture.store.finishHeldCommit()
        #expect(try fixture.reader().count() == 0)
        // The store goes on: the next group commits as usual.
        try await store(fixture, "https://a.example/3", title: "Three", feed: feed)
        #expect(try fixture.reader().count() == 1)
    }

    @Test func aHeldCommitEndsWhenItIsOldEnough() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await store(fixture, "https://a.example/1", title: "One", feed: feed, holdingOpen: true)
        try await Task.sleep(for: FeedStore.heldDuration + .milliseconds(100))
        try await store(fixture, "https://a.example/2", title: "Two", feed: feed, holdingOpen: true)
        #expect(try fixture.reader().count() == 2)
    }

    /// Ingests one entry into `feed`, as a group of its own.
    private func store(_ fixture: StoreFixture, _ url: String, title: String, feed: Int64,
                       holdingOpen: Bool = false) async throws {
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [entry(url, title: title)])],
                                       now: now, holdingOpen: holdingOpen)
    }
}
