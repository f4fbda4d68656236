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

    /// Found by fuzzing: odd ports made a key whose own key differed, so a stored entry's key did
    /// not find it again.
    @Test(arguments: ["http://[(:::80//Ex1]:\u{0}80", "http://h::80/", "http://h:80:80/x", "https://h:443:/", "http://h:/",
                      "http://example.com-\tsb/\t#frag", "http://h/a?x=1\t&utm_source=y",
                      "HTTP://H_/E\u{FFFD}i?ut\r/&&f&&++++\r&&&\t&&&\r&&&&\t&&", "http://h/a?x=1& &  &y= "])
    func theKeyOfAKeyIsItself(url: String) throws {
        let key = try #require(CanonicalURL.key(for: url))
        #expect(CanonicalURL.key(for: key) == key, "\(url) → \(key)")
    }
}
