import Foundation
@testable import FeedStore
import Testing

/// What a fetch records on its feed, on both backends (the store's tests also run on PostgreSQL).
@Suite struct FetchRecordTests {
    /// A permanent redirect moves the feed to its new URL, unless another feed has that URL already:
    /// then it stays where it was, and the fetch is recorded all the same.
    @Test func aPermanentRedirectMovesTheFeedUnlessItsNewURLIsTaken() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let moving = try await fixture.feed("https://old.example/feed")
        let other = try await fixture.feed("https://taken.example/feed")
        func url(_ id: Int64) throws -> String? {
            try fixture.reader().feeds(account: 1).first { $0.id.rawValue == id }?.url
        }
        let now = Date()
        try await store.record(.success(etag: "\"1\"", lastModified: nil, newURL: "https://new.example/feed", title: nil,
                                        siteURL: nil), feedID: FeedID(moving), checkedAt: now, nextCheckAt: now.addingTimeInterval(60),
                               intervalSeconds: 60)
        #expect(try url(moving) == "https://new.example/feed")
        try await store.record(.success(etag: "\"2\"", lastModified: nil, newURL: "https://taken.example/feed", title: nil,
                                        siteURL: nil), feedID: FeedID(moving), checkedAt: now, nextCheckAt: now.addingTimeInterval(60),
                               intervalSeconds: 60)
        #expect(try url(moving) == "https://new.example/feed", "another feed has that URL: it stays")
        #expect(try url(other) == "https://taken.example/feed")
        #expect(try fixture.reader().feeds(account: 1).first { $0.id.rawValue == moving }?.status == .ok, "the fetch is recorded")
    }

    /// What a feed showed came from its old URL (docs/SECURITY.md): moved by a permanent redirect, it takes
    /// the new document's title and site, and its icon is looked for again.
    @Test func aMovedFeedShowsTheNewURLsTitleAndLooksForItsIconAgain() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let feed = try await fixture.feed("https://planted.example/feed")
        let now = Date()
        func record(_ newURL: String?, _ title: String) async throws {
            try await store.record(.success(etag: nil, lastModified: nil, newURL: newURL, title: title,
                                            siteURL: "https://site.example/\(title)"),
                                   feedID: FeedID(feed), checkedAt: now, nextCheckAt: now.addingTimeInterval(60), intervalSeconds: 60)
        }
        try await record(nil, "Planted")
        try await store.setIcon(feedID: feed, image: (Data([1, 2, 3]), "image/png", String(repeating: "a", count: 64),
                                                      "https://planted.example/icon.png"))
        try await record("https://popular.example/feed", "Popular")
        var moved: [String?] = []
        try fixture.reader().database.statement("""
            SELECT url, title, site_url, CASE WHEN icon_id IS NULL AND icon_checked_at IS NULL THEN 'none' END FROM feeds WHERE id = ?1
            """).query([.integer(feed)]) { row in moved = (0..<4).map { row.text(at: $0) } }
        #expect(moved == ["https://popular.example/feed", "Popular", "https://site.example/Popular", "none"])
    }
}
