import FeedParser
import Foundation
import FuzzSupport

// The feed parser on any bytes, with or without a declared type and URL (the first byte chooses):
// it returns a feed or throws FeedParserError, never crashes, and what it returns can be written as
// JSON (valid UTF-8) that reads back the same, as the daemon and `aggregatorctl parse` write it.
let sources = [
    ParsedFeed.Source(),
    ParsedFeed.Source(documentURL: "https://example.org/feed/", contentType: "application/rss+xml"),
    ParsedFeed.Source(documentURL: "https://example.org/atom", contentType: "application/atom+xml; charset=iso-8859-1"),
    ParsedFeed.Source(documentURL: "https://example.org/feed.json", contentType: "application/feed+json"),
    ParsedFeed.Source(contentType: "text/html; charset=windows-1252", contentLanguage: "fr"),
    ParsedFeed.Source(documentURL: "http://[::1]:8080/x?y=z#f", contentType: "text/xml; charset=utf-16"),
]

func strings(of feed: ParsedFeed) -> [String?] {
    var all: [String?] = [feed.title, feed.link, feed.subtitle, feed.language, feed.author, feed.image, feed.updatePeriod]
    for entry in feed.entries {
        all += [entry.id, entry.link, entry.title, entry.summary, entry.content, entry.author, entry.image]
        all += entry.categories.map(Optional.some) + entry.enclosures.flatMap { [$0.url, $0.type] }
    }
    return all + feed.problems.map(Optional.some)
}

runFuzzer { data, size in
    guard size > 0, let data else { return 0 }
    let source = sources[Int(data[0]) % sources.count]
    guard let feed = try? ParsedFeed(parsing: bytes(data + 1, size - 1), source: source) else { return 0 }
    let texts = strings(of: feed).map { $0 ?? "" }
    guard let json = try? JSONSerialization.data(withJSONObject: texts) else {
        require(false, "a parsed feed's text cannot be written as JSON")
        return 0
    }
    require(String(data: json, encoding: .utf8) != nil, "a parsed feed's JSON is not UTF-8")
    // Foundation's JSON reader drops some U+FEFF inside strings (a quirk of the checker, not ours):
    // compared without them.
    func withoutBOM(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }
    let expected = texts.map(withoutBOM)
    let back = ((try? JSONSerialization.jsonObject(with: json)) as? [String])?.map(withoutBOM)
    let differing = zip(expected, back ?? []).first { $0.0 != $0.1 }
    require(back == expected, "a parsed feed's JSON does not read back the same: "
        + "\(differing.map { "\($0.0.unicodeScalars.map { String($0.value, radix: 16) }) → \($0.1.unicodeScalars.map { String($0.value, radix: 16) })" } ?? "count")")
    return 0
}
