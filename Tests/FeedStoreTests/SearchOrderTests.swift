import Foundation
@testable import FeedStore
import Testing

/// Searches in date order rank their matches by the dates kept in `entry_state`; they must list and
/// page exactly as the entries' sort index does for the same filter.
@Suite struct SearchOrderTests {
    /// 60 entries in two feeds and categories, every third one dated like another (ties), one from 1969;
    /// those with an even number mention apples.
    private func populated() async throws -> StoreFixture {
        let fixture = try StoreFixture()
        let tech = try await fixture.feed("https://a.example/feed", category: "Tech")
        let world = try await fixture.feed("https://b.example/feed", category: "World")
        let base = now.timeIntervalSince1970 - 100 * day
        func story(_ n: Int) -> IncomingEntry {
            let published = n == 7 ? -86_400 : base + Double(n - n % 3) * day
            return entry("https://news.example/\(n)", title: "Story \(n)",
                         text: n % 2 == 0 ? "apples and pears, number \(n)" : "pears only, number \(n)", published: published)
        }
        try await fixture.store.ingest([
            IncomingFeed(feedID: FeedID(tech), entries: (0..<40).map(story)),
            IncomingFeed(feedID: FeedID(world), entries: (40..<60).map(story)),
        ], now: now)
        try await fixture.store.mark(ids: [3, 4, 10, 44], account: 1, read: true)
        return fixture
    }

    private func everyPage(_ reader: StoreReader, _ filter: ArticleFilter, _ sort: ArticleSort) throws -> [Article] {
        var seen: [Article] = []
        var cursor: String?
        repeat {
            let page = try reader.articles(filter, sort: sort, limit: 7, cursor: cursor)
            seen += page.articles
            cursor = page.nextCursor
        } while cursor != nil
        return seen
    }

    /// Both ways on PostgreSQL (its matches listed first, or the dates walked; SQLite has one).
    @Test(arguments: [ArticleSort.newest, .oldest], [true, false])
    func searchesListAndPageAsTheFilteredListing(sort: ArticleSort, listsMatches: Bool) async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        reader.listsSearchMatches = listsMatches
        let since = now.addingTimeInterval(-70 * day)
        let filters = [ArticleFilter(account: 1), ArticleFilter(account: 1, category: "Tech"), ArticleFilter(account: 1, unreadOnly: true),
                       ArticleFilter(account: 1, since: since), ArticleFilter(account: 1, before: since), ArticleFilter(account: 1, category: "World", since: since)]
        for var filter in filters {
            // What the sort index lists, keeping the matches (the pre-1970 story, #7, does not match).
            let expected = try everyPage(reader, filter, sort).filter { $0.title.map { Int($0.dropFirst(6))! % 2 == 0 } == true }
                .map(\.id)
            filter.search = "apples"
            let found = try everyPage(reader, filter, sort)
            #expect(found.map(\.id) == expected, "\(filter)")
            #expect(found.allSatisfy { $0.snippet?.contains(Snippet.matchStart + "apples" + Snippet.matchEnd) == true })
        }
    }

    /// On PostgreSQL the planner's estimate (`EXPLAIN (FORMAT JSON)`) says when a word is rare enough
    /// for its matches to be listed rather than the dates walked.
    @Test(.enabled(if: TestDatabase.isPostgres)) func aRareWordsMatchesAreListedACommonWordsWalked() async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        try reader.database.execute("ANALYZE entry_search")
        func few(_ words: String) throws -> Bool {
            try reader.database.dialect.search.hasFewMatches(try SearchQuery(words).bound(for: reader.database.dialect),
                                                            limit: 8, in: reader.database)
        }
        #expect(try few("7"), "one match of 60")
        #expect(try !few("pears"), "60 of 60")
    }

    @Test func relevanceRanksTheMatchesStoredLastAndPagesThemWhileEntriesArrive() async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        reader.relevanceWindow = 10
        let matches = try everyPage(reader, ArticleFilter(account: 1, search: "pears"), .newest)
        #expect(matches.count == 60)
        let window = Set(matches.map(\.id).sorted().suffix(10))

        let first = try reader.articles(ArticleFilter(account: 1, search: "pears"), sort: .relevance, limit: 4)
        try await fixture.store.ingest([IncomingFeed(feedID: 1, entries: [
            entry("https://news.example/new", title: "Pears, pears, pears", text: "pears", published: now.timeIntervalSince1970),
        ])], now: now)
        var ranked = first.articles
        var cursor = first.nextCursor
        while let next = cursor {
            let page = try reader.articles(ArticleFilter(account: 1, search: "pears"), sort: .relevance, limit: 4, cursor: next)
            ranked += page.articles
            cursor = page.nextCursor
        }
        #expect(Set(ranked.map(\.id)) == window, "the same ten matches on every page, none twice")
        #expect(ranked.count == 10)
        // A new search sees the newcomer, and its title outweighs every body match.
        let fresh = try reader.articles(ArticleFilter(account: 1, search: "pears"), sort: .relevance, limit: 1)
        #expect(fresh.articles.first?.title == "Pears, pears, pears")
    }

    @Test func watchingASearchSeesOnlyNewMatches() async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        var filter = ArticleFilter(account: 1, search: "apples")
        filter.storedAfterID = try reader.newestEntryID()
        try await fixture.store.ingest([IncomingFeed(feedID: 1, entries: [
            entry("https://news.example/a", title: "New apples", text: "apples"),
            entry("https://news.example/b", title: "New pears", text: "pears"),
        ])], now: now)
        #expect(try reader.articles(filter, sort: .oldest).articles.map(\.title) == ["New apples"])
    }
}
