import Foundation
@testable import FeedStore
import Testing

@Suite struct SearchTests {
    private func populated() async throws -> StoreFixture {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed", category: "Tech")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [
            entry("https://a.example/1", title: "Swift on Linux", text: "Building servers with the Swift compiler"),
            entry("https://a.example/2", title: "Rust news", text: "A compiler release and a café in Zürich"),
            entry("https://a.example/3", title: "Gardening", text: "Tomatoes love the sun; Swift birds too"),
        ])], now: now)
        return fixture
    }

    private func titles(_ query: String, _ fixture: StoreFixture) throws -> [String] {
        try fixture.reader().articles(ArticleFilter(account: 1, search: query), sort: .relevance).articles.compactMap(\.title)
    }

    @Test func queryLanguage() async throws {
        let fixture = try await populated()
        #expect(try titles("compiler", fixture).sorted() == ["Rust news", "Swift on Linux"])
        #expect(try titles("swift compiler", fixture) == ["Swift on Linux"])
        #expect(try titles("\"swift compiler\"", fixture) == ["Swift on Linux"])
        #expect(try titles("garden*", fixture) == ["Gardening"])
        #expect(try titles("swift -linux", fixture) == ["Gardening"])
        #expect(try titles("tomatoes OR rust", fixture).sorted() == ["Gardening", "Rust news"])
        #expect(try titles("cafe zurich", fixture) == ["Rust news"])  // diacritics removed
    }

    @Test func titleMatchesRankAboveBodyMatches() async throws {
        let fixture = try await populated()
        #expect(try titles("swift", fixture).first == "Swift on Linux")
    }

    @Test(arguments: ["\"unbalanced", "AND OR NOT", "title:x", "a*b^c", "NEAR(a b)", "((", "\"\"", "-", "*"])
    func anyInputIsAQueryOrAClearError(query: String) async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        do {
            _ = try reader.articles(ArticleFilter(account: 1, search: query))
        } catch {
            #expect(error.kind == .invalidQuery)
            #expect(error.description.contains("fts5") == false)
        }
    }

    /// Found by fuzzing: FTS5 stops reading a query at a NUL ("unterminated string").
    @Test func controlCharactersAndCombinedQuotesAreNotSyntax() async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        // And a quote with a combining mark (one Character, two scalars) is escaped too.
        for query in ["a\u{0}b", "\"a\u{0}b\"", "\u{0}", "x\u{1B}[31my", "ab\"\u{65C}cd", "\"\u{301}"] {
            do {
                _ = try reader.articles(ArticleFilter(account: 1, search: query))
            } catch {
                #expect(error.kind == .invalidQuery && query == "\u{0}", "\(query.debugDescription): \(error)")
            }
        }
    }

    @Test func onlyExclusionsIsAnError() async throws {
        let fixture = try await populated()
        let error = #expect(throws: StoreError.self) { try fixture.reader().articles(ArticleFilter(account: 1, search: "-swift")) }
        #expect(error?.kind == .invalidQuery)
    }

    @Test func snippetsMarkTheMatches() async throws {
        let fixture = try await populated()
        let article = try #require(try fixture.reader().articles(ArticleFilter(account: 1, search: "compiler"), sort: .newest).articles.first)
        #expect(article.snippet?.contains(Snippet.matchStart + "compiler" + Snippet.matchEnd) == true)
    }

    @Test func searchCombinesWithFiltersAndPages() async throws {
        let fixture = try await populated()
        let reader = try fixture.reader()
        #expect(try reader.count(ArticleFilter(account: 1, category: "Tech", search: "swift")) == 2)
        let first = try reader.articles(ArticleFilter(account: 1, search: "swift"), sort: .relevance, limit: 1)
        let second = try reader.articles(ArticleFilter(account: 1, search: "swift"), sort: .relevance, limit: 1, cursor: first.nextCursor)
        #expect(first.articles.count == 1 && second.articles.count == 1)
        #expect(first.articles[0].id != second.articles[0].id)
        #expect(second.nextCursor == nil)
    }
}
