import FeedParser
import Foundation

/// Parses an inline document the way the fetcher hands bytes over.
func parse(_ text: String, url: String? = nil, contentType: String? = nil) throws -> ParsedFeed {
    try ParsedFeed(parsing: Data(text.utf8), source: .init(documentURL: url, contentType: contentType))
}

func parse(bytes: [UInt8], contentType: String? = nil) throws -> ParsedFeed {
    try ParsedFeed(parsing: Data(bytes), source: .init(contentType: contentType))
}

func iso(_ date: Date?) -> String? {
    date.map { rfc3339(secondsSinceEpoch: Int64($0.timeIntervalSince1970)) }
}
