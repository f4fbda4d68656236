import FeedStore
import Foundation

/// `storebench queries DB ENTRIES`: fills DB (once) with ENTRIES synthetic entries in 5,000 feeds and
/// 7 categories, then times the listing, paging, counting, search and marking queries of the
/// FeedStore bars, medians of 20. Prints one markdown table.
enum QueryBench {
    static let categories = ["Technology", "Science", "Business", "World", "Sports", "Health", "Entertainment"]
    static let words = ["swift", "linux", "server", "market", "energy", "health", "vaccine", "football", "galaxy",
                        "climate", "election", "music", "film", "compiler", "network", "privacy", "startup",
                        "research", "ocean", "history", "design", "security", "memory", "planet", "economy"]

    static func run(databasePath: String, entries: Int) async throws {
        let store = try FeedStore(path: databasePath)
        if try await store.feedCount() == 0 {
            try await fill(store, databasePath: databasePath, entries: entries)
        }
        let reader = try StoreReader(path: databasePath)
        let size = (try FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? Int) ?? 0
        let total = try reader.count()
        print("\(total) entries, \(try reader.feeds().count) feeds; database \(size / 1_000_000) MB, \(size / max(total, 1)) bytes per entry\n")
        print("| query | median ms | min–max ms |")
        print("|---|---|---|")
        func time(_ label: String, _ body: () throws -> Void) rethrows {
            var samples: [Double] = []
            for _ in 0..<20 {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            samples.sort()
            print("| \(label) | \(String(format: "%.2f", samples[10])) | \(String(format: "%.2f–%.2f", samples[0], samples[19])) |")
        }
        let category = ArticleFilter(category: "Science")
        let first = try reader.articles(category, limit: 50)
        try time("first page (50) of a category, newest") { _ = try reader.articles(category, limit: 50) }
        try time("next page by cursor") { _ = try reader.articles(category, limit: 50, cursor: first.nextCursor) }
        try time("unread counts for all categories") { _ = try reader.categories() }
        try time("search a common word, first page") { _ = try reader.articles(ArticleFilter(search: "climate"), sort: .relevance, limit: 50) }
        try time("search a common word, newest first") { _ = try reader.articles(ArticleFilter(search: "climate"), limit: 50) }
        var marks: [Double] = []
        for round in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            try await store.mark(ArticleFilter(category: categories[round]), read: round % 2 == 0)
            marks.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        marks.sort()
        print("| mark a category read (5 runs) | \(String(format: "%.0f", marks[2])) | \(String(format: "%.0f–%.0f", marks[0], marks[4])) |")
    }

    private static func fill(_ store: FeedStore, databasePath: String, entries: Int) async throws {
        let feedCount = 5000
        try await store.addFeeds((0..<feedCount).map {
            FeedStore.NewFeed(url: "https://feeds\($0 % 400).example/\($0).xml", title: "Feed \($0)",
                              category: categories[$0 % categories.count])
        })
        var ids: [Int64] = []
        for feed in try StoreReader(path: databasePath).feeds() { ids.append(feed.id) }
        var generator = SystemRandomNumberGenerator()
        let perFeed = max(1, entries / feedCount)
        let base = Date().timeIntervalSince1970 - 365 * 86_400
        let started = Date()
        for batchStart in stride(from: 0, to: feedCount, by: 50) {
            let documents = ids[batchStart..<min(batchStart + 50, ids.count)].map { id in
                IncomingFeed(feedID: id, entries: (0..<perFeed).map { index in
                    let text = (0..<40).map { _ in words[Int.random(in: 0..<words.count, using: &generator)] }.joined(separator: " ")
                    return IncomingEntry(url: "https://site\(id).example/\(index)", guid: nil,
                                         title: "Entry \(index) " + words[index % words.count], summary: text,
                                         author: "Author \(id % 97)",
                                         published: Date(timeIntervalSince1970: base + Double(Int.random(in: 0..<31_536_000, using: &generator))),
                                         searchText: text)
                })
            }
            try await store.ingest(documents)
        }
        FileHandle.standardError.write(Data("filled \(perFeed * feedCount) entries in \(Int(Date().timeIntervalSince(started))) s\n".utf8))
    }
}
