import FeedParser
import Foundation
import Testing

@Suite struct FeedDiscoveryTests {
    @Test func iconLinksComeFirstTouchIconsAfterEachOnce() {
        let html = """
            <html><head><base href="https://blog.example.org/en/">
            <link rel="apple-touch-icon" href="/touch.png">
            <link rel="Shortcut Icon" href="favicon.png">
            <link rel="icon" type="image/svg+xml" href="/icon.svg">
            <link rel="icon" href="favicon.png">
            <link rel="alternate" type="application/rss+xml" href="feed.xml"></head></html>
            """
        #expect(FeedDiscovery.iconLinks(in: Data(html.utf8), pageURL: "https://blog.example.org/") == [
            "https://blog.example.org/en/favicon.png", "https://blog.example.org/icon.svg", "https://blog.example.org/touch.png",
        ])
        #expect(FeedDiscovery.iconLinks(in: Data("<p>none</p>".utf8), pageURL: "https://example.org/").isEmpty)
    }

    @Test func alternateLinksAreFoundAndResolved() {
        let html = """
            <!doctype html><html><head><base href="https://blog.example.org/en/">
            <link rel="stylesheet" href="style.css">
            <link rel="alternate" type="application/rss+xml" title="Posts" href="feed.xml">
            <link rel="alternate" type="application/atom+xml" href="/atom.xml">
            <link rel="alternate" type="application/feed+json" href="https://blog.example.org/feed.json">
            <link rel="alternate" type="text/html" hreflang="fr" href="/fr/">
            <link rel="alternate" type="application/rss+xml" href="feed.xml">
            </head><body><p>Hi</p></body></html>
            """
        let feeds = FeedDiscovery.alternateLinks(in: Data(html.utf8), pageURL: "https://blog.example.org/en/index.html")
        #expect(feeds.map(\.url) == ["https://blog.example.org/en/feed.xml", "https://blog.example.org/atom.xml",
                                     "https://blog.example.org/feed.json"])
        #expect(feeds.first?.title == "Posts")
    }

    @Test func pagesWithoutFeedsAndGarbageGiveNothing() {
        #expect(FeedDiscovery.alternateLinks(in: Data("<html><body>none</body></html>".utf8), pageURL: "https://x.example/").isEmpty)
        #expect(FeedDiscovery.alternateLinks(in: Data([0, 1, 2, 255]), pageURL: "https://x.example/").isEmpty)
        #expect(FeedDiscovery.alternateLinks(in: Data(), pageURL: "https://x.example/").isEmpty)
    }
}
