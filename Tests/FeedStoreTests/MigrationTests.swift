import Foundation
@testable import FeedStore
import Testing

@Suite(.enabled(if: !TestDatabase.isPostgres, "SQLite's migration steps; PostgreSQL starts at step 27"))
struct MigrationTests {
    @Test func aVersion3DatabaseKeepsEveryEntryAndItsStateAndGainsCounters() async throws {
        let (path, remove) = try scratchDatabase("v3.db")
        defer { remove() }
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
        #expect(try reader.articles(ArticleFilter(account: 1, search: "beta")).articles.map(\.id) == [2], "the index still fits")

        var feeds: [String: [Int]] = [:]
        for feed in try reader.feeds(account: 1) { feeds[feed.title ?? ""] = [feed.unread, feed.total] }
        #expect(feeds == ["A": [1, 2], "B": [1, 1], "C": [0, 1]])
        #expect(try reader.categories(account: 1).map { [$0.unread, $0.total] } == [[1, 2], [1, 1]])
        #expect(try reader.totals(account: 1).entries == 3)
        #expect(try reader.totals(account: 1).unread == 2)
        var sources: [Int64] = []
        try reader.database.statement("SELECT sources FROM entry_state ORDER BY entry_id").query { sources.append($0.int64(at: 0)) }
        #expect(sources == [2, 2, 1, 0])

        // The migrated store goes on keeping its counters.
        try await store.mark(ids: [1], account: 1, read: false)
        #expect(try reader.categories(account: 1).first?.unread == 2)
        var integrity: String?
        try reader.database.statement("PRAGMA integrity_check").query { integrity = $0.text(at: 0) }
        #expect(integrity == "ok")
    }

    /// The owner, its tokens and its sessions become account 1's, an admin; ids are kept.
    @Test func aVersion13DatabaseMakesItsOwnerTheFirstAdmin() async throws {
        let (path, remove) = try scratchDatabase("v13.db")
        defer { remove() }
        do {
            let old = try Database(path: path, schemaVersion: 13)
            try old.execute("""
                INSERT INTO account(id, name, password_hash, fever_key, created_at, updated_at)
                    VALUES (1, 'alice', '$argon2id$x', 'abc', 100, 200);
                INSERT INTO api_tokens(id, label, digest, created_at) VALUES (7, 'phone', 'd7', 300);
                INSERT INTO web_sessions(id, digest, created_at, last_seen_at, user_agent, address)
                    VALUES (5, 's5', 400, 500, 'Firefox', '10.0.0.1');
                """)
        }
        let store = try FeedStore(path: path)
        let reader = try StoreReader(path: path)
        let accounts = try reader.accounts()
        #expect(accounts.map(\.id) == [1] && accounts.first?.name == "alice" && accounts.first?.isAdmin == true)
        #expect(accounts.first?.feverKey == "abc" && accounts.first?.passwordHash == "$argon2id$x")
        #expect(try reader.token(digest: "d7")?.accountID == 1 && reader.token(digest: "d7")?.id == 7)
        #expect(try reader.sessions(account: 1, expiredBefore: .distantPast).map(\.id) == [5])

        // A removed token's id is not given out again.
        _ = try await store.removeToken(idOrLabel: "phone", account: 1)
        let next = try await store.addToken(label: "laptop", digest: "d8", account: 1)
        #expect(next?.id == 8)
    }

    /// A database that never had an owner gets a first admin without a password, which owns what
    /// there is (tokens made before any account) and cannot log in with a password.
    @Test func aDatabaseWithoutAnOwnerGetsAFirstAdminWithoutAPassword() async throws {
        let (path, remove) = try scratchDatabase("v13.db")
        defer { remove() }
        do {
            let old = try Database(path: path, schemaVersion: 13)
            try old.execute("INSERT INTO api_tokens(id, label, digest, created_at) VALUES (3, 'script', 'd3', 300)")
        }
        _ = try FeedStore(path: path)
        let reader = try StoreReader(path: path)
        let first = try #require(try reader.accounts().first)
        #expect(first.id == 1 && first.name == "admin" && first.isAdmin && !first.hasPassword)
        #expect(try reader.token(digest: "d3")?.accountID == 1)
    }

