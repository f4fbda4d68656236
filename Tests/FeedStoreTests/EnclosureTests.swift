import Foundation
@testable import FeedStore
import Testing

@Suite struct EnclosureTests {
    @Test func enclosuresComeBackAsTheyWereStored() async throws {
        let fixture = try StoreFixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let feed = try await fixture.feed("https://a.example/feed")
        let enclosures = [
            ArticleEnclosure(url: "https://a.example/ep1.mp3", type: "audio/mpeg", length: 12_345_678),
            ArticleEnclosure(url: #"https://a.example/odd "name"\path"#, type: "video/mp4\u{1}"),
            ArticleEnclosure(url: "https://a.example/x"),
        ]
        var incoming = entry("https://a.example/1", title: "Episode 1")
        incoming.enclosures = enclosures
        _ = try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [incoming])], now: now)
        let id = try #require(try fixture.reader().articles().articles.first?.id)
        #expect(try fixture.reader().article(id: id, account: 1)?.enclosures == enclosures)
    }

    /// Rows written before the store owned the type hold the same JSON: read as they are, unmigrated.
    @Test func theColumnKeepsItsFormerFormat() {
        let former = #"[{"length":1234,"type":"audio/mpeg","url":"https://a.example/ep1.mp3"},"#
            + #"{"length":null,"type":null,"url":"https://a.example/x"}]"#
        let values = [ArticleEnclosure(url: "https://a.example/ep1.mp3", type: "audio/mpeg", length: 1234),
                      ArticleEnclosure(url: "https://a.example/x")]
        #expect(ArticleEnclosure.columnText(values) == former)
        #expect(ArticleEnclosure.decoding(columnText: former) == values)
        #expect(ArticleEnclosure.columnText([]) == nil)
        #expect(ArticleEnclosure.decoding(columnText: "not json").isEmpty)
    }
}
