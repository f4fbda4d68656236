import Foundation
@testable import FeedStore
import Testing

@Suite struct QueryTests {
    /// 25 entries one day apart in feed A (Science), 5 in feed B (World).
    private func populated() async throws -> (StoreFixture, Int64, Int64) {
        let fixture = try StoreFixture()
        let science = try await fixture.feed("https://a.example/feed", category: "Science")
        let world = try await fixture.feed("https://b.example/feed", category: "World")
        let base = now.timeIntervalSince1970 - 100 * day
        try await fixture.store.ingest([
            IncomingFeed(feedID: FeedID(science), entries: (0..<25).map {
                entry("https://a.example/\($0)", title: "Science \(String(format: "%02d", $0))", published: base + Double($0) * day)
            }),
            IncomingFeed(feedID: FeedID(world), entries: (0..<5).map {
                entry("https://b.example/\($0)", title: "World \($0)", published: base + Double($0) * day + 3_600)
            }),
        ], now: now)
        return (fixture, science, world)
    }

    @Test func pagesByCursorCoverEverythingOnceInOrder() async throws {
        let (fixture, _, _) = try await populated()
        let reader = try fixture.reader()
        for sort in [ArticleSort.newest, .oldest, .title] {
            var seen: [Article] = []
            var cursor: String?
            repeat {
                let page = try reader.articles(sort: sort, limit: 7, cursor: cursor)
                seen += page.articles
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 30, "sort \(sort)")
            #expect(Set(seen.map(\.id)).count == 30)
            switch sort {
            case .newest: #expect(seen.map { $0.published! } == seen.map { $0.published! }.sorted(by: >))
            case .oldest: #expect(seen.map { $0.published! } == seen.map { $0.published! }.sorted())
            default: #expect(seen.map { $0.title!.lowercased() } == seen.map { $0.title!.lowercased() }.sorted())
            }
        }
    }

    @Test func aCursorStaysValidWhileNewEntriesArrive() async throws {
        let (fixture, science, _) = try await populated()
        let reader = try fixture.reader()
        let first = try reader.articles(limit: 10)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(science), entries: [
            entry("https://a.example/breaking", title: "Breaking", published: now.timeIntervalSince1970),
        ])], now: now)
        let second = try reader.articles(limit: 10, cursor: first.nextCursor)
        #expect(Set(first.articles.map(\.id)).isDisjoint(with: second.articles.map(\.id)))
        #expect(!second.articles.contains { $0.title == "Breaking" })
        #expect(second.articles.first!.published! < first.articles.last!.published!)
    }

    @Test func filtersCombine() async throws {
        let (fixture, science, world) = try await populated()
        let reader = try fixture.reader()
        #expect(try reader.count(ArticleFilter(account: 1, category: "science")) == 25)
        #expect(try reader.count(ArticleFilter(account: 1, feedID: SubscriptionID(world))) == 5)
        let since = now.addingTimeInterval(-80 * day)
        #expect(try reader.count(ArticleFilter(account: 1, category: "Science", since: since)) == 5)
        try await fixture.store.mark(ArticleFilter(account: 1, feedID: SubscriptionID(science), before: since), read: true)
        #expect(try reader.count(ArticleFilter(account: 1, unreadOnly: true)) == 10)
        let categories = try reader.categories(account: 1)
        #expect(categories.map(\.name) == ["Science", "World"])
        #expect(categories.first?.unread == 5 && categories.first?.total == 25)
        let feeds = try reader.feeds(account: 1)
        #expect(feeds.map(\.unread) == [5, 5])
    }

    @Test func aBadCursorIsAClearError() async throws {
        let (fixture, _, _) = try await populated()
        let page = try fixture.reader().articles(sort: .newest, limit: 5)
        #expect(throws: StoreError.self) { try fixture.reader().articles(sort: .title, cursor: page.nextCursor) }
        let error = #expect(throws: StoreError.self) { try fixture.reader().articles(cursor: "garbage!") }
        #expect(error?.kind == .invalidQuery)
    }
}

@Suite struct TotalsAndMarksTests {
    @Test func totalsCountFeedsByStatusAndUnreadEntries() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: (0..<4).map {
            entry("https://a.example/\($0)", title: "E\($0)")
        })], now: now)
        try await fixture.store.mark(ArticleFilter(account: 1), read: true, starred: true)
        try await fixture.store.mark(ids: [1], account: 1, read: false)
        let totals = try fixture.reader().totals(account: 1)
        #expect(totals == StoreTotals(feedsByStatus: [.ok: 1], entries: 4, unread: 1))
        // Setting read and starred together stars every matching row, read or not.
        #expect(try fixture.reader().count(ArticleFilter(account: 1, starredOnly: true)) == 4)
    }

    @Test func aFilterOnTheFlagBeingSetSelectsRowsBeforeAnyFlagMoves() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: (0..<4).map {
            entry("https://a.example/\($0)", title: "E\($0)")
        })], now: now)
        try await fixture.store.mark(ids: [1], account: 1, read: true)
        // "Star what is unread, and mark it read": the three unread ones, starred and read.
        #expect(try await fixture.store.mark(ArticleFilter(account: 1, unreadOnly: true), read: true, starred: true) == 3)
        #expect(try fixture.reader().count(ArticleFilter(account: 1, starredOnly: true)) == 3)
        #expect(try fixture.reader().totals(account: 1).unread == 0)
    }
}
