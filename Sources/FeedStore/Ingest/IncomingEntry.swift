import Foundation

/// A fetched feed document as the store ingests it: what the parser read, in document order.
public struct IncomingFeed: Sendable {
    /// The subscribed feed the document came from.
    public let feedID: FeedID
    public let entries: [IncomingEntry]
    /// Each entry's dedupe key and fingerprint, worked out where the document is made (a fetch task)
    /// rather than by the store's single writer, which every feed waits for.
    let keys: [String]
    let fingerprints: [Int64]
    /// Each entry's PostgreSQL index document (`SearchText.document`), made there too when asked for:
    /// on the writer's connection it was a serial eighth of a cold round. SQLite's FTS5 needs none.
    let searchDocuments: [String]?
    /// The document came from a non-public address that only admins may reach (an admin follows the
    /// feed, `private-networks = admins`): its new entries are hidden from the regular followers, and
    /// regular accounts may not follow the feed from now on (docs/SECURITY.md).
    public var onlyForAdmins = false
    /// Which entries each follower's filter rules hide, by index, when the document was judged before
    /// it reached the writer (the refresh pipeline does, docs/SECURITY.md); nil: the ingest judges them.
    public var ruleVerdicts: [(account: AccountID, hidden: Set<Int>)]?

    /// - Parameter isPrivate: the feed is an account's private copy (docs/ARCHITECTURE.md): its entries are keyed
    ///   apart, never merged with an entry another feed carries at the same URL.
    /// - Parameter makingSearchDocuments: the store is on PostgreSQL (`FeedStore.wantsSearchDocuments`).
    public init(feedID: FeedID, entries: [IncomingEntry], isPrivate: Bool = false, makingSearchDocuments: Bool = false) {
        self.feedID = feedID
        self.entries = entries
        let keys = FeedStore.keys(feedID: feedID.rawValue, entries: entries)
        self.keys = isPrivate ? keys.map { "private:\(feedID):\($0)" } : keys
        fingerprints = entries.map(FeedStore.fingerprint(of:))
        searchDocuments = makingSearchDocuments ? entries.map(SearchText.document(of:)) : nil
    }
}

/// One entry of a fetched document. `searchText` is the plain text of its summary and content,
/// made by the caller (the store knows no HTML).
public struct IncomingEntry: Sendable, Equatable {
    public var url: String?
    public var guid: String?
    public var title: String?
    public var summary: String?
    public var content: String?
    public var author: String?
    public var published: Date?
    public var updated: Date?
    public var imageURL: String?
    /// Attachments (audio, video, files).
    public var enclosures: [ArticleEnclosure]
    public var searchText: String?

    public init(url: String? = nil, guid: String? = nil, title: String? = nil, summary: String? = nil,
                content: String? = nil, author: String? = nil, published: Date? = nil, updated: Date? = nil,
                imageURL: String? = nil, enclosures: [ArticleEnclosure] = [], searchText: String? = nil) {
        self.url = url
        self.guid = guid
        self.title = title
        self.summary = summary
        self.content = content
        self.author = author
        self.published = published
        self.updated = updated
        self.imageURL = imageURL
        self.enclosures = enclosures
        self.searchText = searchText
    }
}

/// What one ingest did to a feed's entries.
public struct IngestCounts: Sendable, Equatable {
    /// Stored for the first time.
    public var new = 0
    /// Already stored; title, content or `updated` changed and was updated in place.
    public var updated = 0
    /// Already stored and unchanged (or expired by retention, which never resurrects).
    public var unchanged = 0
    /// Already stored because another feed carried it first; this feed is now a source too.
    public var seenInAnotherFeed = 0

    public init(new: Int = 0, updated: Int = 0, unchanged: Int = 0, seenInAnotherFeed: Int = 0) {
        self.new = new
        self.updated = updated
        self.unchanged = unchanged
        self.seenInAnotherFeed = seenInAnotherFeed
    }
}
