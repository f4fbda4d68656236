import FeedParser
import Foundation
import Testing

/// Real-world quirks, each reproduced in a fixture named after the kind of publisher that produces it.
@Suite struct FixtureTests {
    private func fixture(_ name: String, url: String? = nil) throws -> ParsedFeed {
        let file = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try ParsedFeed(parsing: Data(contentsOf: file), source: .init(documentURL: url))
    }

    @Test func latin1FeedWithoutDeclaration() throws {
        let feed = try fixture("latin1-undeclared.rss")
        #expect(feed.title == "Le Journal du Café")
        #expect(feed.entries.first?.title == "Été brûlant à Montréal")
        #expect(feed.entries.first?.summary == "Les prévisions météo pour l’été €")
        #expect(feed.encoding == "windows-1252")
    }

    @Test func cp1252BytesUnderAUTF8Declaration() throws {
        let feed = try fixture("cp1252-declared-utf8.rss")
        #expect(feed.title == "Old WordPress – Blog")
        #expect(feed.entries.first?.title == "“Smart quotes” and ‘single’ ones")
        #expect(feed.entries.first?.author == "Renée")
    }

    @Test func htmlEntitiesWithoutADTD() throws {
        let feed = try fixture("html-entities-no-dtd.rss")
        #expect(feed.entries.count == 2)
        #expect(feed.entries.first?.title == "Café – “open” late")
        #expect(feed.entries.first?.link == "https://entities.example.net/cafe?a=1&b=2")
        #expect(feed.entries.first?.summary == "<p>Menu & prices © 2024</p> ♥")
        #expect(feed.entries.last?.title == "Second item survives")
    }

    @Test func atomWithNestedXMLBase() throws {
        let feed = try fixture("atom-xml-base.atom")
        #expect(feed.link == "https://blog.example.org/")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "Relative links")
        #expect(entry.link == "https://blog.example.org/2024/06/relative-links.html")
        #expect(entry.content == #"<p>See <a href="other.html">this</a>.</p>"#)
        #expect(entry.author == "Ada")
        #expect(iso(entry.updated) == "2024-06-01T08:00:00Z")
    }

    @Test func podcastWithITunesAndMediaRSS() throws {
        let feed = try fixture("podcast-itunes-media.rss")
        #expect(feed.author == "Example Network")
        #expect(feed.image == "https://show.example.com/cover.jpg")
        let entry = try #require(feed.entries.first)
        #expect(entry.id == "ep-42")
        #expect(entry.link == nil)
        #expect(entry.summary == "We talk about <b>things</b>.")
        #expect(entry.categories == ["tech", "talk", "news"])
        #expect(entry.image == "https://show.example.com/ep42.jpg")
        #expect(entry.enclosures.first?.length == 12_345_678)
    }
}
