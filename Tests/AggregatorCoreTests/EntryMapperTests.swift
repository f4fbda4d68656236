@testable import AggregatorCore
import FeedParser
import Testing

@Suite struct EntryMapperTests {
    @Test func attachmentsBecomeTheJSONThatArticlesGetReturns() {
        let json = EntryMapper.enclosuresJSON([Enclosure(url: "https://a.example/ep1.mp3", type: "audio/mpeg", length: 1234),
                                               Enclosure(url: "https://a.example/x")])
        #expect(json == #"[{"length":1234,"type":"audio/mpeg","url":"https://a.example/ep1.mp3"},{"length":null,"type":null,"url":"https://a.example/x"}]"#)
        #expect(EntryMapper.enclosuresJSON([]) == nil)
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
