import AggregatorCore
import FeedStore
import Foundation
import HTTPAPI
import HTTPServer

/// `storebench accounts DB`: issue 28's per-account bars at scale. On the 1,000,000-entry store of
/// `storebench queries` (filled first when DB is empty), adds 999 accounts following 50 feeds each,
/// drawn at random from the 5,000 (heavy overlap, seeded), and "reader500" following every 10th feed
/// (100,000 entries), half of them read and 1 % starred. Then times, medians of 20, what reader500's
/// apps ask, through the HTTP front end in this process (login, routing, JSON or HTML included; no
/// socket): Miniflux's unread page and feed counters, Google Reader's unread counts, the web page's
/// unread list; marking its 100,000 entries read (Miniflux's mark-all-as-read); and the cost of
/// storing a new entry in a feed all 1,000 accounts follow against one that one account follows.
enum AccountsBench {
    static let readerName = "reader500"
    static let readerPassword = "reader500-password"
    /// Followed by every account: the shared feed of the ingest comparison.
    static let everyonesFeed = "https://feeds0.example/0.xml"
    /// Followed by account 1 alone.
    static let onesFeed = "https://feeds1.example/1.xml"

    static func run(databasePath: String) async throws {
        let store = try FeedStore(path: databasePath)
        if try await store.feedCount() == 0 {
            try await QueryBench.fill(store, databasePath: databasePath, entries: 1_000_000, vocabulary: .init())
        }
        let reader = try StoreReader(path: databasePath)
        let service = AggregatorService(configuration: try Configuration.resolve(flags: ["database": databasePath], environment: [:]),
                                        store: store, logger: Logger(minimumLevel: .error))
        if try reader.account(named: readerName) == nil {
            try await addAccounts(store, service, databasePath: databasePath)
        }
        let account = try unwrap(try reader.account(named: readerName))
        let identity = AccountIdentity(id: account.id, name: account.name, isAdmin: false)
        let token = try await service.createToken(for: identity, label: "bench \(Int(Date().timeIntervalSince1970))").secret
        guard case .started(let session) = await service.startSession(name: readerName, password: readerPassword,
                                                                        from: "127.0.0.1", userAgent: "storebench") else {
            fatalError("the bench account could not log in")
        }
        let frontEnd = HTTPFrontEnd(service: service)
        let counts = try reader.accountCounts(account.id)
        print("\(try reader.accounts().count) accounts, \(try await store.feedCount()) feeds; \(readerName): "
              + "\(try reader.feeds(account: account.id).count) feeds, \(counts.entries) entries, \(counts.unread) unread\n")
        print("| request (\(readerName)) | median ms | min–max ms |")
        print("|---|---|---|")

        func request(_ target: String, method: String = "GET", headers: [String: String]) -> HTTPRequest {
            let parts = target.split(separator: "?", maxSplits: 1)
            let query: [(name: String, value: String)] = parts.count < 2 ? [] : parts[1].split(separator: "&").map { item in
                let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
                return (name: pair[0], value: pair.count > 1 ? pair[1] : "")
            }
            return HTTPRequest(method: method, path: String(parts[0]), query: query, headers: headers, clientAddress: "127.0.0.1")
        }
        let apiHeaders = ["x-auth-token": token]
        let timed: [(String, HTTPRequest)] = [
            ("Miniflux `GET /v1/entries?status=unread&limit=100`", request("/v1/entries?status=unread&limit=100", headers: apiHeaders)),
            ("Miniflux `GET /v1/feeds/counters`", request("/v1/feeds/counters", headers: apiHeaders)),
            ("Google Reader `unread-count`", request("/reader/api/0/unread-count?output=json",
                                                     headers: ["authorization": "GoogleLogin auth=\(token)"])),
            ("web `/unread`", request("/unread", headers: ["cookie": "aggregatord_session=\(session.secret)"])),
        ]
        for (label, request) in timed {
            var samples: [Double] = []
            for _ in 0..<21 {
                let start = DispatchTime.now().uptimeNanoseconds
                let response = await frontEnd.handle(request)
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                guard response.status == 200 else { fatalError("\(label): \(response.status)") }
            }
            samples = Array(samples.dropFirst()).sorted()  // the first warms the caches
            print("| \(label) | \(format(samples[10])) | \(format(samples[0]))–\(format(samples[19])) |")
        }

        // The store's part of the first: the listing alone, without the JSON.
        var unreadPage = EntryListing(account: account.id)
        (unreadPage.read, unreadPage.limit) = (false, 100)
        var storeSamples: [Double] = []
        for _ in 0..<21 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try reader.entries(unreadPage)
            storeSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        storeSamples = Array(storeSamples.dropFirst()).sorted()
        print("| (its store query alone: `StoreReader.entries`) | \(format(storeSamples[10])) | \(format(storeSamples[0]))–\(format(storeSamples[19])) |")

        // What the readers' page caches (16 MiB each at most) cost: this process's resident memory now.
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.map(String.init) ?? "VmRSS: ?"
        print("| (resident memory after the requests, \(rss.dropFirst(6).trimmingCharacters(in: .whitespaces))) | | |")

        // Marking every entry read: all made unread first (untimed), so each run changes all of them.
        let markAll = request("/v1/users/\(account.id)/mark-all-as-read", method: "PUT", headers: apiHeaders)
        var marks: [Double] = []
        for _ in 0..<5 {
            _ = try await store.mark(ArticleFilter(account: account.id), read: false)
            let unread = try reader.accountCounts(account.id).unread
            let start = DispatchTime.now().uptimeNanoseconds
            let response = await frontEnd.handle(markAll)
            marks.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            guard response.status == 204, try reader.accountCounts(account.id).unread == 0 else { fatalError("mark-all: \(response.status)") }
            if marks.count == 1 { print("| mark \(unread) entries read (`PUT /v1/users/{id}/mark-all-as-read`, 5 runs) | ", terminator: "") }
        }
        marks.sort()
        print("\(format(marks[2])) | \(format(marks[0]))–\(format(marks[4])) |")
        try await restoreMarks(store, reader, account: account.id)
        try await ingestCost(store, reader)
    }

