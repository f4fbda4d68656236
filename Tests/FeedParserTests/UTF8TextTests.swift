@testable import FeedParser
import Testing

/// The parser builds its strings without the standard library's second check, so its own
/// validator must refuse exactly what the standard library refuses.
@Suite struct UTF8TextTests {
    private func validate(_ bytes: [UInt8]) -> (isValid: Bool, isASCII: Bool) {
        bytes.withUnsafeBufferPointer { UTF8Text.validate($0) }
    }

    @Test(arguments: [
        [0xC0, 0xAF],                    // overlong "/"
        [0xE0, 0x80, 0xAF],              // overlong, three bytes
        [0xED, 0xA0, 0x80],              // a UTF-16 surrogate
        [0xF4, 0x90, 0x80, 0x80],        // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],        // no such lead byte
        [0x80],                          // a lone continuation byte
        [0xE2, 0x82],                    // cut short at the end
        [0xE2, 0x28, 0xA1],              // a lead byte without its continuations
    ] as [[UInt8]])
    func illFormedSequencesAreRefusedAtEveryOffset(sequence: [UInt8]) {
        for offset in [0, 1, 7, 8, 31, 32, 40] {
            let bytes = Array(repeating: UInt8(ascii: "a"), count: offset) + sequence + Array("tail".utf8)
            #expect(!validate(bytes).isValid, "offset \(offset)")
            #expect(String(validating: bytes, as: UTF8.self) == nil)  // the standard library agrees
            #expect(!validate(Array(repeating: UInt8(ascii: "a"), count: offset) + sequence).isValid)
        }
    }

    @Test(arguments: ["", "plain ASCII that runs past thirty-two bytes, twice over: plain ASCII text",
                      "é", "café – “quoted” € 東京 😀", String(repeating: "x", count: 40) + "\u{10FFFF}"])
    func wellFormedTextIsAcceptedAndCopiedUnchanged(text: String) {
        let bytes = Array(text.utf8)
        let (isValid, isASCII) = validate(bytes)
        #expect(isValid)
        #expect(isASCII == text.utf8.allSatisfy { $0 < 0x80 })
        let copy = bytes.withUnsafeBufferPointer { UTF8Text.string($0) }
        #expect(copy == text)
        #expect(copy.unicodeScalars.count == text.unicodeScalars.count)
    }

    @Test func illFormedBytesBecomeReplacementCharacters() {
        let bytes: [UInt8] = Array("ok ".utf8) + [0xFF, 0xE2, 0x82] + Array(" end".utf8)
        #expect(UTF8Text.string(bytes) == String(decoding: bytes, as: UTF8.self))
        #expect(UTF8Text.string(bytes).contains("\u{FFFD}"))
    }
}
