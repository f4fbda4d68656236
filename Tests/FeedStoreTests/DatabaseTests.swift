import Foundation
import Testing
@testable import FeedStore

@Suite struct DatabaseTests {
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

    @Test func reopeningKeepsDataAndDoesNotMigrateTwice() async throws {
        let store = try FeedStore(path: path("reopen.db"))
        let added = try await store.addFeeds([.init(url: "https://example.org/feed", category: "Tech")])
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
        ])
        #expect(added == 2)
        #expect(try await store.categoryNames() == ["Science", "World"])
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
