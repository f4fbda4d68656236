import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - Listings paged by offset (the reader-app APIs)

    /// A page of the entries `query` selects, ordered and cut by `paging` (its limit capped at
    /// `maximumPageSize`), and the number of matches. As `account` sees them: its own edits, and
    /// where it stopped in their enclosures.
    public func entries(_ query: ArticleQuery, _ paging: EntryPaging = EntryPaging(),
                        for account: AccountIdentity) async throws(AggregatorError) -> (entries: [ListedEntry], total: Int) {
        var paging = paging
        paging.limit = min(paging.limit, Self.maximumPageSize)
        let listing = try await listing(query, paging, for: account)
        let (entries, total) = try await listRead(for: account) { [listing] in try $0.entries(listing) }
        return (try await seen(by: account, entries), total)
    }

    /// The ids of the entries `query` selects, in `paging`'s order, within its limit and offset
    /// (unlike `entries`, not capped: ids are small).
    public func entryIDs(_ query: ArticleQuery, _ paging: EntryPaging = EntryPaging(),
                         for account: AccountIdentity) async throws(AggregatorError) -> [EntryID] {
        let listing = try await listing(query, paging, for: account)
        return try await listRead(for: account) { try $0.entryIDs(listing) }
    }

    /// One entry with the dates apps sync by.
    public func entry(id: EntryID, for account: AccountIdentity) async throws(AggregatorError) -> ListedEntry {
        var query = ArticleQuery()
        query.ids = [id]  // not a range around it: id + 1 overflowed at Int64.max
        guard let entry = try await entries(query, EntryPaging(limit: 1), for: account).entries.first else {
            throw .notFound("no entry with id \(id)")
        }
        return entry
    }

    /// The store's listing for `query` and `paging`, for `account`. Read and starred state are the
    /// listing's own selectors (a plain unread listing is then answered from the kept counters).
    private func listing(_ query: ArticleQuery, _ paging: EntryPaging,
                         for account: AccountIdentity) async throws(AggregatorError) -> EntryListing {
        guard paging.limit >= 0, paging.offset >= 0 else { throw .invalidArgument("limit and offset cannot be negative") }
        var selection = query
        (selection.read, selection.starred) = (nil, nil)
        var listing = EntryListing(account: account.id)
        listing.filter = try await filter(selection, for: account)
        (listing.read, listing.starred) = (query.read, query.starred)
        (listing.changedAfter, listing.changedBefore) = (query.changedAfter, query.changedBefore)
        (listing.createdAfter, listing.createdBefore) = (query.createdAfter, query.createdBefore)
        (listing.afterID, listing.beforeID) = (query.afterID?.rawValue, query.beforeID?.rawValue)
        listing.ids = query.ids?.map(\.rawValue)
        (listing.order, listing.ascending) = (paging.order, paging.ascending)
        (listing.limit, listing.offset) = (paging.limit, paging.offset)
        return listing
    }

    // MARK: - Counts for a reading page

    /// Everything a reading page's frame shows, in one read of the kept counters: the unread
    /// total, each category with its counts, and the feeds filed under none.
    public func readingCounts(for account: AccountIdentity) async throws(AggregatorError) -> ReadingCounts {
        try await read { reader in
            let uncategorized = try reader.uncategorizedCounts(account: account.id)
            return ReadingCounts(unread: try reader.accountCounts(account.id).unread, categories: try reader.categories(account: account.id),
                                 uncategorizedFeeds: uncategorized.feeds, uncategorizedUnread: uncategorized.unread)
        }
    }

    // MARK: - Categories by id

    /// The category with this id.
    public func category(id: Int64, for account: AccountIdentity) async throws(AggregatorError) -> CategorySummary {
        guard let category = try await categories(for: account).first(where: { $0.id == id }) else {
            throw .notFound("no category with id \(id)")
        }
        return category
    }

    /// Creates an empty category named `name`.
    public func createCategory(_ name: String, for account: AccountIdentity) async throws(AggregatorError) -> CategorySummary {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else { throw .invalidArgument("a category name must be 1 to 200 characters") }
        guard let id = try await write(for: account.id, { try await $0.createCategory(name, account: account.id) }) else {
            throw .alreadySubscribed("a category named \(name) exists already")
        }
        return try await category(id: id, for: account)
    }

    /// Renames the category with this id (into another's name: the two are merged).
    public func renameCategory(id: Int64, to newName: String, for account: AccountIdentity) async throws(AggregatorError)
        -> CategorySummary {
        let newName = newName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !newName.isEmpty, newName.count <= 200 else { throw .invalidArgument("a category name must be 1 to 200 characters") }
        let current = try await category(id: id, for: account)
        guard let renamed = try await renameCategory(current.name, to: newName, for: account) else {
            throw .unavailable("the category was renamed but cannot be read back")
        }
        return renamed
    }

    /// Hides the category with this id from the global listings (Miniflux's `hide_globally`), or shows it.
    public func setCategoryHidden(id: Int64, _ hidden: Bool, for account: AccountIdentity) async throws(AggregatorError)
        -> CategorySummary {
        try await write(for: account.id) { try await $0.setCategoryHidden(id: id, account: account.id, hidden) }
        return try await category(id: id, for: account)
    }

    /// Deletes the category with this id; its feeds stay, filed under no category.
    public func removeCategory(id: Int64, for account: AccountIdentity) async throws(AggregatorError) {
        try await write(for: account.id) { try await $0.removeCategory(id: id, account: account.id) }
    }
}

/// The counts a reading page's navigation and sidebar show.
public struct ReadingCounts: Sendable, Equatable {
    public var unread: Int
    public var categories: [CategorySummary]
    public var uncategorizedFeeds: Int
    public var uncategorizedUnread: Int
}
