import FeedParser
import Foundation
import FuzzSupport

// Feed dates on any text: a date it finds, written as RFC 3339, reads back as the same second.
runFuzzer { data, size in
    guard let seconds = FeedDateParser.secondsSinceEpoch(from: text(data, size)) else { return 0 }
    let written = rfc3339(secondsSinceEpoch: seconds)
    let again = FeedDateParser.secondsSinceEpoch(from: written)
    require(again == seconds, "\(seconds) written as \(written) reads back as \(again.map(String.init) ?? "nil")")
    return 0
}
