import Foundation
import TestSupport
import Testing

/// Ways real feeds were misread, each a fixture in `Fixtures/` read back through `aggregatorctl parse`.
@Suite struct MisreadFeedTests {
    let cli = Binary("aggregatorctl")

    private func parse(_ fixture: String) throws -> [String: Any] {
        let file = try #require(Bundle.module.url(forResource: fixture, withExtension: nil, subdirectory: "Fixtures"))
        let result = try cli.run(["parse", file.path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    private func entries(_ feed: [String: Any]) throws -> [[String: Any]] {
        try #require(feed["entries"] as? [[String: Any]])
    }

    @Test func fieldsNestedInsideAnotherChildAreNotTheItemsOwn() throws {
        let feed = try parse("publisher-blog-nested-fields.rss")
        #expect(feed["title"] as? String == "The Example Company Blog")
        #expect(feed["subtitle"] as? String == "News and stories from the Example Company")
        #expect(feed["link"] as? String == "https://blog.example.com/")
        #expect(feed["image"] is NSNull)  // the <og> block's image is not the channel's
        let items = try entries(feed)
        #expect(items.map { $0["title"] as? String } == ["Introducing faster builds", "A second post"])
        #expect(items.map { $0["author"] as? String } == ["Jane Doe", "Sam Roe"])
        #expect(items.map { $0["link"] as? String }
            == ["https://blog.example.com/faster-builds/", "https://blog.example.com/second/"])
        #expect(items.first?["summary"] as? String == "<p>Builds are now twice as fast.</p>")
        #expect(items.first?["published"] as? String == "2024-05-14T16:00:00Z")
        // A container that stands for the item, media:group, still gives its image.
        #expect(items.first?["image"] as? String == "https://blog.example.com/hero-1001.jpg")
    }

    @Test func numericDatesWithoutAZoneAreReadAsUTC() throws {
        let feed = try parse("cjk-news-numeric-dates.rss")
        #expect(feed["updated"] as? String == "2020-01-10T15:00:00Z")
        let published = try entries(feed).map { $0["published"] as? String }
        #expect(published == [
            "2020-01-10T14:33:00Z",  // 2020/1/10 14:33:00
            "2020-01-10T14:33:00Z",  // 2020-01-10 14:33
            "2020-01-10T00:00:00Z",  // 2020.01.10
            "2020-01-10T14:33:00Z",  // 2020年1月10日 14:33
            "2020-01-10T14:33:00Z",  // 2020/01/10 22:33:00 +08:00: the zone it gives counts
            nil,                     // 2020/13/45 99:99 is no date: null, never a guess
        ])
    }

    @Test func wellKnownPrefixesWithoutDeclarationsAreRead() throws {
        let feed = try parse("undeclared-prefixes.rss")
        #expect(feed["subtitle"] as? String == "Pictures from the garden")
        #expect(feed["link"] as? String == "https://photos.example.net/")
        let items = try entries(feed)
        let first = try #require(items.first)
        #expect(first["title"] as? String == "Tomatoes")  // not the unknown foo:title
        #expect(first["author"] as? String == "Kim")
        #expect(first["updated"] as? String == "2024-08-01T07:00:00Z")
        #expect(first["content"] as? String == "<p>The first <b>ripe</b> ones.</p>")
        #expect(first["image"] as? String == "https://photos.example.net/tomatoes.jpg")
        #expect(items.last?["image"] as? String == "https://photos.example.net/beans-small.jpg")
        #expect(items.last?["author"] as? String == "Lee")
    }

    @Test func podcastSubtitleComesFromITunesWhenThereIsNoDescription() throws {
        let feed = try parse("podcast-without-description.rss")
        // itunes:subtitle outranks itunes:summary, whichever comes first; neither becomes the link.
        #expect(feed["subtitle"] as? String == "Thirty minutes on growing food at home")
        #expect(feed["link"] as? String == "https://garden.example.fm/")
        #expect(try entries(feed).first?["summary"] as? String == "All about soil.")
    }
}
