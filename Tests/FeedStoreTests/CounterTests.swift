import Foundation
@testable import FeedStore
import Testing

/// The unread and total counters the writer keeps must always equal a count of the rows.
@Suite struct CounterTests {
    /// Every counter as stored; then rebuilt from the rows, and compared.
    private func expectCountersMatchRows(_ fixture: StoreFixture, _ step: String,
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reader = try fixture.reader()
        let kept = (try reader.feeds(account: 1), try reader.categories(account: 1), try reader.totals(account: 1))
        try await fixture.store.recountCounters()
        let counted = (try reader.feeds(account: 1), try reader.categories(account: 1), try reader.totals(account: 1))
        #expect(kept.0 == counted.0, "feed counters after \(step)", sourceLocation: sourceLocation)
        #expect(kept.1 == counted.1, "category counters after \(step)", sourceLocation: sourceLocation)
        #expect(kept.2 == counted.2, "totals after \(step)", sourceLocation: sourceLocation)
        // Each entry's state names its sources right: how many, and a primary feed among them.
        let wrongState = try reader.database.integer("""
            SELECT count(*) FROM entry_state st
            WHERE st.sources != (SELECT count(*) FROM entry_sources s WHERE s.entry_id = st.entry_id)
               OR (st.feed_id IS NULL) != (st.sources = 0)
               OR (st.feed_id IS NOT NULL AND NOT EXISTS (
                   SELECT 1 FROM entry_sources s WHERE s.entry_id = st.entry_id AND s.feed_id = st.feed_id))
            """)
        #expect(wrongState == 0, "entry_state after \(step)", sourceLocation: sourceLocation)
    }

    private func counts(_ fixture: StoreFixture) throws -> (feeds: [String: [Int]], categories: [String: [Int]]) {
        let reader = try fixture.reader()
        var feeds: [String: [Int]] = [:]
        for feed in try reader.feeds(account: 1) { feeds[feed.url] = [feed.unread, feed.total] }
        var categories: [String: [Int]] = [:]
        for category in try reader.categories(account: 1) { categories[category.name] = [category.unread, category.total] }
        return (feeds, categories)
    }

