@testable import FeedStore
import Testing

@Suite struct CanonicalURLTests {
    @Test(arguments: [
        ("HTTP://Example.ORG:80/a?b=1#frag", "http://example.org/a?b=1"),
        ("https://example.org:443", "https://example.org/"),
        ("https://example.org:8443/x", "https://example.org:8443/x"),
        ("https://example.org/a?utm_source=rss&id=7&fbclid=x&gclid=y&UTM_medium=z", "https://example.org/a?id=7"),
        ("https://example.org/a?utm_source=rss", "https://example.org/a"),
        ("  https://example.org/Path/Case  ", "https://example.org/Path/Case"),
    ])
    func normalisesWhatDoesNotChangeTheArticle(url: String, key: String) {
        #expect(CanonicalURL.key(for: url) == key)
    }

    @Test(arguments: ["/relative", "mailto:a@example.org", "ftp://example.org/x", "https://", "not a url"])
    func onlyAbsoluteHTTPURLsHaveAKey(url: String) {
        #expect(CanonicalURL.key(for: url) == nil)
    }
}
