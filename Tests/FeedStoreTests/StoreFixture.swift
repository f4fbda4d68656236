import Foundation
@testable import FeedStore
import Synchronization

/// A store in a fresh temporary directory, with a few feeds in two categories.
struct StoreFixture {
    let directory: URL
    let store: FeedStore
    let path: String

    init(entryRules: (any EntryRules)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ScratchDirectories.removeAtExit(directory)
        path = try TestDatabase.fresh(orFile: directory.appendingPathComponent("test.db").path)
        store = try FeedStore(path: path, entryRules: entryRules)
    }

    /// Subscribes to `url` in `category` and returns the feed's id.
    func feed(_ url: String, category: String? = nil) async throws -> Int64 {
        try await store.addFeeds([.init(url: url, title: url, category: category)], account: 1)
        return try await store.feedID(url: url, account: 1)!.rawValue
    }

    func reader() throws -> StoreReader { try StoreReader(path: path) }
}

func entry(_ url: String?, title: String, guid: String? = nil, text: String? = nil, published: TimeInterval? = nil,
           updated: TimeInterval? = nil) -> IncomingEntry {
    IncomingEntry(url: url, guid: guid, title: title, summary: text, content: nil, author: "Ann",
                  published: published.map { Date(timeIntervalSince1970: $0) },
                  updated: updated.map { Date(timeIntervalSince1970: $0) }, searchText: text ?? title)
}

let day: TimeInterval = 86_400
let now = Date(timeIntervalSince1970: 1_700_000_000)

/// The fixtures' directories, removed when the test process ends: a fixture's store may be used until
/// its test ends, whenever the fixture itself was last used (some hold a database of a gigabyte).
enum ScratchDirectories {
    private static let directories = Mutex<[URL]>([])
    private static let registered = Mutex(false)

    static func removeAtExit(_ directory: URL) {
        directories.withLock { $0.append(directory) }
        registered.withLock { done in
            guard !done else { return }
            done = true
            atexit { ScratchDirectories.removeAll() }
        }
    }

    private static func removeAll() {
        for directory in directories.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }
}

/// Account 1's view, as most tests here read it (the store takes the account on every call).
extension StoreReader {
    func count() throws(StoreError) -> Int { try count(ArticleFilter(account: 1)) }

    func articles(sort: ArticleSort = .newest, limit: Int = 50, cursor: String? = nil) throws(StoreError) -> ArticlePage {
        try articles(ArticleFilter(account: 1), sort: sort, limit: limit, cursor: cursor)
    }
}

/// Where the store tests keep their data: an SQLite file, or, when `AGGREGATOR_TEST_POSTGRES` holds
/// the URI of a test cluster (`make test` starts one: Tests/postgres-cluster.sh), a new PostgreSQL
/// database of its own for each store.
enum TestDatabase {
    static let postgresURI = ProcessInfo.processInfo.environment["AGGREGATOR_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    static var isPostgres: Bool { postgresURI != nil }

    /// A new empty database's URI on the test cluster, else `file`.
    static func fresh(orFile file: String) throws -> String {
        guard let base = postgresURI else { return file }
        let name = "store_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(uri: base)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        guard let slash = base.range(of: "/", options: .backwards, range: base.range(of: "://")!.upperBound..<(base.firstIndex(of: "?") ?? base.endIndex)) else {
            return base
        }
        let databaseEnd = base[slash.upperBound...].firstIndex(of: "?") ?? base.endIndex
        return base.replacingCharacters(in: slash.upperBound..<databaseEnd, with: name)
    }
}

/// A subscription's changes, as the tests write them: `changing { $0.title = "Mine" }`.
func changing(_ body: (inout FeedChanges) -> Void) -> FeedChanges {
    var changes = FeedChanges()
    body(&changes)
    return changes
}
