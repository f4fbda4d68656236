@testable import AggregatorCore
import FeedParser
import FeedStore
import Testing

@Suite struct EntryMapperTests {
    @Test func attachmentsBecomeTheStoresEnclosures() {
        var entry = ParsedEntry()
        entry.enclosures = [Enclosure(url: "https://a.example/ep1.mp3", type: "audio/mpeg", length: 1234),
                            Enclosure(url: "https://a.example/x")]
        #expect(EntryMapper.incoming(entry).enclosures == [
            ArticleEnclosure(url: "https://a.example/ep1.mp3", type: "audio/mpeg", length: 1234),
            ArticleEnclosure(url: "https://a.example/x"),
        ])
    }

    @Test func theSearchTextHoldsSummaryAndContentOnceEach() {
        var entry = ParsedEntry()
        entry.summary = "<p>Short &amp; sweet</p>"
        entry.content = "<p>The <b>whole</b> story</p>"
        #expect(EntryMapper.searchText(of: entry) == "Short & sweet The whole story")
        entry.content = entry.summary
        #expect(EntryMapper.searchText(of: entry) == "Short & sweet")
    }
}