    /// A new database starts at the baseline; a file made before took steps 1 to 27 one by one. Both
    /// must end in the same schema, to the letter (SQLite keeps each table's definition as written:
    /// compared with whitespace and quotes aside), with the same full-text settings and first rows,
    /// at step 27 and after the later steps.
    @Test func theStepsOneByOneEndInTheBaseline() throws {
        for version in [Baseline.version, Migrations.currentVersion] {
            let (stepped, removeStepped) = try scratchDatabase("stepped.db")
            let (fresh, removeFresh) = try scratchDatabase("fresh.db")
            defer { removeStepped(); removeFresh() }
            _ = try Database(path: stepped, schemaVersion: Baseline.version - 1)
            let one = try Database(path: stepped, schemaVersion: version)
            let other = try Database(path: fresh, schemaVersion: version)
            #expect(try one.integer("PRAGMA user_version") == version && other.integer("PRAGMA user_version") == version)
            let (a, b) = (try schemaFacts(of: one), try schemaFacts(of: other))
            #expect(a.count > 40)
            #expect(a.subtracting(b).sorted() == [], "only after steps 1 to \(version)")
            #expect(b.subtracting(a).sorted() == [], "only in the baseline, at \(version)")
        }
    }

    /// Each table, index and trigger as SQLite keeps it, the full-text index's settings, the id
    /// sequences started and the rows a new database holds.
    private func schemaFacts(of database: Database) throws -> Set<String> {
        var facts: Set<String> = []
        func add(_ sql: String) throws {
            try database.statement(sql).query { row in
                facts.insert((0..<row.columnCount).map { row.text(at: $0) ?? "null" }.joined(separator: " | "))
            }
        }
        try add("SELECT type, name, tbl_name, sql FROM sqlite_master")
        try add("SELECT 'fts', k, v FROM entries_fts_config")
        try add("SELECT 'sequence', name, seq FROM sqlite_sequence WHERE seq > 0")
        try add("SELECT 'account', id, name, admin, password_hash, settings FROM accounts")
        try add("SELECT 'totals', * FROM store_totals")
        return Set(facts.map { fact in
            fact.replacingOccurrences(of: "\"", with: "")
                .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
                .replacingOccurrences(of: #" ?([(),]) ?"#, with: "$1", options: .regularExpression)
        })
    }

    /// A database path in a directory of its own, and how to remove the directory.
    /// Text versions kept before step 36 get an id, their titles and authors indexed, and a fingerprint
    /// that has their feed's next document rewrite them with their plain text.
    @Test func aVersion35DatabasesVersionsBecomeSearchable() async throws {
        let (path, remove) = try scratchDatabase("v35.db")
        defer { remove() }
        do {
            let old = try Database(path: path, schemaVersion: 35)
            try old.execute("""
                INSERT INTO feeds(id, url, added_at) VALUES (1, 'https://a.example/feed', 0), (2, 'https://b.example/feed', 0);
                INSERT INTO entries(id, key, url, title, search_text, first_seen_at, sort_at, fingerprint)
                    VALUES (1, 'https://news.example/story', 'https://news.example/story', 'The real story', 'words', 0, 0, 7);
                INSERT INTO entry_state(entry_id, feed_id, sources, sort_at) VALUES (1, 1, 2, 0);
                INSERT INTO entry_sources(feed_id, entry_id) VALUES (1, 1), (2, 1);
                INSERT INTO entry_versions(entry_id, feed_id, fingerprint, title, author, content)
                    VALUES (1, 2, 42, 'Planted headline', 'Mallory', '<p>zebra</p>');
                """)
        }
        _ = try FeedStore(path: path)
        let reader = try StoreReader(path: path)
        var rows: [String] = []
        try reader.database.statement("SELECT id, fingerprint, search_text IS NULL FROM entry_versions")
            .query { rows.append("\($0.int64(at: 0)) \($0.int64(at: 1)) \($0.optionalInt64(at: 2) ?? -1)") }
        #expect(rows == ["1 0 1"])
        #expect(try reader.database.integer("SELECT versioned FROM entry_state WHERE entry_id = 1") == 1)
        for (word, found): (String, Int64) in [("headline", 1), ("mallory", 1), ("zebra", 0), ("story", 0)] {
            #expect(try reader.database.integer("SELECT count(*) FROM entry_versions_fts WHERE entry_versions_fts MATCH ?1",
                                                [.text(word)]) == found, "\(word)")
        }
        var integrity: String?
        try reader.database.statement("PRAGMA integrity_check").query { integrity = $0.text(at: 0) }
        #expect(integrity == "ok")
    }

    private func scratchDatabase(_ name: String) throws -> (path: String, remove: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory.appendingPathComponent(name).path, { try? FileManager.default.removeItem(at: directory) })
    }
}
