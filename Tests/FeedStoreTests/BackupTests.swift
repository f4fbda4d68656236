import Foundation
@testable import FeedStore
import Testing

/// On SQLite through its online backup API; on PostgreSQL as a copy (`DatabaseCopy`) into an SQLite file.
@Suite struct BackupTests {
    @Test func backupHoldsEverythingAndRefusesToOverwrite() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed", category: "Tech")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: (0..<50).map {
            entry("https://a.example/\($0)", title: "Entry \($0)")
        })], now: now)
        let copy = fixture.directory.appendingPathComponent("copy.db").path
        try await fixture.store.backup(to: copy)
        let reader = try StoreReader(path: copy)
        #expect(try reader.count() == 50)
        #expect(try reader.count(ArticleFilter(account: 1, search: "entry")) == 50)
        #expect(try reader.categories(account: 1).map(\.name) == ["Tech"])
        await #expect(throws: StoreError.self) { try await fixture.store.backup(to: copy) }
    }
}
