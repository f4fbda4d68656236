import FeedStore
import Foundation

/// `storebench queries DB ENTRIES`: fills DB (once) with ENTRIES synthetic entries in 5,000 feeds and
/// 7 categories, then times the listing, paging, counting, search and marking queries of the
/// FeedStore bars, medians of 20. Prints one markdown table.
enum QueryBench {
    static let categories = ["Technology", "Science", "Business", "World", "Sports", "Health", "Entertainment"]

    /// Text drawn from a Zipf-distributed vocabulary (s = 1) of 30,000 made-up words, the shape real
    /// text has: a few words in nearly every entry, most in very few. With ~120 words an entry, the
    /// word of rank 200 is in about 5 % of entries, rank 20 in ~40 %, rank 5,000 in ~0.3 %.
    struct Vocabulary {
        static let syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "shi", "vo", "pe", "da", "gu", "ri", "so", "fa",
                                "be", "zo", "ni", "ku", "te", "wa"]
        let words: [String]
        private let cumulative: [Double]

        init(size: Int = 30_000) {
            words = (0..<size).map { rank in
                var digits: [String] = []
                var rest = rank + Self.syllables.count  // at least two syllables
                while rest > 0 {
                    digits.append(Self.syllables[rest % Self.syllables.count])
                    rest /= Self.syllables.count
                }
                return digits.joined()
            }
            var total = 0.0
            cumulative = (1...size).map { rank in
                total += 1 / Double(rank)
                return total
            }
        }

        /// A word drawn by rank frequency (drand48: seeded, so every fill is the same).
        func draw() -> String {
            let target = drand48() * cumulative[cumulative.count - 1]
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return words[low]
        }

