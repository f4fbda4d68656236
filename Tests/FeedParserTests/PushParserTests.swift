@testable import FeedParser
import Foundation
import Testing

/// The push parser takes a document in whatever pieces arrive; cut anywhere (inside a tag, a
/// reference, a multi-byte character), it must build the same feed as from the whole.
@Suite struct PushParserTests {
    private func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try [UInt8](Data(contentsOf: url))
    }

    /// Feeds UTF-8 `bytes` to a builder in pieces of the given sizes, round and round.
    private func feedInPieces(_ bytes: [UInt8], sizes: [Int]) -> ParsedFeed {
        let builder = FeedBuilder(documentURL: "http://example.org/feed", contentLanguage: nil)
        let parser = SAXPushParser(handler: builder, encoding: "UTF-8")
        var offset = 0
        var turn = 0
        bytes.withUnsafeBytes { all in
            while offset < all.count {
                let end = min(all.count, offset + sizes[turn % sizes.count])
                parser.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                offset = end
                turn += 1
            }
        }
        parser.finish()
        return builder.finish()
    }

    @Test(arguments: ["atom-xml-base.atom", "podcast-itunes-media.rss", "html-entities-no-dtd.rss"])
    func anyPiecesGiveTheSameFeedAsTheWhole(name: String) throws {
        let bytes = try fixture(name)
        let whole = feedInPieces(bytes, sizes: [bytes.count])
        #expect(!whole.entries.isEmpty)
        for sizes in [[1], [2, 3, 5], [7, 64, 1], [4096]] {
            #expect(feedInPieces(bytes, sizes: sizes) == whole, "pieces of \(sizes) bytes")
        }
        let multiByte = Array("<rss><channel><title>café – “quoted” 東京</title></channel></rss>".utf8)
        #expect(feedInPieces(multiByte, sizes: [1]).title == "café – “quoted” 東京")
    }
}
