import FeedParser
import Testing

@Suite struct EncodingTests {
    private func rss(title: [UInt8], declaration: String = "") -> [UInt8] {
        Array("\(declaration)<rss><channel><title>".utf8) + title + Array("</title></channel></rss>".utf8)
    }

    @Test func undeclaredLatin1IsReadAsWindows1252() throws {
        // "café" in ISO-8859-1 and a cp1252 euro sign and curly quotes, with no declaration at all.
        let feed = try parse(bytes: rss(title: [0x63, 0x61, 0x66, 0xE9, 0x20, 0x80, 0x20, 0x93, 0x71, 0x94]))
        #expect(feed.title == "café € “q”")
        #expect(feed.encoding == "windows-1252")
        #expect(!feed.problems.isEmpty)
    }

    @Test func cp1252BytesDeclaredAsUTF8FallBack() throws {
        let feed = try parse(bytes: rss(title: [0x92, 0x74, 0x69, 0x73], declaration: #"<?xml version="1.0" encoding="utf-8"?>"#))
        #expect(feed.title == "’tis")
    }

    @Test func declaredLatin1IsHonoured() throws {
        let feed = try parse(bytes: rss(title: [0xE9, 0x74, 0xE9], declaration: #"<?xml version="1.0" encoding="iso-8859-1"?>"#))
        #expect(feed.title == "été")
        #expect(feed.encoding == "iso-8859-1")
        #expect(feed.problems.isEmpty)
    }

    @Test func httpCharsetWinsOverTheDeclaration() throws {
        let bytes = rss(title: Array("été".utf8), declaration: #"<?xml version="1.0" encoding="iso-8859-1"?>"#)
        let feed = try parse(bytes: bytes, contentType: "application/rss+xml; charset=utf-8")
        #expect(feed.title == "été")
        #expect(feed.encoding == "utf-8")
    }

    @Test func utf16WithByteOrderMark() throws {
        let text = #"<?xml version="1.0" encoding="utf-16"?><rss><channel><title>Δ</title></channel></rss>"#
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let feed = try parse(bytes: bytes)
        #expect(feed.title == "Δ")
        #expect(feed.format == .rss20)
    }

    @Test func mojibakeAndC1ControlsAreRepairedPerValue() throws {
        // UTF-8 "café" read as Latin-1 by some earlier system, then stored as UTF-8 again.
        let feed = try parse("<rss><channel><title>cafÃ©</title><description>it&#146;s</description></channel></rss>")
        #expect(feed.title == "café")
        #expect(feed.subtitle == "it’s")
    }

    @Test func undeclaredHTMLEntitiesAreDecodedAndLaterTextSurvives() throws {
        let feed = try parse("""
            <rss><channel><item><title>caf&eacute; &nbsp;&rsquo; AT&T &bogus; &amp; more</title></item>
            <item><title>second &amp; last</title></item></channel></rss>
            """)
        #expect(feed.entries.map(\.title) == ["café ’ AT&T &bogus; & more", "second & last"])
    }

    /// Declared as Python spells it ("utf_16"), big-endian, no byte order mark: read little-endian
    /// it came out as CJK text and no feed at all.
    @Test func utf16SpelledWithAnUnderscoreAndNoMarkIsReadByItsShape() throws {
        let text = #"<?xml version="1.0" encoding="utf_16"?><rss version="2.0"><channel><title>Δx</title></channel></rss>"#
        let feed = try parse(bytes: text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        #expect(feed.format == .rss20)
        #expect(feed.title == "Δx")
        #expect(feed.problems.isEmpty)
    }

    /// Mac Greek and Mac Turkish, which iconv does not know, read through their own tables.
    @Test(arguments: [("macgreek", [0x80, 0xA1, 0xE1] as [UInt8], "ÄΓα"), ("mac_turkish", [0x80, 0xDA, 0xDB], "ÄĞğ")])
    func macEncodingsIconvLacksAreRead(encoding: String, title: [UInt8], expected: String) throws {
        let feed = try parse(bytes: rss(title: title, declaration: #"<?xml version="1.0" encoding="\#(encoding)"?>"#))
        #expect(feed.title == expected)
        #expect(feed.problems.isEmpty)
    }
}
