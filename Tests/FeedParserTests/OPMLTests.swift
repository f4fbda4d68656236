import FeedParser
import Foundation
import Testing

@Suite struct OPMLTests {
    /// `dateCreated` as RFC 822 in UTC with English names, as Foundation's DateFormatter wrote it.
    @Test(arguments: [(0.0, "Thu, 01 Jan 1970 00:00:00 GMT"), (1_733_184_000, "Tue, 03 Dec 2024 00:00:00 GMT"),
                      (951_825_599, "Tue, 29 Feb 2000 11:59:59 GMT"), (-86_401, "Tue, 30 Dec 1969 23:59:59 GMT")])
    func theCreationDateIsRFC822InUTC(seconds: Double, text: String) {
        let document = OPMLWriter.document(title: "t", feeds: [], created: Date(timeIntervalSince1970: seconds))
        #expect(document.contains("<dateCreated>\(text)</dateCreated>"), "\(document)")
    }

    @Test func nestedOutlinesGiveTheParentTextAsCategory() throws {
        let opml = """
            <?xml version="1.0"?>
            <opml version="2.0"><head><title>Mine</title></head><body>
              <outline text="Technology">
                <outline type="rss" text="LWN" xmlUrl="https://lwn.net/headlines/rss" htmlUrl="https://lwn.net/"/>
                <outline text="Security">
                  <outline text="Krebs" title="Krebs on Security" xmlUrl="https://krebsonsecurity.com/feed/"/>
                </outline>
              </outline>
              <outline text="Loose" xmlUrl="https://example.org/feed.xml"/>
            </body></opml>
            """
        let feeds = try OPMLReader.feeds(in: Data(opml.utf8))
        #expect(feeds == [
            OPMLFeed(url: "https://lwn.net/headlines/rss", title: "LWN", siteURL: "https://lwn.net/",
                     category: "Technology"),
            OPMLFeed(url: "https://krebsonsecurity.com/feed/", title: "Krebs on Security", category: "Security"),
            OPMLFeed(url: "https://example.org/feed.xml", title: "Loose"),
        ])
    }

    @Test func writtenDocumentReadsBackTheSameFeeds() throws {
        let feeds = [
            OPMLFeed(url: "https://a.example/rss?x=1&y=2", title: "A & \"B\"", siteURL: "https://a.example/",
                     category: "News <World>"),
            OPMLFeed(url: "https://c.example/atom", title: "C", category: nil),
        ]
        let text = OPMLWriter.document(title: "Export", feeds: feeds)
        #expect(try OPMLReader.feeds(in: Data(text.utf8)) == feeds)
    }

    @Test func aDocumentThatIsNotOPMLIsRefused() {
        #expect(throws: FeedParserError.self) {
            try OPMLReader.feeds(in: Data("<rss><channel/></rss>".utf8))
        }
        #expect(throws: FeedParserError.self) { try OPMLReader.feeds(in: Data()) }
    }

    @Test func entityDeclarationsAreNeverExpanded() throws {
        // Billion laughs: if entities expanded this would be gigabytes; the minimal SAX handler never expands them.
        var doctype = #"<!DOCTYPE opml [<!ENTITY a0 "lol">"#
        for level in 1...9 {
            doctype += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">"
        }
        doctype += #"<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"#
        let opml = doctype + #"<opml><body><outline text="&a9;&xxe;" xmlUrl="https://x.example/"/></body></opml>"#
        let feeds = try OPMLReader.feeds(in: Data(opml.utf8))
        #expect(feeds.count == 1)
        let title = feeds.first?.title ?? ""
        #expect(title.count < 100)
        #expect(title.contains("root:") == false)
    }
}
