import FoundationEssentials

/// A feed document turned into values: what the store ingests and `aggregatorctl parse` prints.
public struct ParsedFeed: Sendable, Equatable {
    public var format: FeedFormat = .unknown
    public var title: String?
    public var link: String?
    /// HTML or text as the feed gave it.
    public var subtitle: String?
    public var language: String?
    public var updated: Date?
    public var author: String?
    public var image: String?
    public var entries: [ParsedEntry] = []

    /// RSS `<ttl>`, in minutes: how long the publisher says the feed may be cached.
    public var timeToLiveMinutes: Int?
    /// `sy:updatePeriod` (hourly, daily, weekly, monthly, yearly) and `sy:updateFrequency`.
    public var updatePeriod: String?
    public var updateFrequency: Int?

    /// The character encoding the document was read in.
    public var encoding: String = "utf-8"
    /// What was wrong with the document, if anything (not well-formed, wrong encoding, …).
    public var problems: [String] = []

    public init() {}
}

/// One item or entry of a feed.
public struct ParsedEntry: Sendable, Equatable {
    public var id: String?
    public var link: String?
    public var title: String?
    /// HTML or text as the feed gave it.
    public var summary: String?
    public var content: String?
    public var author: String?
    public var published: Date?
    public var updated: Date?
    public var categories: [String] = []
    public var enclosures: [Enclosure] = []
    public var image: String?

    public init() {}
}

/// A file attached to an entry (podcast audio, an image).
public struct Enclosure: Sendable, Equatable {
    public var url: String
    public var type: String?
    /// Size in bytes when the feed said so with digits only.
    public var length: Int?

    public init(url: String, type: String? = nil, length: Int? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}

/// The syndication format a document was recognised as.
public enum FeedFormat: String, Sendable, Equatable {
    case rss090, rss091, rss092, rss20, rss10, atom03, atom10, jsonfeed, unknown
}
