import Foundation

/// A listing paged by offset, in any of the orders reader-app APIs ask for (Miniflux's entry
/// listings), with its total: the CLI's listings page by cursor instead (`articles`).
public struct EntryListing: Sendable, Equatable {
    /// Whose entries: `filter.account`.

    /// What to sort by; ties are broken by id in the same direction.
    public enum Order: String, Sendable, CaseIterable {
        case id
        case publishedAt = "published_at"
        case createdAt = "created_at"
        case changedAt = "changed_at"
        case title
        case status
        case categoryTitle = "category_title"
        case categoryID = "category_id"
        case author
    }

    public var filter: ArticleFilter
    /// nil: read and unread; true: read only; false: unread only.
    public var read: Bool?
    /// nil: either; else only starred (true) or only not starred (false).
    public var starred: Bool?
    public var changedAfter: Date?
    public var changedBefore: Date?
    /// Entries first seen in this range.
    public var createdAfter: Date?
    public var createdBefore: Date?
    public var afterID: Int64?
    public var beforeID: Int64?
    /// Only these entries (at most 10,000).
    public var ids: [Int64]?
    public var order = Order.publishedAt
    public var ascending = true
    public var limit = 100
    public var offset = 0

    public init(account: AccountID) {
        filter = ArticleFilter(account: account)
    }
}

/// An entry of a listing: the article with its content and attachments, and the dates apps sync by.
public struct ListedEntry: Sendable, Equatable {
    public var article: Article
    /// When it was first stored.
    public var createdAt: Date
    /// When its read or starred state last changed (its first storing before any change).
    public var changedAt: Date
}

