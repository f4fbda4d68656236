@testable import AggregatorCore
import Foundation
import Testing

/// Icons are kept by what their bytes are, never by the type a server claims.
@Suite struct IconImageTests {
    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], "image/png"),
        (Array("GIF89a\u{1}\u{0}".utf8), "image/gif"),
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0], "image/jpeg"),
        ([0x00, 0x00, 0x01, 0x00, 0x01, 0x00], "image/x-icon"),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "image/webp"),
        (Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<svg xmlns=\"x\"/>".utf8), "image/svg+xml"),
    ] as [([UInt8], String)])
    func imagesAreKnownByTheirBytes(bytes: [UInt8], type: String) {
        #expect(IconImage.mimeType(of: Data(bytes)) == type)
    }

    @Test(arguments: ["<html><body>Not found</body></html>", "{\"error\": 404}", "", "GIF", "<?xml version=\"1.0\"?><rss/>"])
    func anythingElseIsRefused(text: String) {
        #expect(IconImage.mimeType(of: Data(text.utf8)) == nil)
    }

    @Test func anIconOverTheSizeCapIsRefused() {
        let large = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: IconImage.maximumBytes)
        #expect(IconImage.mimeType(of: large) == nil)
    }

    @Test func theSiteRootKeepsSchemeHostAndPort() {
        #expect(IconFinder.root(of: "http://127.0.0.1:8081/blog/index.html") == "http://127.0.0.1:8081")
        #expect(IconFinder.root(of: "https://Example.org/") == "https://Example.org")
        #expect(IconFinder.root(of: "ftp://example.org/") == nil)
    }
}
