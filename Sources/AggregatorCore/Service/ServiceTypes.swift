import FeedParser
import FeedStore
import Foundation

/// A feed as a user names it: by id or by URL.
public enum FeedReference: Sendable, Equatable {
    case id(SubscriptionID)
    case url(String)
}

/// Which articles a listing, a mark or a watch is about, and how a listing is ordered and paged:
/// the one query type every front end fills in (the CLI, the web page, Miniflux, Google Reader and
/// Fever). The service turns it into the store's (`ArticleFilter`, `EntryListing`) for the account
/// it serves; no front end builds those.
public struct ArticleQuery: Sendable, Equatable {
    public var category: String?
    /// Only articles of feeds filed under no category (when `category` is nil).
    public var uncategorized = false
    public var feed: FeedReference?
    /// nil: read and unread; true: read only; false: unread only.
    public var read: Bool?
    /// nil: either; true: starred only; false: not starred only.
    public var starred: Bool?
    /// Published (or first seen) at or after this moment.
    public var since: Date?
    /// Published (or first seen) before this moment.
    public var before: Date?
    /// Full-text search words.
    public var search: String?
    /// Only articles first stored before this moment (what an app had seen when it marked a stream).
    public var storedBefore: Date?
    /// Leave out the articles of feeds and categories hidden from the global listings.
    public var globallyVisibleOnly = false
    /// Whose read or starred state last changed in this range (apps syncing by it).
    public var changedAfter: Date?
    public var changedBefore: Date?
    /// First stored in this range.
    public var createdAfter: Date?
    public var createdBefore: Date?
    /// Ids above `afterID`, below `beforeID`; only `ids` (at most 10,000).
    public var afterID: EntryID?
    public var beforeID: EntryID?
    public var ids: [EntryID]?

    public var unreadOnly: Bool {
        get { read == false }
        set { read = newValue ? false : nil }
    }

    public var starredOnly: Bool {
        get { starred == true }
        set { starred = newValue ? true : nil }
    }

    public init(category: String? = nil, uncategorized: Bool = false, feed: FeedReference? = nil, unreadOnly: Bool = false,
                starredOnly: Bool = false, since: Date? = nil, before: Date? = nil, search: String? = nil) {
        (self.category, self.uncategorized, self.feed) = (category, uncategorized, feed)
        (self.read, self.starred) = (unreadOnly ? false : nil, starredOnly ? true : nil)
        (self.since, self.before, self.search) = (since, before, search)
    }
}

/// How a listing paged by offset (the reader-app APIs) is ordered and cut. The CLI and the web page
/// page by cursor instead (`AggregatorService.articles`).
public struct EntryPaging: Sendable, Equatable {
    public typealias Order = EntryListing.Order
    public var order = Order.publishedAt
    public var ascending = true
    public var limit = 100
    public var offset = 0

    public init(order: Order = .publishedAt, ascending: Bool = true, limit: Int = 100, offset: Int = 0) {
        (self.order, self.ascending, self.limit, self.offset) = (order, ascending, limit, offset)
    }
}

/// What a mark applies to.
public enum MarkSelection: Sendable, Equatable {
    case ids([EntryID])
    case matching(ArticleQuery)
}

/// A feed just subscribed to, with what discovery found on the way.
public struct FeedAddition: Sendable, Equatable {
    public var feed: FeedSummary
    /// Subscribed, but something is off (the feed could not be checked now).
    public var warning: String?
    /// The feeds an HTML page linked to, when the URL given was a page.
    public var candidates: [DiscoveredFeed]
    /// The feed's document is stored: fetched before for another account, or discovery's own fetch
    /// kept as its first. Nothing need be fetched now.
    public var wasFetched = false
}

/// What an OPML import did.
public struct ImportSummary: Sendable, Equatable {
    public var added: Int
    /// Already subscribed.
    public var skipped: Int
    /// Outlines without an http(s) feed URL.
    public var invalid: Int
    /// Outlines the account may not follow (the address rule, the quota), each with why.
    public var refused: [RefusedFeed] = []
}

/// A feed URL an account was not subscribed to, and why (docs/SECURITY.md, "One gate for subscriptions").
public struct RefusedFeed: Sendable, Equatable {
    public var url: String
    public var reason: String
}

/// One feed of a refresh finished.
public struct RefreshProgress: Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var feedID: FeedID
    public var url: String?
    public var isSuccess: Bool
}

/// What a refresh asked for did: started in the background, or finished (when waited for).
public enum RefreshOutcome: Sendable, Equatable {
    case queued(feeds: Int)
    case finished(RefreshSummary)
}

/// The daemon's state at a glance.
public struct ServiceStatus: Sendable, Equatable {
    public var version: String
    public var uptime: TimeInterval
    public var databasePath: String
    public var databaseBytes: Int?
    public var totals: StoreTotals
    public var lastRound: FinishedRound?
    public var nextDue: Date?
    /// The daemons sharing the database seen in the last minute (PostgreSQL only; docs/ARCHITECTURE.md).
    public var nodes: [ClusterStore.Node]?

    public init(version: String, uptime: TimeInterval, databasePath: String, databaseBytes: Int?, totals: StoreTotals,
                lastRound: FinishedRound? = nil, nextDue: Date? = nil) {
        (self.version, self.uptime, self.databasePath, self.databaseBytes) = (version, uptime, databasePath, databaseBytes)
        (self.totals, self.lastRound, self.nextDue) = (totals, lastRound, nextDue)
    }
}

/// A refresh round that ended, and when.
public struct FinishedRound: Sendable, Equatable {
    public var finished: Date
    public var summary: RefreshSummary
}