    @Test func crossPostsCountOncePerCategoryAndFollowEveryChange() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let a = try await fixture.feed("https://a.example/feed", category: "Tech")
        let b = try await fixture.feed("https://b.example/feed", category: "Tech")
        let c = try await fixture.feed("https://c.example/feed", category: "World")
        let d = try await fixture.feed("https://d.example/feed")
        func story(_ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: "Story \(n)", published: Double(n) * day) }
        try await store.ingest([
            IncomingFeed(feedID: FeedID(a), entries: [story(1), story(2), story(3)]),
            IncomingFeed(feedID: FeedID(b), entries: [story(2), story(4)]),
            IncomingFeed(feedID: FeedID(c), entries: [story(3), story(5)]),
            IncomingFeed(feedID: FeedID(d), entries: [story(1)]),
        ], now: now)
        var current = try counts(fixture)
        #expect(current.feeds["https://a.example/feed"] == [3, 3])
        #expect(current.feeds["https://b.example/feed"] == [2, 2])
        #expect(current.categories["Tech"] == [4, 4], "story 2 is in two Tech feeds and counts once")
        #expect(current.categories["World"] == [2, 2])
        #expect(try fixture.reader().totals(account: 1).entries == 5)
        try await expectCountersMatchRows(fixture, "ingest")

        let two = try #require(try fixture.reader().articles(ArticleFilter(account: 1, search: "\"Story 2\"")).articles.first?.id)
        #expect(try await store.mark(ids: [two], account: 1, read: true, starred: true) == 1)
        #expect(try await store.mark(ids: [two], account: 1, read: true) == 0, "already read: nothing changes")
        current = try counts(fixture)
        #expect(current.feeds["https://a.example/feed"] == [2, 3])
        #expect(current.feeds["https://b.example/feed"] == [1, 2])
        #expect(current.categories["Tech"] == [3, 4])
        try await expectCountersMatchRows(fixture, "marking one article")

        #expect(try await store.mark(ArticleFilter(account: 1, category: "World"), read: true) == 2)
        current = try counts(fixture)
        #expect(current.feeds["https://a.example/feed"] == [1, 3], "story 3 is read under Tech too")
        #expect(current.categories["Tech"] == [2, 4])
        #expect(current.categories["World"] == [0, 2])
        #expect(try fixture.reader().totals(account: 1).unread == 2)
        try await expectCountersMatchRows(fixture, "marking a category")

        try await store.removeFeed(id: SubscriptionID(a), account: 1)
        current = try counts(fixture)
        #expect(current.categories["Tech"] == [1, 2], "stories 2 and 4 stay through feed b; 1 and 3 leave Tech")
        #expect(try fixture.reader().totals(account: 1).entries == 5, "every story is still carried or starred")
        try await expectCountersMatchRows(fixture, "removing a feed")

        try await store.updateFeed(id: SubscriptionID(c), account: 1, changing { $0.category = "Tech" })
        current = try counts(fixture)
        #expect(current.categories["Tech"] == [1, 4])
        #expect(current.categories["World"] == [0, 0])
        try await expectCountersMatchRows(fixture, "moving a feed")

        try await store.renameCategory("tech", to: "World", account: 1)
        current = try counts(fixture)
        #expect(current.categories["World"] == [1, 4])
        #expect(current.categories["Tech"] == nil)
        try await expectCountersMatchRows(fixture, "merging categories")

        let expired = try await store.expire(RetentionPolicy(maximumAgeDays: 1, keepNewestPerFeed: 0), now: now)
        #expect(expired == 4, "all but the starred story")
        #expect(try fixture.reader().totals(account: 1) == StoreTotals(feedsByStatus: [.ok: 3], entries: 1, unread: 0))
        try await expectCountersMatchRows(fixture, "retention")
    }

    @Test func aRandomWalkOfChangesNeverLetsCountersDrift() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var random = SeededGenerator(seed: 42)
        let categories = ["Tech", "World", "Sports", ""]
        var feeds: [Int64] = []
        for index in 0..<6 {
            feeds.append(try await fixture.feed("https://\(index).example/feed", category: categories[index % 3]))
        }
        for step in 0..<250 {
            let feed = feeds[Int.random(in: 0..<feeds.count, using: &random)]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<40:
                // A document of 1-6 stories drawn from a small shared pool: cross-posts happen often.
                let stories = (0..<Int.random(in: 1...6, using: &random)).map { _ in Int.random(in: 0..<40, using: &random) }
                try await store.ingest([IncomingFeed(feedID: FeedID(feed), entries: Set(stories).map {
                    entry("https://news.example/\($0)", title: "Story \($0)", published: Double($0) * day)
                })], now: now)
            case 40..<60:
                let ids = try fixture.reader().articles(limit: 200).articles.map(\.id).shuffled(using: &random).prefix(3)
                try await store.mark(ids: Array(ids), account: 1, read: Bool.random(using: &random),
                                     starred: Bool.random(using: &random) ? Bool.random(using: &random) : nil)
            case 60..<72:
                let category = categories[Int.random(in: 0..<3, using: &random)]
                try await store.mark(ArticleFilter(account: 1, category: category, since: now.addingTimeInterval(-30 * day)),
                                     read: Bool.random(using: &random))
            case 72..<80:
                try await store.mark(ArticleFilter(account: 1, feedID: SubscriptionID(feed), unreadOnly: true), read: true)
            case 80..<86:
                try await store.updateFeed(id: SubscriptionID(feed), account: 1, changing { $0.category = categories.randomElement(using: &random) })
            case 86..<90:
                try await store.expire(RetentionPolicy(maximumAgeDays: 19_600, keepNewestPerFeed: 3), now: now)
            case 90..<94:
                try await store.removeFeed(id: SubscriptionID(feed), account: 1)
                feeds.removeAll { $0 == feed }
                feeds.append(try await fixture.feed("https://new\(step).example/feed", category: categories.randomElement(using: &random)))
            default:
                let names = try await store.categoryNames(account: 1)
                if let name = names.randomElement(using: &random) {
                    try await store.renameCategory(name, to: categories[Int.random(in: 0..<3, using: &random)], account: 1)
                }
            }
            try await expectCountersMatchRows(fixture, "step \(step)")
        }
    }
}

/// A reproducible random number generator (SplitMix64), so a failing walk can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
