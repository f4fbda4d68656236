import Foundation
@testable import FeedStore
import Testing

@Suite(.enabled(if: !TestDatabase.isPostgres, "SQLite's write-ahead log"))
struct CheckpointerTests {
    @Test func committedPagesReachTheDatabaseFileWithoutTheWriterCheckpointing() async throws {
        let fixture = try StoreFixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let feed = try await fixture.feed("https://a.example/feed")
        let size = { (try? FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int) ?? 0 }
        let before = size()
        // A few hundred pages: far below the writer's own limit, so only the checkpointer moves them.
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: (0..<400).map {
            entry("https://a.example/\($0)", title: "Entry \($0)", text: String(repeating: "word\($0) ", count: 200))
        })], now: now)
        let deadline = Date().addingTimeInterval(5)
        while size() <= before + 400 * 1000, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(size() > before + 400 * 1000, "the store is open; only its checkpointer writes the database file")
        #expect(try fixture.reader().count() == 400)
    }
}
