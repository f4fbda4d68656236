import FeedParser
import Foundation
import Testing

@Suite struct HostileInputTests {
    @Test func billionLaughsDoesNotExpand() throws {
        var doctype = #"<!DOCTYPE rss [<!ENTITY a0 "lol">"#
        for level in 1...9 {
            doctype += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">"
        }
        let feed = try parse(doctype + "]><rss><channel><title>&a9;</title></channel></rss>")
        #expect((feed.title ?? "").count < 100)
    }

    @Test func quadraticBlowupDoesNotExpand() throws {
        let big = String(repeating: "x", count: 100_000)
        let uses = String(repeating: "&big;", count: 10_000)
        let feed = try parse(#"<!DOCTYPE rss [<!ENTITY big "\#(big)">]><rss><channel><title>\#(uses)</title></channel></rss>"#)
        #expect((feed.title ?? "").count < 100_000)
    }

    @Test func externalEntitiesAreNeverRead() throws {
        let feed = try parse("""
            <!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY net SYSTEM "http://127.0.0.1:9/x">]>
            <rss><channel><title>a&xxe;&net;b</title></channel></rss>
            """)
        #expect(feed.title?.contains("root:") == false)
    }

    @Test func externalDTDIsNotLoaded() throws {
        let feed = try parse("""
            <!DOCTYPE rss SYSTEM "http://127.0.0.1:9/rss.dtd"><rss><channel><title>ok</title></channel></rss>
            """)
        #expect(feed.title == "ok")
    }

    @Test func inputAboveTheCapIsATypedError() {
        let data = Data(repeating: 0x20, count: 2_000)
        #expect(throws: FeedParserError.tooLarge(limit: 1_000)) {
            try ParsedFeed(parsing: data, source: .init(maximumSize: 1_000))
        }
    }

    @Test func deepNestingEndsCleanly() throws {
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        let feed = try parse("<rss><channel><title>t</title>" + deep + "</channel></rss>")
        #expect(feed.title == "t")
        #expect(!feed.problems.isEmpty)
    }

    @Test(arguments: [
        [UInt8](), [0x00, 0xFF, 0x13, 0x37, 0x00, 0x00, 0xFE], Array("<html><body><p>Hello</p></body></html>".utf8),
        Array(#"["not", "a", "feed"]"#.utf8), Array("{".utf8), Array("<rss><channel><item><title>cut".utf8),
    ])
    func garbageGivesAnUnknownOrPartialFeed(bytes: [UInt8]) throws {
        let feed = try parse(bytes: bytes)
        #expect(feed.entries.count <= 1)
        #expect(feed.format == .unknown || feed.format == .rss20)
    }
}
