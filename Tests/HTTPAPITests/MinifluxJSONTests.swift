@testable import HTTPAPI
import Testing

@Suite struct MinifluxJSONTests {
    @Test func readingTimeCountsWordsOutsideTags() {
        let words = Array(repeating: "word", count: 530).joined(separator: " ")
        #expect(MinifluxJSON.readingTime(of: "<p class=\"a b c\">\(words)</p>") == 2)
        #expect(MinifluxJSON.readingTime(of: "<p>" + String(repeating: "<b>x</b>\n", count: 264) + "</p>") == 0)
        #expect(MinifluxJSON.readingTime(of: "") == 0)
    }
}
