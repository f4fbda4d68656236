import FeedParser
import Foundation
import FuzzSupport

// OPML import on any bytes: the feeds it reads, written back as OPML by our writer and read again,
// are the same feeds (what `export` writes, `import` takes), in any order.
runFuzzer { data, size in
    guard let feeds = try? OPMLReader.feeds(in: bytes(data, size)) else { return 0 }
    let document = OPMLWriter.document(title: "fuzz", feeds: feeds, created: Date(timeIntervalSince1970: 0))
    let again = try? OPMLReader.feeds(in: Data(document.utf8))
    // The writer groups feeds by category: the same feeds, perhaps in another order.
    let urls = feeds.map(\.url).sorted()
    let back = (again?.map(\.url) ?? []).sorted()
    require(back == urls, "OPML written from \(urls.debugDescription) reads back as \(back.debugDescription)")
    return 0
}
