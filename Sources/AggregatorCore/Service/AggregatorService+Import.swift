import FeedParser
import FeedStore
import Foundation

/// An entry an app hands over for one of its account's feeds (Miniflux's
/// `POST /v1/feeds/{id}/entries/import`).
public struct EntryImport: Sendable {
    public var url: String
    public var title: String?
    public var content: String?
    public var author: String?
    /// The app's own id for it, kept as the entry's guid in that feed.
    public var externalID: String?
    /// Nil: now.
    public var published: Date?
    public var isRead: Bool
    public var isStarred: Bool

    public init(url: String, title: String? = nil, content: String? = nil, author: String? = nil,
                externalID: String? = nil, published: Date? = nil, isRead: Bool, isStarred: Bool) {
        self.url = url
        self.title = title
        self.content = content
        self.author = author
        self.externalID = externalID
        self.published = published
        self.isRead = isRead
        self.isStarred = isStarred
    }
}

extension AggregatorService {
    /// Adds `entry` to the account's feed `feedID`, for that account only (docs/ARCHITECTURE.md): the feed's
    /// other followers do not see it. An entry the feed carries already keeps its text; the account's
    /// read and starred marks are set either way. The content is sanitized whenever it is shown.
    public func importEntry(_ entry: EntryImport, feedID: SubscriptionID, for account: AccountIdentity)
        async throws(AggregatorError) -> ImportedEntry {
        let url = entry.url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !url.isEmpty else { throw .invalidArgument("url is required") }
        guard url.utf8.count <= 8192 else { throw .invalidArgument("the url can be at most 8192 bytes") }
        let title = entry.title.flatMap { $0.isEmpty ? nil : $0 } ?? url  // Miniflux: no title, the URL
        guard title.utf8.count <= Self.maximumEditedTitle else {
            throw .invalidArgument("the entry title can be at most \(Self.maximumEditedTitle) bytes")
        }
        for (name, text) in [("content", entry.content), ("author", entry.author), ("external_id", entry.externalID)] {
            guard (text?.utf8.count ?? 0) <= Self.maximumEditedContent else {
                throw .invalidArgument("the entry \(name) can be at most \(Self.maximumEditedContent >> 20) MiB")
            }
        }
        let content = entry.content.flatMap { $0.isEmpty ? nil : $0 }
        let plainText = content.map(HTMLText.plainText(fromHTML:)).flatMap { $0.isEmpty ? nil : $0 }
        let incoming = IncomingEntry(url: url, guid: entry.externalID.flatMap { $0.isEmpty ? nil : $0 }, title: title,
                                     content: content, author: entry.author.flatMap { $0.isEmpty ? nil : $0 },
                                     published: entry.published, searchText: plainText)
        let imported = try await write(for: account.id) { store in
            try await store.importEntry(incoming, subscription: feedID, account: account.id, read: entry.isRead,
                                        starred: entry.isStarred)
        }
        if imported.isNew { events.publish(.entriesStored(count: 1)) }
        return imported
    }
}
