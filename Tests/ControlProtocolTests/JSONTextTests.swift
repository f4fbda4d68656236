import ControlProtocol
import Foundation
import Testing

@Suite struct JSONTextTests {
    private func text(_ value: JSONValue, pretty: Bool = false) -> String {
        String(decoding: value.encoded(pretty: pretty), as: UTF8.self)
    }

    @Test func compactTextHasSortedKeysAndUnescapedSlashes() {
        let value: JSONValue = ["url": "https://a.example/feed", "id": 7, "ok": true, "none": nil, "tags": ["a", .number(1.5)]]
        #expect(text(value) == #"{"id":7,"none":null,"ok":true,"tags":["a",1.5],"url":"https://a.example/feed"}"#)
    }

    @Test func prettyTextIndentsByTwoSpaces() {
        let value: JSONValue = ["feeds": [["id": 1]], "empty": [:], "list": []]
        #expect(text(value, pretty: true) == """
            {
              "empty": {},
              "feeds": [
                {
                  "id": 1
                }
              ],
              "list": []
            }
            """)
    }

    @Test(arguments: [0.1, -2.5, 1e-7, 123_456_789_012, -42, 1e300, 0])
    func numbersRoundTrip(number: Double) throws {
        let decoded = try JSONSerialization.jsonObject(with: JSONValue.array([.number(number)]).encoded()) as? [NSNumber]
        #expect(decoded?.first?.doubleValue == number)
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(text([.number(.nan), .number(.infinity)]) == "[null,null]")
    }

    @Test(arguments: ["quote \" backslash \\ newline \n tab \t bell \u{07}", "line separator \u{2028} “curly”",
                      "東京 😀 café", "", "/path/with/slashes"])
    func stringsRoundTripThroughJSONSerialization(value: String) throws {
        let data = JSONValue.object([value: .string(value)]).encoded()
        let decoded = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(decoded == [value: value])
        #expect(try JSONValue(parsing: data) == .object([value: .string(value)]))
    }

    /// The escaper reads eight bytes at a time: every character that needs escaping must be caught
    /// at every offset within a word, next to others, and in the tail shorter than a word.
    @Test(arguments: ["\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{2028}", "\u{2029}"])
    func everyEscapeIsFoundAtEveryOffset(special: String) throws {
        for offset in 0..<20 {
            for length in [offset + 1, offset + 8, offset + 17] {
                let value = String(repeating: "a", count: offset) + special + "é–" + special
                    + String(repeating: "b", count: length - offset)
                var bytes: [UInt8] = []
                JSONText.appendString(value, to: &bytes)
                let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String
                #expect(decoded == value, "offset \(offset), length \(length)")
                #expect(!bytes.contains(0x0A) && !bytes.contains(0x01), "a control left raw at offset \(offset)")
            }
        }
    }

    @Test func charactersSharingTheLineSeparatorsLeadByteStayAsTheyAre() {
        var bytes: [UInt8] = []
        JSONText.appendString("12345678–9 “quoted” \u{2028}", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #""12345678–9 “quoted” \u2028""#)
    }
}