extension StoreReader {
    /// One page of `listing`, and how many entries match it in all.
    /// - Throws: `StoreError.Kind.invalidQuery` for a bad search, never an SQL error.
    public func entries(_ listing: EntryListing) throws(StoreError) -> (entries: [ListedEntry], total: Int) {
        var share = AccountShare(account: listing.filter.account)
        // The kept total first: the account's totals give its share of the store in the same scan.
        let keptTotal = try keptTotal(listing, share: &share)
        let walked = try pageByDateWalk(listing, share: &share)
        var (from, values) = try selection(listing, pageKnown: walked != nil, share: &share)
        return try translatingSearchErrors(listing) { () throws(StoreError) in
            var total = 0
            if let keptTotal {
                total = keptTotal
            } else if let kept = try keptTotalPastAnID(listing) {
                total = kept
            } else {
                try database.statement("SELECT count(*) \(from)").query(values) { row in total = Int(row.int64(at: 0)) }
            }
            var page = "ORDER BY \(Self.ordering(listing)) LIMIT ?\(values.count + 1) OFFSET ?\(values.count + 2)"
            values.append(.integer(Int64(max(0, listing.limit))))
            values.append(.integer(Int64(max(0, listing.offset))))
            if let walked {
                // The page's ids are known: only their rows are read (and put back in the walk's order).
                values.removeLast(2)
                page = walked.isEmpty ? "AND FALSE" : "AND e.id IN (\(SQLValue.placeholders(for: walked, appendingTo: &values)))"
            }
            var entries: [ListedEntry] = []
            try database.statement("""
                SELECT \(AccountScope.articleColumns), e.content, e.enclosures, e.first_seen_at, \(AccountScope.changedAt)
                \(from) \(page)
                """).query(values) { row in
                var article = Self.article(from: row)
                article.content = row.text(at: 13)
                article.enclosures = ArticleEnclosure.decoding(columnText: row.text(at: 14))
                entries.append(ListedEntry(article: article, createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 15))),
                                           changedAt: Date(timeIntervalSince1970: Double(row.int64(at: 16)))))
            }
            if let walked {
                let position = Dictionary(uniqueKeysWithValues: walked.enumerated().map { ($1, $0) })
                entries.sort { position[$0.article.id.rawValue, default: 0] < position[$1.article.id.rawValue, default: 0] }
            }
            var articles = entries.map(\.article)
            try readVersions(of: &articles, account: listing.filter.account, subscription: listing.filter.feedID,
                             withContent: true)
            for index in entries.indices { entries[index].article = articles[index] }
            return (entries, total)
        }
    }

    /// The ids of the entries `listing` matches, in its order, within its limit and offset.
    public func entryIDs(_ listing: EntryListing) throws(StoreError) -> [EntryID] {
        var plain = EntryListing(account: listing.filter.account)
        (plain.read, plain.starred, plain.order, plain.ascending) = (listing.read, listing.starred, .id, listing.ascending)
        (plain.limit, plain.offset) = (listing.limit, listing.offset)
        if listing == plain {
            // Only read and starred: the narrow state rows alone (Fever's unread and saved id lists,
            // every unread id at once: joining each to its entry tripled the time, measured). Starred
            // ones come from the account's starred marks; an account following a small part of the
            // store lists its feeds' sources rather than stepping over everyone else's entries.
            let from: String
            var conditions = ["st.removed = 0"] + Self.stateConditions(listing)
            if listing.starred == true {
                // The partial index of starred marks: SQLite otherwise reads all the account's marks.
                from = "entry_marks sm INDEXED BY entry_marks_starred CROSS JOIN entry_state st ON st.entry_id = sm.entry_id"
                conditions += ["sm.account_id = ?3", "sm.starred = 1"]
            } else if try followsASmallPart(listing.filter.account) {
                from = """
                    (SELECT DISTINCT s.entry_id FROM subscriptions u CROSS JOIN entry_sources s ON s.feed_id = u.feed_id
                     WHERE u.account_id = ?3
                     UNION SELECT entry_id FROM entry_marks WHERE account_id = ?3 AND starred = 1) own
                    CROSS JOIN entry_state st ON st.entry_id = own.entry_id
                    """
                conditions.append(AccountScope.notHidden(account: "?3"))
            } else {
                from = "entry_state st"
                conditions.append(AccountScope.visible(account: "?3"))
            }
            var ids: [EntryID] = []
            try database.statement("""
                SELECT st.entry_id FROM \(from) WHERE \(conditions.joined(separator: " AND "))
                ORDER BY st.entry_id \(listing.ascending ? "ASC" : "DESC") LIMIT ?1 OFFSET ?2
                """).query([.integer(Int64(max(0, listing.limit))), .integer(Int64(max(0, listing.offset))),
                            .account(listing.filter.account)]) { row in
                ids.append(row.entryID(at: 0))
            }
            return ids
        }
        var share = AccountShare(account: listing.filter.account)
        var (from, values) = try selection(listing, share: &share)
        values += [.integer(Int64(max(0, listing.limit))), .integer(Int64(max(0, listing.offset)))]
        return try translatingSearchErrors(listing) { () throws(StoreError) in
            var ids: [EntryID] = []
            try database.statement("""
                SELECT e.id \(from) ORDER BY \(Self.ordering(listing)) LIMIT ?\(values.count - 1) OFFSET ?\(values.count)
                """).query(values) { row in ids.append(row.entryID(at: 0)) }
            return ids
        }
    }

    /// The total of a listing that only selects all, or unread, entries of everything, a feed or a
    /// category: the counters the store keeps (counting a million unread rows takes ~100 ms).
    private func keptTotal(_ listing: EntryListing, share: inout AccountShare) throws(StoreError) -> Int? {
        let account = listing.filter.account
        var plain = EntryListing(account: account)
        (plain.filter.feedID, plain.filter.category) = (listing.filter.feedID, listing.filter.category)
        (plain.read, plain.order, plain.ascending) = (listing.read, listing.order, listing.ascending)
        (plain.limit, plain.offset) = (listing.limit, listing.offset)
        guard listing == plain, listing.read != true else { return nil }
        let counts: EntryCounts?
        if let feedID = listing.filter.feedID {
            guard listing.filter.category == nil else { return nil }
            counts = try subscriptionCounts(feedID, account: account)
        } else if let category = listing.filter.category {
            counts = try categories(account: account).first { $0.name.caseInsensitiveCompare(category) == .orderedSame }
                .map { EntryCounts(entries: $0.total, unread: $0.unread) } ?? EntryCounts(entries: 0, unread: 0)
        } else {
            counts = try accountCounts(account, share: &share)
        }
        return counts.map { listing.read == false ? $0.unread : $0.entries }
    }

    /// A page of a listing in date order that selects only by read and starred state: its ids, from a
    /// walk of the state rows' date index (`entry_state_by_sort`), which skips the offset without a
    /// lookup per row. For deep pages (offset 1,000 or more), and for every page of an account whose
    /// feeds carry 2 to 20 % of the store: its own entries are then too many to collect and sort
    /// (Miniflux's unread page for 500 feeds of 5,000: 226 ms so) and dense enough for a walk to fill a
    /// page soon. Nil for any other listing.
    private func pageByDateWalk(_ listing: EntryListing, share: inout AccountShare) throws(StoreError) -> [Int64]? {
        var plain = EntryListing(account: listing.filter.account)
        (plain.read, plain.starred, plain.order, plain.ascending) = (listing.read, listing.starred, .publishedAt, listing.ascending)
        (plain.limit, plain.offset) = (listing.limit, listing.offset)
        guard listing == plain else { return nil }
        if listing.offset < 1000 {
            let share = try share.value(in: database)
            guard share >= 0.02, share < Self.smallPart else { return nil }
        }
        let conditions = ["st.removed = 0", "st.sort_at > \(FeedStore.expiredSortKey)", AccountScope.visible(account: "?3")]
            + Self.stateConditions(listing)
        let direction = listing.ascending ? "ASC" : "DESC"
        var ids: [Int64] = []
        try database.statement("""
            SELECT st.entry_id FROM entry_state st WHERE \(conditions.joined(separator: " AND "))
            ORDER BY st.sort_at \(direction), st.entry_id \(direction) LIMIT ?1 OFFSET ?2
            """).query([.integer(Int64(max(0, listing.limit))), .integer(Int64(listing.offset)),
                        .account(listing.filter.account)]) { row in
            ids.append(row.int64(at: 0))
        }
        return ids
    }

    /// A listing's read and starred state as conditions on `entry_state st`, the account bound to `?3`.
    private static func stateConditions(_ listing: EntryListing) -> [String] {
        [listing.read.map { ($0 ? "" : "NOT ") + AccountScope.marked(.read, account: "?3") },
         listing.starred.map { ($0 ? "" : "NOT ") + AccountScope.marked(.starred, account: "?3") }].compactMap { $0 }
    }

    /// The total of a kept-total listing (`keptTotal`) paged by `afterID` or `beforeID` (apps syncing by
    /// id): the entries on the far side of the id are counted, whichever side is smaller by the id range,
    /// and the rest is the kept total minus them. Counting every entry past an early id cost ~90 ms at
    /// 1,000,000 entries, against ~4 ms for the first page (issue 29).
    private func keptTotalPastAnID(_ listing: EntryListing) throws(StoreError) -> Int? {
        guard (listing.afterID == nil) != (listing.beforeID == nil), listing.ids == nil else { return nil }
        var whole = listing
        (whole.afterID, whole.beforeID) = (nil, nil)
        var share = AccountShare(account: listing.filter.account)
        guard let kept = try keptTotal(whole, share: &share) else { return nil }
        var range: (low: Int64, high: Int64)?
        // Two subqueries: SQLite reads min() or max() from the index only when each stands alone.
        try database.statement("SELECT (SELECT min(id) FROM entries), (SELECT max(id) FROM entries)").query { row in
            if let low = row.optionalInt64(at: 0), let high = row.optionalInt64(at: 1) { range = (low, high) }
        }
        guard let range else { return kept }
        // The id splits the entries into those below it and those from it on (`afterID`: above it).
        let split = listing.afterID.map { $0 == .max ? $0 : $0 + 1 } ?? listing.beforeID!
        // In Double: ids from a request may be anywhere in Int64's range.
        let belowIsSmaller = Double(split) - Double(range.low) < Double(range.high) - Double(split)
        // Counted on the narrow state rows (what a kept total selects needs no more): through the wide
        // entries rows, 20,000 of them cost 3 times the first page.
        var filter = listing.filter
        filter.unreadOnly = listing.read == false
        var values: [SQLValue] = [.integer(split)]
        let selection = try filter.bulkSelection(binding: &values, dialect: database.dialect)
        let bound = "st.entry_id \(belowIsSmaller ? "<" : ">=") ?1"
        var count = 0
        // A category's entry carried by two of its feeds comes twice: counted once, as its counter does.
        try database.statement("""
            SELECT count(\(listing.filter.category == nil ? "*" : "DISTINCT st.entry_id")) FROM \(selection.from)
            WHERE \((selection.conditions + [bound]).joined(separator: " AND "))
            """).query(values) { row in count = Int(row.int64(at: 0)) }
        // The listing wants the side above the split (afterID) or below it (beforeID).
        let wantsBelow = listing.beforeID != nil
        return wantsBelow == belowIsSmaller ? count : kept - count
    }

    /// The FROM and WHERE clauses of a listing, with their bound values.
    /// - Parameter pageKnown: the page's ids are known already (`pageByDateWalk`): the rows are read
    ///   by id, and the account's own entries need not be collected.
    private func selection(_ listing: EntryListing, pageKnown: Bool = false,
                           share: inout AccountShare) throws(StoreError) -> (from: String, values: [SQLValue]) {
        var filter = listing.filter
        var values: [SQLValue] = []
        var conditions: [String] = []
        var from = "entries e JOIN entry_state st ON st.entry_id = e.id"
        values.append(.account(filter.account))
        let account = "?\(values.count)"
        var membershipKnown = false
        if let feedID = filter.feedID, try isSmallFeed(feedID, account: filter.account) {
            // A small feed's entries are found from its sources and sorted; walking the index of every
            // entry for them cost 23 ms a request at 27,000 entries (a feed whose entries are old
            // walks nearly all of it). A large feed's entries come soon in any walk.
            values.append(.subscription(feedID))
            from = "entry_sources s CROSS JOIN entries e ON e.id = s.entry_id JOIN entry_state st ON st.entry_id = e.id"
            conditions.append("s.feed_id = \(AccountScope.feed(ofSubscription: "?\(values.count)", account: account))")
            filter.feedID = nil
            membershipKnown = true
        } else if !pageKnown, filter.feedID == nil, filter.category == nil, !filter.uncategorized,
                  try share.value(in: database) < Self.smallPart {
            // An account following a small part of the store: its own entries, sorted (AccountScope):
            // Miniflux's unread listing for 50 feeds of 5,000 took 25-29 ms so, 48-56 ms by the walk. (For
            // the cursor-paged `articles`, sorting its 10,000 wide rows was no faster than the walk: 33 ms.)
            from = AccountScope.ownEntries(account: account)
            membershipKnown = true
        }
        if listing.read == false { filter.unreadOnly = true }
        if listing.starred == true { filter.starredOnly = true }
        conditions += try filter.conditions(binding: &values, dialect: database.dialect, membershipKnown: membershipKnown)
        func compare(_ column: String, _ comparison: String, _ value: Int64?) {
            guard let value else { return }
            values.append(.integer(value))
            conditions.append("\(column) \(comparison) ?\(values.count)")
        }
        func seconds(_ date: Date?) -> Int64? { date.map { Int64($0.timeIntervalSince1970) } }
        if listing.read == true { conditions.append(AccountScope.marked(.read, account: account)) }
        if listing.starred == false { conditions.append("NOT " + AccountScope.marked(.starred, account: account)) }
        compare(AccountScope.changedAt, ">", seconds(listing.changedAfter))
        compare(AccountScope.changedAt, "<", seconds(listing.changedBefore))
        compare("e.first_seen_at", ">", seconds(listing.createdAfter))
        compare("e.first_seen_at", "<", seconds(listing.createdBefore))
        if let ids = listing.ids {
            let placeholders = SQLValue.placeholders(for: ids.prefix(10_000), appendingTo: &values)
            conditions.append(placeholders.isEmpty ? "FALSE" : "e.id IN (\(placeholders))")
        }
        compare("e.id", ">", listing.afterID)
        compare("e.id", "<", listing.beforeID)
        // Expired entries sort below every date: a walk by date starts past them. (Only then: on other
        // orders the condition would lead SQLite to walk the date index instead of the one it needs.)
        if listing.order == .publishedAt { conditions.append("e.sort_at > \(FeedStore.expiredSortKey)") }
        return ("""
            FROM \(from) \(AccountScope.joins(account: account))
            WHERE \(conditions.joined(separator: " AND "))
            """, values)
    }

    /// Whether the account's feeds carry under a fifth of the stored entries: its own are then found
    /// from its feeds' sources, not by stepping over the others' (an account of 50 feeds at 1,000,000
    /// entries: Fever's unread ids in 525 ms by the walk).
    func followsASmallPart(_ account: AccountID) throws(StoreError) -> Bool {
        try Self.share(of: account, in: database) < Self.smallPart
    }

    /// Below this share of the store, an account's own entries are collected and sorted rather than
    /// found by a walk of everyone's.
    static let smallPart = 0.2

    /// The account's share of the store (`share(of:in:)`), read once a request when first needed: two
    /// of a listing's choices ask for it, and on PostgreSQL it sums the counters of all the account's
    /// feeds (~2 ms for 5,000).
    struct AccountShare {
        let account: AccountID
        private var known: Double?

        init(account: AccountID) {
            self.account = account
        }

        mutating func value(in database: Database) throws(StoreError) -> Double {
            if let known { return known }
            let share = try StoreReader.share(of: account, in: database)
            known = share
            return share
        }

        /// Learns the share from the entries the account's feeds carry, summed by another query.
        mutating func learn(carried: Int64, in database: Database) throws(StoreError) {
            known = try StoreReader.share(carried: carried, in: database)
        }
    }

    /// The share of the stored entries the account's feeds carry, from the counters (0 to 1; a
    /// cross-post counts in each of its feeds).
    static func share(of account: AccountID, in database: Database) throws(StoreError) -> Double {
        let mine = try database.integer("""
            SELECT coalesce(sum(f.entry_count), 0) FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.account_id = ?1
            """, [.account(account)]) ?? 0
        return try share(carried: mine, in: database)
    }

    /// The share of the stored entries that `carried` entries of an account's feeds are.
    static func share(carried: Int64, in database: Database) throws(StoreError) -> Double {
        let all = try database.integer("SELECT entries FROM store_totals WHERE id = 1", []) ?? 0
        return all == 0 ? 1 : Double(carried) / Double(all)
    }

    /// Whether the feed of the account's subscription `id` carries few enough entries to be listed
    /// from its sources.
    func isSmallFeed(_ id: SubscriptionID, account: AccountID) throws(StoreError) -> Bool {
        (try subscriptionCounts(id, account: account)?.entries ?? 0) <= Int(smallFeedEntries)
    }

    private func translatingSearchErrors<T>(_ listing: EntryListing, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error where error.kind == .failed && listing.filter.search != nil {
            throw StoreError(.invalidQuery, code: error.code, message: "cannot run this search: \(listing.filter.search ?? "")")
        }
    }

    private static func ordering(_ listing: EntryListing) -> String {
        let direction = listing.ascending ? "ASC" : "DESC"
        return "\(sortKey(listing.order)) \(direction), e.id \(direction)"
    }

    /// Fixed SQL per order: never text from a request.
    private static func sortKey(_ order: EntryListing.Order) -> String {
        switch order {
        case .id: "e.id"
        case .publishedAt: "e.sort_at"
        case .createdAt: "e.first_seen_at"
        case .changedAt: AccountScope.changedAt
        case .title: "coalesce(e.title, '') COLLATE NOCASE"
        case .status: "coalesce(m.read, 0)"
        case .categoryTitle: "coalesce(c.name, '') COLLATE NOCASE"
        case .categoryID: "coalesce(u.category_id, 0)"
        case .author: "coalesce(e.author, '') COLLATE NOCASE"
        }
    }
}
