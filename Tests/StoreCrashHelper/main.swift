import FeedStore
import Foundation

// Test helper: ingests groups of 5 feeds x 20 entries into the store at argv[1] forever, three groups
// to a commit (two held open), printing "committed N" after each commit. The crash-safety test kills
// it with SIGKILL at random moments.
let path = CommandLine.arguments[1]
let store = try FeedStore(path: path)
var feedIDs: [FeedID] = []
for index in 0..<5 {
    let url = "https://crash.example/feed\(index)"
    try await store.addFeeds([.init(url: url, category: "Crash")], account: 1)
    feedIDs.append(try await store.feedID(ofSubscription: try await store.feedID(url: url, account: 1)!, account: 1))
}
var batch = 0
var committed = try StoreReader(path: path).count(ArticleFilter(account: 1))
var held = 0
while true {
    batch += 1
    let documents = feedIDs.map { feedID in
        IncomingFeed(feedID: feedID, entries: (0..<20).map { item in
            let url = "https://crash.example/\(feedID)/\(UUID().uuidString)/\(item)"
            let text = String(repeating: "lorem ipsum dolor sit amet \(item) ", count: 40)
            return IncomingEntry(url: url, guid: url, title: "Batch \(batch) item \(item)", summary: text,
                                 content: text + text, published: Date(), searchText: text)
        })
    }
    // Like a refresh round: two groups held open, the third commits all three.
    let holding = batch % 3 != 0
    try await store.ingest(documents, holdingOpen: holding)
    held += 100
    guard !holding else { continue }
    committed += held
    held = 0
    // One write(2) per line: nothing buffered in this process can be lost or torn by SIGKILL.
    FileHandle.standardOutput.write(Data("committed \(committed)\n".utf8))
}
