@testable import FeedFetcher
import Testing

@Suite struct FetchRequestTests {
    @Test(arguments: [
        ("http://example.org/feed.xml", "example.org"),
        ("https://User:secret@Blog.Example.COM:8443/atom?x=1", "blog.example.com"),
        ("http://a.example?feed=rss", "a.example"),
        ("http://a.example#top", "a.example"),
        ("https://[2001:db8::1]:8443/feed", "[2001:db8::1]"),
        ("http://127.0.0.1:18080/feeds/f1.rss", "127.0.0.1"),
    ])
    func perHostLimitsCountByTheHostAlone(url: String, host: String) {
        #expect(FetchRequest(url: url).host == host)
    }
}
