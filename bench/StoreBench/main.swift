import AggregatorCore
import FeedParser
import FeedStore
import Foundation

// storebench FARM DB: every feed of a generated farm parsed (on another thread) and ingested into a
// fresh store in groups of 50 feeds, the commit held open across groups as the daemon does. Prints
// one RESULT line of JSON: entries stored, seconds spent inside ingest, and wall seconds from the
// first parse to the last commit.
let arguments = CommandLine.arguments
if arguments.count >= 5, arguments[1] == "front-end" {
    try await FrontEndBench.run(databasePath: arguments[2], token: arguments[3], path: arguments[4],
                                seconds: arguments.count > 5 ? Double(arguments[5]) ?? 10 : 10,
                                tasks: arguments.count > 6 ? Int(arguments[6]) ?? 32 : 32)
    exit(0)
}
if arguments.count == 3, arguments[1] == "sanitize" {
    try SanitizeBench.run(farm: arguments[2])
    exit(0)
}
if arguments.count == 3, arguments[1] == "extract" {
    try ExtractBench.run(directory: arguments[2])
    exit(0)
}
if arguments.count == 6, arguments[1] == "subscribe" {
    try await SubscribeBench.run(databasePath: arguments[2], urlsPath: arguments[3], accounts: Int(arguments[4]) ?? 1,
                                 perAccount: Int(arguments[5]) ?? 0)
    exit(0)
}
if arguments.count == 3, arguments[1] == "rules" {
    try await RulesBench.run(databasePath: arguments[2])
    exit(0)
}
if arguments.count == 3, arguments[1] == "accounts" {
    try await AccountsBench.run(databasePath: arguments[2])
    exit(0)
}
if arguments.count == 5, arguments[1] == "claims" {
    try await ClaimsBench.run(uri: arguments[2], nodes: Int(arguments[3]) ?? 1, seconds: Double(arguments[4]) ?? 10)
    exit(0)
}
if arguments.count == 4, arguments[1] == "claim-cost" {
    try await ClaimsBench.cost(uri: arguments[2], repeats: Int(arguments[3]) ?? 200)
    exit(0)
}
if arguments.count == 4, arguments[1] == "queries" {
    try await QueryBench.run(databasePath: arguments[2], entries: Int(arguments[3]) ?? 1_000_000)
    exit(0)
}
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data(("usage: storebench FARM DB | storebench queries DB ENTRIES | storebench accounts DB | storebench rules DB | storebench sanitize FARM\n"
        + "       storebench extract DIR (article pages)\n"
        + "       storebench subscribe DB URLS ACCOUNTS PER_ACCOUNT\n"
        + "       storebench claims POSTGRES_URI NODES SECONDS | storebench claim-cost POSTGRES_URI REPEATS\n"
        + "       storebench front-end DB TOKEN PATH [SECONDS] [TASKS]\n").utf8))
    exit(2)
}
let feedsDirectory = URL(fileURLWithPath: arguments[1]).appendingPathComponent("feeds")
let databasePath = arguments[2]
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }

let names = try FileManager.default.contentsOfDirectory(atPath: feedsDirectory.path).sorted()
let store = try FeedStore(path: databasePath)
try await store.addFeeds(names.map { FeedStore.NewFeed(url: "http://127.0.0.1/feeds/" + $0) }, account: 1)
var feedIDs: [String: Int64] = [:]
for feed in try StoreReader(path: databasePath).feeds(account: 1) { feedIDs[feed.url] = feed.id.rawValue }
let ids = names.map { feedIDs["http://127.0.0.1/feeds/" + $0]! }

let (batches, continuation) = AsyncStream<[IncomingFeed]>.makeStream()
let start = Date()
Thread {
    var batch: [IncomingFeed] = []
    for (name, id) in zip(names, ids) {
        guard let data = FileManager.default.contents(atPath: feedsDirectory.appendingPathComponent(name).path),
              let parsed = try? ParsedFeed(parsing: data, source: .init(documentURL: "http://127.0.0.1/feeds/" + name))
        else { continue }
        batch.append(EntryMapper.incoming(parsed, feedID: FeedID(id)))
        if batch.count == 50 {
            continuation.yield(batch)
            batch = []
        }
    }
    if !batch.isEmpty { continuation.yield(batch) }
    continuation.finish()
}.start()

var ingestSeconds = 0.0
for await batch in batches {
    let began = Date()
    try await store.ingest(batch, holdingOpen: true)
    ingestSeconds += Date().timeIntervalSince(began)
}
let finishing = Date()
try await store.finishHeldCommit()
ingestSeconds += Date().timeIntervalSince(finishing)
let wall = Date().timeIntervalSince(start)
let stored = try StoreReader(path: databasePath).count(ArticleFilter(account: 1))
print(#"RESULT {"entries": \#(stored), "ingest_s": \#(String(format: "%.3f", ingestSeconds)), "wall_s": \#(String(format: "%.3f", wall))}"#)
