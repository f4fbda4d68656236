import Foundation
@testable import FeedStore
import Testing

@Suite struct MigrationTests {
    @Test func aVersion3DatabaseKeepsEveryEntryAndItsStateAndGainsCounters() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v3.db").path
        do {
            // As version 3 stored them: read, starred, expired, and starred after its feed was removed;
            // story 1 is carried by feeds A and C (both Tech), story 2 by A (Tech) and B (World).
            let old = try Database(path: path, schemaVersion: 3)
            try old.execute("""
                INSERT INTO categories(id, name) VALUES (1, 'Tech'), (2, 'World');
                INSERT INTO feeds(id, url, title, category_id, added_at) VALUES
                    (1, 'https://a.example/feed', 'A', 1, 0), (2, 'https://b.example/feed', 'B', 2, 0),
                    (3, 'https://c.example/feed', 'C', 1, 0);
                INSERT INTO entries(id, feed_id, key, url, title, search_text, first_seen_at, sort_at, fingerprint,
                                    read, starred, removed) VALUES
                    (1, 1, 'https://x.example/1', 'https://x.example/1', 'Alpha', 'alpha text', 10, 10, 1, 1, 0, 0),
                    (2, 1, 'https://x.example/2', 'https://x.example/2', 'Beta', 'beta text', 20, 20, 2, 0, 1, 0),
                    (3, 2, 'https://x.example/3', 'https://x.example/3', NULL, NULL, 30, 30, 3, 0, 0, 1),
                    (4, NULL, 'https://x.example/4', 'https://x.example/4', 'Delta', 'delta text', 40, 40, 4, 0, 1, 0);
                INSERT INTO entry_sources(feed_id, entry_id) VALUES (1, 1), (3, 1), (1, 2), (2, 2), (2, 3);
                INSERT INTO entries_fts(rowid, title, body, author) VALUES
                    (1, 'Alpha', 'alpha text', NULL), (2, 'Beta', 'beta text', NULL), (4, 'Delta', 'delta text', NULL);
                """)
        }

        let store = try FeedStore(path: path)
        let reader = try StoreReader(path: path)
        #expect(try reader.database.integer("PRAGMA user_version") == Migrations.currentVersion)
        #expect(try reader.database.integer("PRAGMA foreign_keys") == 1)
        let articles = try reader.articles(sort: .oldest).articles
        #expect(articles.map(\.id) == [1, 2, 4], "the expired story stays expired")
        #expect(articles.map(\.isRead) == [true, false, false])
        #expect(articles.map(\.isStarred) == [false, true, true])
        #expect(articles.map(\.feedID) == [1, 1, nil])
        #expect(try reader.articles(ArticleFilter(search: "beta")).articles.map(\.id) == [2], "the index still fits")

        var feeds: [String: [Int]] = [:]
        for feed in try reader.feeds() { feeds[feed.title ?? ""] = [feed.unread, feed.total] }
        #expect(feeds == ["A": [1, 2], "B": [1, 1], "C": [0, 1]])
        #expect(try reader.categories().map { [$0.unread, $0.total] } == [[1, 2], [1, 1]])
        #expect(try reader.totals().entries == 3)
        #expect(try reader.totals().unread == 2)
        var sources: [Int64] = []
        try reader.database.statement("SELECT sources FROM entry_state ORDER BY entry_id").query { sources.append($0.int64(at: 0)) }
        #expect(sources == [2, 2, 1, 0])

        // The migrated store goes on keeping its counters.
        try await store.mark(ids: [1], read: false)
        #expect(try reader.categories().first?.unread == 2)
        var integrity: String?
        try reader.database.statement("PRAGMA integrity_check").query { integrity = $0.text(at: 0) }
        #expect(integrity == "ok")
    }
}
