import Foundation
import Testing
@testable import FeedStore

@Suite(.enabled(if: !TestDatabase.isPostgres, "SQLite files"))
struct DatabaseTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedstore-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @Test func newDatabaseUsesWALAndTheCurrentSchema() throws {
        let database = try Database(path: path("new.db"))
        let journal = try database.prepare("PRAGMA journal_mode")
        #expect(try journal.step())
        #expect(journal.text(at: 0) == "wal")
        #expect(try database.integer("PRAGMA foreign_keys") == 1)
        #expect(try database.integer("PRAGMA user_version") == Migrations.currentVersion)
    }

    @Test func newDatabasesGetLargePagesAndOldOnesKeepTheirs() async throws {
        let fresh = try Database(path: path("fresh.db"))
        #expect(try fresh.integer("PRAGMA page_size") == Int64(SQLiteConnection.newPageSize))

        // A database an earlier build created, on SQLite's default 4 KB pages.
        let old = path("old-pages.db")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
            + "db.execute('PRAGMA page_size = 4096'); db.execute('CREATE TABLE earlier(x)'); db.commit()", old]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let store = try FeedStore(path: old)
        #expect(try await store.addFeeds([.init(url: "https://example.org/feed")], account: 1) == 1)
        #expect(try Database(path: old).integer("PRAGMA page_size") == 4096)
    }

    @Test func reopeningKeepsDataAndDoesNotMigrateTwice() async throws {
        let store = try FeedStore(path: path("reopen.db"))
        let added = try await store.addFeeds([.init(url: "https://example.org/feed", category: "Tech")], account: 1)
        #expect(added == 1)
        let reopened = try FeedStore(path: path("reopen.db"))
        #expect(try await reopened.feedCount() == 1)
    }

    @Test func duplicateURLsAndCategoryCaseAreMerged() async throws {
        let store = try FeedStore(path: path("dupes.db"))
        let added = try await store.addFeeds([
            .init(url: "https://a.example/feed", category: "Science"),
            .init(url: "https://b.example/feed", category: "science"),
            .init(url: "https://a.example/feed", category: "World"),
        ], account: 1)
        #expect(added == 2)
        #expect(try await store.categoryNames(account: 1) == ["Science", "World"])
    }

    @Test func aFileThatIsNotSQLiteIsNamedAsSuch() throws {
        let file = path("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StoreError.self) { try Database(path: file) }
        #expect(error?.kind == .notADatabase)
        #expect(error?.description.contains("is not an SQLite database") == true)
    }

    @Test func aDatabaseFromANewerBuildIsRefused() throws {
        let file = path("future.db")
        do {
            let database = try Database(path: file)
            try database.execute("PRAGMA user_version = 999")
        }
        let error = #expect(throws: StoreError.self) { try Database(path: file) }
        #expect(error?.kind == .newerSchema)
        #expect(error?.description.contains("upgrade aggregatord") == true)
    }

    @Test func aMissingDirectorySaysSo() throws {
        let error = #expect(throws: StoreError.self) { try Database(path: path("missing/dir/x.db")) }
        #expect(error?.kind == .cannotOpen)
    }
}
