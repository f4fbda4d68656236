import Foundation
@testable import FeedStore
import Testing

/// `copy-database` (docs/ARCHITECTURE.md): a copy answers every query as its original does, keeps ids and id
/// sequences, and never writes into a database that holds anything. With the PostgreSQL test cluster
/// the copy goes SQLite → PostgreSQL → SQLite; without it, SQLite → SQLite.
@Suite struct DatabaseCopyTests {
    /// Two accounts, three feeds (one shared, one cross-post), marks, an edit, a token, an icon, a
    /// hidden category; one entry and one account deleted, so that the sequences run past the rows.
    private func populatedSource(in directory: URL) async throws -> String {
        let path = directory.appendingPathComponent("source.db").path
        let store = try FeedStore(path: path)
        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "$argon2id$x", isAdmin: false, now: now))
        let gone = try #require(try await store.addAccount(name: "Gone", passwordHash: "", isAdmin: false, now: now))
        try await store.removeAccount(id: gone)
        try await store.addFeeds([.init(url: "https://a.example/feed", title: "A", category: "Tech"),
                                  .init(url: "https://b.example/feed", title: "B", category: "news")], account: 1)
        try await store.addFeeds([.init(url: "https://a.example/feed", title: "Bea's A", category: "Zeta")], account: bea)
        let a = try #require(try await store.feedID(url: "https://a.example/feed", account: 1))
        let b = try #require(try await store.feedID(url: "https://b.example/feed", account: 1))
        let feedA = try await store.feedID(ofSubscription: a, account: 1)
        let feedB = try await store.feedID(ofSubscription: b, account: 1)
        func story(_ n: Int, _ title: String) -> IncomingEntry {
            entry("https://news.example/\(n)", title: title, text: "Story \(n) about café culture and Swift", published: Double(n) * day)
        }
        try await store.ingest([
            IncomingFeed(feedID: feedA, entries: [story(1, "Éclairs"), story(2, "apples"), story(3, "Bananas")]),
            IncomingFeed(feedID: feedB, entries: [story(3, "Bananas"), story(4, "zebras"), story(5, "Ünicode")]),
        ], now: now)
        // b.example's text of story 3 changes: a version of its own, searched by its readers.
        try await store.ingest([
            IncomingFeed(feedID: feedB, entries: [entry("https://news.example/3", title: "Plantains", text: "Story 3 about plantains",
                                                        published: 3 * day)]),
        ], now: now)
        _ = try await store.mark(ids: [1, 2], account: 1, read: true)
        _ = try await store.mark(ids: [3], account: bea, starred: true)
        _ = try await store.editEntry(id: 2, title: "Apples (edited)", content: nil, account: 1, now: now)
        _ = try await store.addToken(label: "reader", digest: String(repeating: "ab", count: 32), account: bea, now: now)
        let icon = Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 0xFF])
        try await store.setIcon(feedID: feedA.rawValue, image: (icon, "image/png", "digest-a", "https://a.example/icon.png"), now: now)
        let tech = try #require(try await store.createCategory("Hidden", account: 1))
        try await store.setCategoryHidden(id: tech, account: 1, true)
        try await store.finishHeldCommit()
        return path
    }

    /// What the store answers, as text to compare.
    private func answers(_ database: String) throws -> [String] {
        let reader = try StoreReader(path: database)
        var answers: [String] = []
        for account: AccountID in [1, 3] {
            for sort in [ArticleSort.newest, .oldest, .title] {
                answers.append("\(try reader.articles(ArticleFilter(account: account), sort: sort, limit: 100).articles)")
            }
            answers.append("\(try reader.articles(ArticleFilter(account: account, search: "cafe swift"), sort: .newest).articles.map(\.id))")
            for feed in [nil, Int64(2)] {
                for sort in ArticleSort.allCases {
                    let filter = ArticleFilter(account: account, feedID: feed.map { SubscriptionID($0) }, search: "plantains OR bananas")
                    answers.append("\(try reader.articles(filter, sort: sort).articles.map { "\($0.id) \($0.title ?? "") \($0.snippet ?? "")" })")
                }
            }
            answers.append("\(try reader.feeds(account: account))")
            answers.append("\(try reader.categories(account: account))")
            answers.append("\(try reader.totals(account: account))")
            answers.append("\(try reader.tokens(account: account))")
            answers.append("\(try reader.icons(account: account, nonPublic: true))")
            answers.append("\(try reader.entryEdits(account: account, entryIDs: [1, 2, 3]).mapValues { "\($0)" }.sorted { $0.key < $1.key })")
        }
        answers.append("\(try reader.accounts())")
        return answers
    }

    @Test func aCopyAnswersAsItsOriginalAndKeepsItsIds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await populatedSource(in: directory)
        let middle = try TestDatabase.fresh(orFile: directory.appendingPathComponent("middle.db").path)
        let target = directory.appendingPathComponent("target.db").path
        var reported: [DatabaseCopy.Progress] = []
        let first = try DatabaseCopy.copy(from: source, to: middle) { reported.append($0) }
        #expect(first.summary == "accounts=2 feeds=2 subscriptions=3 entries=5 marks=3 tokens=1")
        #expect(reported.dropLast().compactMap { if case .copied(let table, _) = $0 { table } else { nil } } == DatabaseCopy.tables)
        #expect(reported.last == .indexing(entries: 5), "said before the longest step")
        _ = try DatabaseCopy.copy(from: middle, to: target)
        let original = try answers(source)
        #expect(try answers(middle) == original)
        #expect(try answers(target) == original)

        // The sequences resume past what the source gave out: account 3 was deleted there, so a new one is 4.
        for database in [middle, target] {
            let store = try FeedStore(path: database)
            #expect(try await store.addAccount(name: "New", passwordHash: "", isAdmin: false) == 4)
        }
    }

    /// Every table the schema makes is copied, but the search index (rebuilt in the target's own form)
    /// and what only a running server means (failed logins, the daemons alive): a table a new step
    /// adds cannot be forgotten.
    @Test func everyTableOfTheSchemaIsCopied() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try FeedStore(path: file)
        var tables: Set<String> = []
        try StoreReader(path: file).database.statement("SELECT name FROM sqlite_master WHERE type = 'table'").query { row in
            if let name = row.text(at: 0), !name.hasPrefix("entries_fts"), !name.hasPrefix("entry_versions_fts"), !name.hasPrefix("sqlite_") {
                tables.insert(name)
            }
        }
        #expect(tables.subtracting(["login_failures", "nodes"]) == Set(DatabaseCopy.tables), "\(tables.symmetricDifference(DatabaseCopy.tables))")
    }

    @Test func aTargetThatHoldsAnythingIsRefusedAndLeftAsItWas() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await populatedSource(in: directory)
        let occupied = try TestDatabase.fresh(orFile: directory.appendingPathComponent("occupied.db").path)
        let store = try FeedStore(path: occupied)
        try await store.addFeeds([.init(url: "https://mine.example/feed")], account: 1)
        #expect {
            _ = try DatabaseCopy.copy(from: source, to: occupied)
        } throws: { error in
            "\(error)".contains("already")
        }
        #expect(try await store.feedCount() == 1)
        let emptySource = try TestDatabase.fresh(orFile: directory.appendingPathComponent("empty.db").path)
        #expect(throws: StoreError.self) { _ = try DatabaseCopy.copy(from: emptySource, to: directory.appendingPathComponent("x.db").path) }
    }
}
