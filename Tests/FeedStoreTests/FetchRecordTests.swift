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
            try fixture.reader().feeds(account: 1).first { $0.id == id }?.url
        }
        let now = Date()
        try await store.record(.success(etag: "\"1\"", lastModified: nil, newURL: "https://new.example/feed", title: nil,
                                        siteURL: nil), feedID: moving, checkedAt: now, nextCheckAt: now.addingTimeInterval(60),
                               intervalSeconds: 60)
        #expect(try url(moving) == "https://new.example/feed")
        try await store.record(.success(etag: "\"2\"", lastModified: nil, newURL: "https://taken.example/feed", title: nil,
                                        siteURL: nil), feedID: moving, checkedAt: now, nextCheckAt: now.addingTimeInterval(60),
                               intervalSeconds: 60)
        #expect(try url(moving) == "https://new.example/feed", "another feed has that URL: it stays")
        #expect(try url(other) == "https://taken.example/feed")
        #expect(try fixture.reader().feeds(account: 1).first { $0.id == moving }?.status == .ok, "the fetch is recorded")
    }
}
