import Foundation
@testable import FeedStore

/// A store in a fresh temporary directory, with a few feeds in two categories.
struct StoreFixture {
    let directory: URL
    let store: FeedStore
    let path: String

    init(entryRules: (any EntryRules)? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("test.db").path
        store = try FeedStore(path: path, entryRules: entryRules)
    }

    /// Subscribes to `url` in `category` and returns the feed's id.
    func feed(_ url: String, category: String? = nil) async throws -> Int64 {
        try await store.addFeeds([.init(url: url, title: url, category: category)], account: 1)
        return try await store.feedID(url: url, account: 1)!
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

/// Account 1's view, as most tests here read it (the store takes the account on every call).
extension StoreReader {
    func count() throws(StoreError) -> Int { try count(ArticleFilter(account: 1)) }

    func articles(sort: ArticleSort = .newest, limit: Int = 50, cursor: String? = nil) throws(StoreError) -> ArticlePage {
        try articles(ArticleFilter(account: 1), sort: sort, limit: limit, cursor: cursor)
    }
}
