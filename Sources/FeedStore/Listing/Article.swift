import Foundation

/// Which articles a query or a bulk mark applies to. Every filter combines with every other.
public struct ArticleFilter: Sendable, Equatable {
    /// The account whose articles these are (its subscriptions, marks and categories): required, so
    /// that no query forgets whose it is.
    public var account: AccountID
    /// Articles carried by a feed of this category (cross-posts included), case-insensitive.
    public var category: String?
    /// Only articles carried by feeds filed under no category (with `category` nil).
    public var uncategorized = false
    /// Articles carried by the feed of this subscription (the account's id for it; cross-posts included).
    public var feedID: SubscriptionID?
    public var unreadOnly = false
    public var starredOnly = false
    /// Published (or first seen) at or after this moment.
    public var since: Date?
    /// Published (or first seen) before this moment.
    public var before: Date?
    /// Words, "phrases", prefix*, -excluded words and OR, matched against title, text and author.
    public var search: String?
    /// Only entries stored after the entry with this id (ids grow as entries are stored): for `watch`.
    public var storedAfterID: Int64?
    /// Only entries first stored before this moment (Google Reader's mark-all-as-read `ts`: what the
    /// app had seen when it asked).
    public var storedBefore: Date?
    /// Leave out the entries whose feed is filed under a category hidden from the global listings.
    public var globallyVisibleOnly = false
    /// The subscription whose feed's text a search matches (docs/SECURITY.md, "Text versions"): `feedID`,
    /// kept here when a query has turned `feedID` into its FROM clause.
    var textSubscription: SubscriptionID?

    public init(account: AccountID, category: String? = nil, feedID: SubscriptionID? = nil, unreadOnly: Bool = false,
                starredOnly: Bool = false, since: Date? = nil, before: Date? = nil, search: String? = nil) {
        self.account = account
        self.category = category
        self.feedID = feedID
        self.unreadOnly = unreadOnly
        self.starredOnly = starredOnly
        self.since = since
        self.before = before
        self.search = search
    }
}

/// The order of a listing. `relevance` applies to searches (best bm25 first, title weighted highest).
public enum ArticleSort: String, Sendable, CaseIterable {
    case newest, oldest, title, relevance
}

/// A stored article as listings show it.
public struct Article: Sendable, Equatable {
    public var id: EntryID
    public var feedID: SubscriptionID?
    public var feedTitle: String?
    public var category: String?
    public var title: String?
    public var url: String?
    public var author: String?
    public var published: Date?
    public var updated: Date?
    public var summary: String?
    public var imageURL: String?
    public var isRead: Bool
    public var isStarred: Bool
    /// When searching: a short excerpt with each match between `Snippet.matchStart` and `Snippet.matchEnd`.
    public var snippet: String?
    /// Only from `article(id:)`: the full content and the attachments.
    public var content: String?
    public var enclosures: [ArticleEnclosure] = []
}

/// One page of a listing and the opaque cursor of the next, nil on the last page.
public struct ArticlePage: Sendable, Equatable {
    public var articles: [Article]
    public var nextCursor: String?
}

/// Markers around matched words in search snippets; the CLI turns them into bold or [brackets].
public enum Snippet {
    public static let matchStart = "\u{2}"
    public static let matchEnd = "\u{3}"
}
