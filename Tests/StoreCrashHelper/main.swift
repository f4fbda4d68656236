import FeedStore
import Foundation

// Test helper: ingests batches into the store at argv[1] forever, printing "committed N" after each
// group commit of 5 feeds x 20 entries. The crash-safety test kills it with SIGKILL at random moments.
let path = CommandLine.arguments[1]
let store = try FeedStore(path: path)
var feedIDs: [Int64] = []
for index in 0..<5 {
    let url = "https://crash.example/feed\(index)"
    try await store.addFeeds([.init(url: url, category: "Crash")])
    feedIDs.append(try await store.feedID(url: url)!)
}
var batch = 0
var committed = try StoreReader(path: path).count()
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
    try await store.ingest(documents)
    committed += 100
    // One write(2) per line: nothing buffered in this process can be lost or torn by SIGKILL.
    FileHandle.standardOutput.write(Data("committed \(committed)\n".utf8))
}