    /// 999 accounts of 50 random feeds (and the shared one), reader500 of every 10th; reader500 reads
    /// every other entry and stars every 100th.
    private static func addAccounts(_ store: FeedStore, _ service: AggregatorService, databasePath: String) async throws {
        let url = { (n: Int) in "https://feeds\(n % 400).example/\(n).xml" }
        srand48(28)
        let started = Date()
        for index in 1...999 {
            let id = try unwrap(try await store.addAccount(name: String(format: "user%04d", index), passwordHash: "", isAdmin: false))
            var picked: Set<Int> = [0]
            while picked.count < 51 {
                let feed = 2 + Int(drand48() * 4998)
                picked.insert(feed)
            }
            try await store.addFeeds(picked.sorted().map { FeedStore.NewFeed(url: url($0)) }, account: id)
        }
        let reader500 = try await service.addAccount(name: readerName, password: readerPassword, isAdmin: false)
        try await store.addFeeds(stride(from: 0, to: 5000, by: 10).map { FeedStore.NewFeed(url: url($0), category: "Bench") },
                                 account: reader500.id)
        FileHandle.standardError.write(Data("added 1,000 accounts in \(Int(Date().timeIntervalSince(started))) s\n".utf8))
        try await restoreMarks(store, try StoreReader(path: databasePath), account: reader500.id)
    }

    /// Half read (every other entry), 1 % starred (every 100th), the rest unread and unstarred.
    private static func restoreMarks(_ store: FeedStore, _ reader: StoreReader, account: AccountID) async throws {
        var listing = EntryListing(account: account)
        (listing.order, listing.limit) = (.id, .max)
        let ids = try reader.entryIDs(listing)
        _ = try await store.mark(ArticleFilter(account: account), read: false, starred: false)
        _ = try await store.mark(ids: ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element), account: account, read: true)
        _ = try await store.mark(ids: ids.enumerated().filter { $0.offset % 100 == 0 }.map(\.element), account: account, starred: true)
    }

    /// Seconds of ingest per new entry, documents of 100 new entries, in the feed every account follows
    /// against the feed one follows, alternated; medians of 10.
    private static func ingestCost(_ store: FeedStore, _ reader: StoreReader) async throws {
        var feedIDs: [String: Int64] = [:]
        for feed in try reader.feeds(account: 1) where feed.url == everyonesFeed || feed.url == onesFeed {
            feedIDs[feed.url] = try await store.feedID(ofSubscription: feed.id, account: 1).rawValue
        }
        var followers = 0, alone = 0
        for account in try reader.accounts() {
            let urls = Set(try reader.feeds(account: account.id).map(\.url))
            if urls.contains(everyonesFeed) { followers += 1 }
            if urls.contains(onesFeed) { alone += 1 }
        }
        var perEntry: [String: [Double]] = [:]
        let stamp = Int(Date().timeIntervalSince1970)
        for round in 0..<20 {
            let url = round % 2 == 0 ? everyonesFeed : onesFeed
            let entries = (0..<100).map { index in
                IncomingEntry(url: "https://bench.example/\(stamp)/\(round)/\(index)", guid: nil, title: "New \(round) \(index)",
                              summary: "A new entry", published: Date(), searchText: "a new entry \(round) \(index)")
            }
            let start = DispatchTime.now().uptimeNanoseconds
            try await store.ingest([IncomingFeed(feedID: FeedID(feedIDs[url]!), entries: entries)])
            perEntry[url, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / 100)
        }
        let shared = perEntry[everyonesFeed]!.sorted()[5], single = perEntry[onesFeed]!.sorted()[5]
        print("| store a new entry, feed of \(followers) followers (per entry, documents of 100) | \(format(shared / 1000)) | µs: \(format(shared)) |")
        print("| store a new entry, feed of \(alone) follower | \(format(single / 1000)) | µs: \(format(single)); ratio \(String(format: "%.2f", shared / single)) |")
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

private func unwrap<T>(_ value: T?) throws -> T {
    guard let value else { throw CocoaError(.coderValueNotFound) }
    return value
}