        func text(_ count: Int) -> String { (0..<count).map { _ in draw() }.joined(separator: " ") }
    }

    static func run(databasePath: String, entries: Int) async throws {
        let vocabulary = Vocabulary()
        let store = try FeedStore(path: databasePath)
        if try await store.feedCount() == 0 {
            try await fill(store, databasePath: databasePath, entries: entries, vocabulary: vocabulary)
        }
        let reader = try StoreReader(path: databasePath)
        let size = await store.sizeInBytes() ?? 0  // the file, or the PostgreSQL database
        let total = try reader.count(ArticleFilter(account: 1))
        print("\(total) entries, \(try reader.feeds(account: 1).count) feeds; database \(size / 1_000_000) MB, \(size / max(total, 1)) bytes per entry\n")
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
        let category = ArticleFilter(account: 1, category: "Science")
        let first = try reader.articles(category, limit: 50)
        try time("first page (50) of a category, newest") { _ = try reader.articles(category, limit: 50) }
        try time("next page by cursor") { _ = try reader.articles(category, limit: 50, cursor: first.nextCursor) }
        try time("unread counts for all categories") { _ = try reader.categories(account: 1) }
        try time("status totals") { _ = try reader.totals(account: 1) }
        for (rank, label) in [(200, "common word (rank 200)"), (20, "very common word (rank 20)"),
                              (5_000, "rare word (rank 5000)")] {
            let word = vocabulary.words[rank - 1]
            let matches = try reader.count(ArticleFilter(account: 1, search: word))
            let share = String(format: "%.1f %%", Double(matches) * 100 / Double(max(total, 1)))
            try time("search a \(label), in \(share), by relevance") {
                _ = try reader.articles(ArticleFilter(account: 1, search: word), sort: .relevance, limit: 50)
            }
            try time("search a \(label), newest first") { _ = try reader.articles(ArticleFilter(account: 1, search: word), limit: 50) }
        }
        // A prefix of a common word (3 letters match the 1,000 words that begin with its first syllables).
        let prefix = String(vocabulary.words[199].prefix(3)) + "*"
        let prefixMatches = try reader.count(ArticleFilter(account: 1, search: prefix))
        try time("search a prefix (\(prefix), in \(String(format: "%.1f %%", Double(prefixMatches) * 100 / Double(max(total, 1))))), by relevance") {
            _ = try reader.articles(ArticleFilter(account: 1, search: prefix), sort: .relevance, limit: 50)
        }
        try time("search a prefix, newest first") { _ = try reader.articles(ArticleFilter(account: 1, search: prefix), limit: 50) }
        let pair = "\(vocabulary.words[199]) \(vocabulary.words[299])"
        try time("search two common words (\(pair)), by relevance") {
            _ = try reader.articles(ArticleFilter(account: 1, search: pair), sort: .relevance, limit: 50)
        }
        try time("search a common word in a category, newest first") {
            _ = try reader.articles(ArticleFilter(account: 1, category: "Science", search: vocabulary.words[199]), limit: 50)
        }
        let common = vocabulary.words[199]
        let relevant = try reader.articles(ArticleFilter(account: 1, search: common), sort: .relevance, limit: 50)
        try time("search a common word, next page by relevance") {
            _ = try reader.articles(ArticleFilter(account: 1, search: common), sort: .relevance, limit: 50, cursor: relevant.nextCursor)
        }
        // Every run flips the whole category (read, then unread again), so each one changes every entry.
        var marks: [Double] = []
        let members = try reader.count(ArticleFilter(account: 1, category: "Science"))
        for round in 0..<6 {
            let start = DispatchTime.now().uptimeNanoseconds
            let changed = try await store.mark(ArticleFilter(account: 1, category: "Science"), read: round % 2 == 0)
            marks.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            guard changed == members else { fatalError("marked \(changed) of \(members)") }
        }
        marks.sort()
        print("| mark a category of \(members) read or unread (6 runs) | \(String(format: "%.0f", marks[3])) | "
              + "\(String(format: "%.0f–%.0f", marks[0], marks[5])) |")
        try await perAccount(store, reader, time: time)
    }

    /// The reading queries as two accounts ask them (docs/ARCHITECTURE.md): account 1, which follows all 5,000
    /// feeds, and "fifty", which follows every 100th (10,000 of the entries): listings walk the shared
    /// date index and skip what is not theirs; counts come from their subscriptions.
    private static func perAccount(_ store: FeedStore, _ reader: StoreReader,
                                   time: (String, () throws -> Void) throws -> Void) async throws {
        var fifty = try reader.accounts().first { $0.name == "fifty" }?.id
        if fifty == nil {
            fifty = try await store.addAccount(name: "fifty", passwordHash: "", isAdmin: false)
            try await store.addFeeds(stride(from: 0, to: 5000, by: 100).map {
                FeedStore.NewFeed(url: "https://feeds\($0 % 400).example/\($0).xml", category: "Fifty")
            }, account: fifty!)
        }
        print("\n| query (per account) | median ms | min–max ms |")
        print("|---|---|---|")
        for (name, account) in [("all 5,000 feeds", AccountID(1)), ("50 feeds", fifty!)] {
            try time("\(name): first page (50) of unread, newest") {
                _ = try reader.articles(ArticleFilter(account: account, unreadOnly: true), limit: 50)
            }
            var listing = EntryListing(account: account)
            (listing.read, listing.order, listing.ascending, listing.limit) = (false, .publishedAt, false, 100)
            try time("\(name): Miniflux unread entries (100) with the total") { _ = try reader.entries(listing) }
            var ids = EntryListing(account: account)
            (ids.read, ids.order, ids.limit) = (false, .id, .max)
            try time("\(name): Fever's unread ids (all)") { _ = try reader.entryIDs(ids) }
            try time("\(name): unread and total counts") { _ = try reader.accountCounts(account) }
            try time("\(name): categories with counts") { _ = try reader.categories(account: account) }
        }
    }

    static func fill(_ store: FeedStore, databasePath: String, entries: Int, vocabulary: Vocabulary) async throws {
        let feedCount = 5000
        try await store.addFeeds((0..<feedCount).map {
            FeedStore.NewFeed(url: "https://feeds\($0 % 400).example/\($0).xml", title: "Feed \($0)",
                              category: categories[$0 % categories.count])
        }, account: 1)
        var ids: [Int64] = []
        for feed in try StoreReader(path: databasePath).feeds(account: 1) { ids.append(feed.id.rawValue) }
        srand48(42)
        let perFeed = max(1, entries / feedCount)
        let base = Date().timeIntervalSince1970 - 365 * 86_400
        let started = Date()
        for batchStart in stride(from: 0, to: feedCount, by: 50) {
            let documents = ids[batchStart..<min(batchStart + 50, ids.count)].map { id in
                IncomingFeed(feedID: FeedID(id), entries: (0..<perFeed).map { index in
                    let text = vocabulary.text(60 + Int(drand48() * 140))
                    return IncomingEntry(url: "https://site\(id).example/\(index)", guid: nil,
                                         title: vocabulary.text(5 + Int(drand48() * 6)),
                                         summary: String(text.prefix(300)), author: "Author \(id % 97)",
                                         published: Date(timeIntervalSince1970: base + drand48() * 31_536_000),
                                         searchText: text)
                })
            }
            try await store.ingest(documents)
            if batchStart % 500 == 0 {
                FileHandle.standardError.write(Data("filled \(batchStart * perFeed) entries\n".utf8))
            }
        }
        FileHandle.standardError.write(Data("filled \(perFeed * feedCount) entries in \(Int(Date().timeIntervalSince(started))) s\n".utf8))
    }
}
