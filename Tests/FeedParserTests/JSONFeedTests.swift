import FeedParser
import Testing

@Suite struct JSONFeedTests {
    @Test func jsonFeed11() throws {
        let feed = try parse("""
            {"version": "https://jsonfeed.org/version/1.1", "title": "J", "home_page_url": "https://example.org/",
             "authors": [{"name": "Ann"}], "icon": "/icon.png",
             "items": [{"id": 7, "url": "/p/7", "title": "Seven", "content_html": "<p>7</p>",
                        "date_published": "2020-01-02T03:04:05Z", "tags": ["a", "b"],
                        "attachments": [{"url": "/p.jpg", "mime_type": "image/jpeg", "size_in_bytes": 99}]}]}
            """, url: "https://example.org/feed.json")
        #expect(feed.format == .jsonfeed)
        #expect(feed.author == "Ann")
        #expect(feed.image == "https://example.org/icon.png")
        let entry = try #require(feed.entries.first)
        #expect(entry.id == "7")
        #expect(entry.link == "https://example.org/p/7")
        #expect(entry.content == "<p>7</p>")
        #expect(entry.summary == nil)
        #expect(entry.categories == ["a", "b"])
        #expect(entry.image == "https://example.org/p.jpg")
        #expect(entry.enclosures.first?.length == 99)
        #expect(iso(entry.published) == "2020-01-02T03:04:05Z")
    }

    @Test func jsonThatIsNotAFeedIsUnknown() throws {
        let feed = try parse(#"{"name": "package.json", "version": "1.0.0"}"#)
        #expect(feed.format == .unknown)
        #expect(!feed.problems.isEmpty)
    }
}
