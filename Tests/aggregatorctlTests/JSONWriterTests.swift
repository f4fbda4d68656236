@testable import aggregatorctl
import Foundation
import Testing

@Suite struct JSONWriterTests {
    private func encoded(_ value: String) -> String {
        var writer = JSONWriter()
        writer.string(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test(arguments: [
        "plain ascii text that is longer than eight bytes",
        "quote \" backslash \\ newline \n tab \t cr \r bell \u{07}",
        "line separator \u{2028} paragraph separator \u{2029} and “curly” – dash",
        "東京 😀 café", "", "\u{1F}12345678\"",
    ])
    func stringsRoundTripThroughJSONSerialization(value: String) throws {
        let json = encoded(value)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(json)]".utf8)) as? [String]
        #expect(decoded == [value])
        #expect(!json.contains("\u{2028}") && !json.contains("\n"))
    }

    @Test func timestampsAndNulls() {
        var writer = JSONWriter()
        writer.raw("[")
        writer.timestamp(1_072_986_501)
        writer.raw(",")
        writer.timestamp(nil)
        writer.raw(",")
        writer.integer(nil)
        writer.raw("]")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"["2004-01-01T19:48:21Z",null,null]"#)
    }
}
