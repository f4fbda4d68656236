/// One subscription in an OPML file: an `<outline>` with an `xmlUrl`.
public struct OPMLFeed: Sendable, Equatable {
    /// The feed's URL (`xmlUrl`).
    public var url: String
    /// `title`, else `text`.
    public var title: String?
    /// The site's home page (`htmlUrl`).
    public var siteURL: String?
    /// The `text` (else `title`) of the nearest enclosing outline that is not itself a feed.
    public var category: String?

    public init(url: String, title: String? = nil, siteURL: String? = nil, category: String? = nil) {
        self.url = url
        self.title = title
        self.siteURL = siteURL
        self.category = category
    }
}
