import ControlProtocol
import Foundation
import Testing

/// The hand-written JSON reader takes what JSONSerialization took and refuses what it refused.
@Suite struct JSONParserTests {
    @Test func valuesOfEveryKindAreRead() throws {
        let text = #"\#u{FEFF} {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": 0, "f": 1E+2} "#
        #expect(try JSONValue(parsing: Array(text.utf8)) == [
            "a": [1, .number(-2500), true, false, nil], "b": ["c": "d"], "e": 0, "f": 100,
        ])
        #expect(try JSONValue(parsing: Array("42".utf8)) == 42, "a value alone at the top")
        #expect(try JSONValue(parsing: Array(#"{"k": 1, "k": 2}"#.utf8)) == ["k": 2], "the last of a repeated name")
    }

    @Test func escapesAndSurrogatePairsBecomeTheirCharacters() throws {
        let text = #""a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\ud83d\ude00 é""#
        #expect(try JSONValue(parsing: Array(text.utf8)) == .string("a\"b\\c/d\u{8}\u{C}\n\r\té€😀 é"))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "[1 2]", "01", "1.", ".5", "1e", "-", "+1", "1e400",
        "tru", "nul", "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
        "[1] x", "{\"a\":1}}", "NaN", "'single'",
    ])
    func malformedTextIsRefused(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? JSONValue(parsing: Array(fine.utf8))) != nil)
    }
}
