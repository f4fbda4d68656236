import FeedParser
import Foundation
import Testing

/// The shipped `feeds.opml` is what `make run` subscribes a new database to: keep it sound.
@Suite struct DefaultFeedListTests {
    let feeds: [OPMLFeed]

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        feeds = try OPMLReader.feeds(in: Data(contentsOf: root.appendingPathComponent("feeds.opml")))
    }

    @Test func holdsBetween25And40UniqueHTTPSFeeds() {
        #expect((25...40).contains(feeds.count))
        #expect(Set(feeds.map(\.url)).count == feeds.count)
        #expect(feeds.allSatisfy { $0.url.hasPrefix("https://") && $0.title != nil })
    }

    @Test func coversTheSevenCategories() {
        let categories = Set(feeds.compactMap(\.category))
        #expect(categories == ["Technology", "Science", "Business", "World", "Sports", "Health", "Entertainment"])
        #expect(feeds.allSatisfy { $0.category != nil })
    }

    @Test func includesAJSONFeed() {
        #expect(feeds.contains { $0.url.hasSuffix("/json") || $0.url.hasSuffix(".json") })
    }
}
