import FeedFetcher
import FeedParser
import FeedStore
import Foundation

extension FeedFetchSettings {
    /// What the fetcher sends for these settings.
    var credentials: FetchCredentials {
        FetchCredentials(userAgent: userAgent, cookie: cookie, username: username, password: password,
                         allowsSelfSignedCertificates: allowsSelfSignedCertificates)
    }
}

/// Turns what the parser read into what the store ingests (the one place the two meet), and a feed's
/// stored fetch settings into what the fetcher sends.
public enum EntryMapper {
    /// The document's entries for the store, with their plain text for the full-text index.
    /// - Parameter makingSearchDocuments: the store is on PostgreSQL (see `IncomingFeed`).
    public static func incoming(_ feed: ParsedFeed, feedID: FeedID, isPrivate: Bool = false,
                                makingSearchDocuments: Bool = false) -> IncomingFeed {
        IncomingFeed(feedID: feedID, entries: feed.entries.map(incoming), isPrivate: isPrivate,
                     makingSearchDocuments: makingSearchDocuments)
    }

    static func incoming(_ entry: ParsedEntry) -> IncomingEntry {
        IncomingEntry(
            url: entry.link, guid: entry.id, title: entry.title, summary: entry.summary, content: entry.content,
            author: entry.author, published: entry.published, updated: entry.updated, imageURL: entry.image,
            enclosures: entry.enclosures.map { ArticleEnclosure(url: $0.url, type: $0.type, length: $0.length) },
            searchText: searchText(of: entry))
    }

    /// The plain text of summary and content, once each (the parser copies content into an empty summary).
    static func searchText(of entry: ParsedEntry) -> String? {
        let parts = [entry.summary, entry.summary == entry.content ? nil : entry.content].compactMap { $0 }
        guard !parts.isEmpty else { return nil }
        let text = parts.map(HTMLText.plainText(fromHTML:)).joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}
