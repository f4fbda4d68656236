import Foundation

/// A read connection of its own (WAL lets it read while the writer writes): listings, search, counts.
/// Not thread-safe: one owner at a time.
public final class StoreReader {
    let database: Database

    /// Opens a reader on an existing store; with `standby`, on a PostgreSQL standby that replays it
    /// (`database-read`), where nothing is migrated or written.
    public init(path: String, standby: Bool = false) throws(StoreError) {
        database = try Database(path: path, create: false, readOnly: standby)
        if let setup = database.dialect.readerSetup { try database.execute(setup) }
    }

    // MARK: - Articles

    /// Search results by relevance rank the most recently stored this many matches (all of them when
    /// there are fewer): exact bm25 over every match of a common word costs ~1 µs a match (0.5 s for a
    /// word in half of a million entries), the window a few milliseconds.
    var relevanceWindow = 1000

    /// On PostgreSQL, whether searches in date order list their matches first (true) or walk the dates
    /// (false); nil: by the planner's estimate of their matches (`hasFewMatches`).
    var listsSearchMatches: Bool?

    /// Feeds of at most this many entries are listed from their sources (then sorted) rather than by
    /// walking the date index and checking each entry's sources.
    var smallFeedEntries: Int64 = 5000

    /// One page of articles matching `filter`, in `sort` order, after `cursor`.
    ///
    /// Without a search the entries' sort index is walked; a search sorted newest or oldest ranks its
    /// matches by the dates in `entry_state`; by relevance, the `relevanceWindow` matches stored last
    /// are ranked, and the cursor keeps that window and how far into its ranking the pages got (bm25
    /// scores move whenever an entry is stored: positions in the same window do not).
    /// - Throws: `StoreError.Kind.invalidQuery` for a bad search or cursor, never an SQL error.
    public func articles(_ filter: ArticleFilter, sort: ArticleSort = .newest, limit: Int = 50,
                         cursor: String? = nil) throws(StoreError) -> ArticlePage {
        let search = try filter.search.map { (text: String) throws(StoreError) in try SearchQuery(text) }
        // Relevance needs a search; new entries for `watch` come in the order they were stored.
        let sort = sort == .relevance && (search == nil || filter.storedAfterID != nil) ? .newest : sort
        let position = try cursor.map { (text: String) throws(StoreError) in try ArticleCursor(decoding: text, for: sort) }
        let pageSize = max(1, min(limit, 1000))
        var values: [SQLValue] = []
        let sql: String
        let skipped = position?.offset ?? 0
        if let search, filter.storedAfterID == nil, sort != .title {
            values.append(search.bound(for: database.dialect))
            var listsMatches = false
            if sort != .relevance {
                if let forced = listsSearchMatches { listsMatches = forced } else {
                    listsMatches = try hasFewMatches(values[0], limit: pageSize + 1)
                }
            }
            sql = sort == .relevance
                ? try relevanceQuery(filter, window: position?.window, skipping: skipped, limit: pageSize + 1, values: &values)
                : try searchIndexQuery(filter, sort: sort, after: position, limit: pageSize + 1,
                                       listingMatches: listsMatches, values: &values)
        } else {
            sql = try sortIndexQuery(filter, sort: sort, after: position, limit: pageSize + 1, values: &values)
        }
        var articles: [Article] = []
        var positions: [ArticleCursor] = []
        // A search's best plan depends on its words (`SearchSQL.searchSession`).
        let session = search == nil ? nil : database.dialect.search.searchSession
        if let session { try database.execute(session.set) }
        defer { if let session { try? database.execute(session.reset) } }
        do {
            try database.statement(sql).query(values) { row in
                var article = Self.article(from: row)
                article.snippet = search?.snippet(of: row.text(at: 14) ?? article.summary)
                articles.append(article)
                positions.append(sort == .relevance
                    ? ArticleCursor(sort: sort, number: nil, text: nil, id: article.id.rawValue,
                                    window: position?.window ?? row.optionalInt64(at: 15), offset: skipped + articles.count)
                    : ArticleCursor(sort: sort, number: sort == .title ? nil : row.optionalDouble(at: 13),
                                    text: sort == .title ? row.text(at: 13) : nil, id: article.id.rawValue))
            }
        } catch let error where error.kind == .failed && filter.search != nil {
            throw StoreError(.invalidQuery, code: error.code, message: "cannot run this search: \(filter.search ?? "")")
        }
        var nextCursor: String?
        if articles.count > pageSize {
            // One row more than asked says there is a next page; the cursor is the last shown row's key.
            articles.removeLast()
            nextCursor = positions[articles.count - 1].encoded
        }
        try readVersions(of: &articles, account: filter.account, subscription: filter.feedID, withContent: false, search: search)
        return ArticlePage(articles: articles, nextCursor: nextCursor)
    }

    /// The columns `article(from:)` reads, then the sort key (13) and the plain text for snippets (14).
    private static func columns(sortKey: String) -> String {
        "SELECT \(AccountScope.articleColumns), \(sortKey), e.search_text"
    }

    /// The account's marks, subscription and category for each row (`AccountScope.joins`).
    private static func accountJoins(_ filter: ArticleFilter, _ values: inout [SQLValue]) -> String {
        AccountScope.joins(account: bind(filter.account, &values))
    }

    /// Walks the entries' sort index (or, for `watch`, the few entries stored since).
    private func sortIndexQuery(_ filter: ArticleFilter, sort: ArticleSort, after position: ArticleCursor?, limit: Int,
                                values: inout [SQLValue]) throws(StoreError) -> String {
        var filter = filter
        var from = "entries e JOIN entry_state st ON st.entry_id = e.id"
        var conditions: [String] = []
        var membershipKnown = false
        if let feedID = filter.feedID, filter.storedAfterID == nil, try isSmallFeed(feedID, account: filter.account) {
            // A small feed: its entries from its sources, sorted (see `selection` in StoreReader+Listing).
            let subscription = Self.bind(feedID, &values), account = Self.bind(filter.account, &values)
            from = "entry_sources s CROSS JOIN entries e ON e.id = s.entry_id JOIN entry_state st ON st.entry_id = e.id"
            conditions.append("s.feed_id = \(AccountScope.feed(ofSubscription: subscription, account: account))")
            filter.feedID = nil
            filter.textSubscription = feedID
            membershipKnown = true
        }
        conditions += try filter.conditions(binding: &values, for: filter.storedAfterID == nil ? .listing : .newEntries, dialect: database.dialect,
                                            membershipKnown: membershipKnown)
        let (sortKey, order, direction) = Self.ordering(sort)
        // Expired entries sort below every date: a walk by date starts past them.
        if sort != .title { conditions.append("e.sort_at > \(FeedStore.expiredSortKey)") }
        if let position {
            values.append(sort == .title ? .text(position.text ?? "") : position.number.map(SQLValue.real) ?? .null)
            values.append(.integer(position.id))
            conditions.append("(\(sortKey), e.id) \(direction) (?\(values.count - 1), ?\(values.count))")
        }
        return """
            \(Self.columns(sortKey: sortKey))
            FROM \(from) \(Self.accountJoins(filter, &values))
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT \(Self.bind(limit, &values))
            """
    }

    /// A search newest or oldest first: every match is ranked by the date in its (narrow) state row,
    /// and only the page's entries are read. Its MATCH expression is `?1`. With `listingMatches`
    /// (PostgreSQL), the matches are found first, then sorted: ordered by an expression, as an index
    /// cannot give it, or the planner walks the dates anyway, expecting matches spread evenly.
    private func searchIndexQuery(_ filter: ArticleFilter, sort: ArticleSort, after position: ArticleCursor?, limit: Int,
                                  listingMatches: Bool, values: inout [SQLValue]) throws(StoreError) -> String {
        let dialect = database.dialect
        let listed = listingMatches ? dialect.search.listedMatches("?1") : nil
        let direction = sort == .newest ? "DESC" : "ASC"
        // The page's first matches of one index, in order: both indexes' are merged below.
        func firstMatches(_ name: String, from: String, where match: [String], sortKey: String) throws(StoreError) -> String {
            var conditions = match + (try filter.conditions(binding: &values, for: .searchIndex, dialect: dialect))
            if let position {
                values.append(position.number.map { .integer(Int64($0)) } ?? .null)
                values.append(.integer(position.id))
                conditions.append("(st.sort_at, st.entry_id) \(sort == .newest ? "<" : ">") (?\(values.count - 1), ?\(values.count))")
            }
            return """
                SELECT * FROM (
                    SELECT st.entry_id AS id, st.sort_at AS sort_at FROM \(from) WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY \(sortKey) \(direction), st.entry_id \(direction) LIMIT \(Self.bind(limit, &values))
                ) \(name)
                """
        }
        let texts = Self.readTexts(filter, values: &values)
        let rows = try firstMatches("row_matches",
            from: "\(listed ?? dialect.search.table()) JOIN entry_state st ON st.entry_id = \(dialect.search.entryID())",
            where: (listed != nil ? [] : [dialect.search.matches("?1")]) + [texts.row],
            sortKey: listed != nil ? "st.sort_at + 0" : "st.sort_at")
        let versions = try firstMatches("version_matches",
            from: "\(dialect.search.versionTable()) JOIN entry_state st ON st.entry_id = v.entry_id",
            where: [dialect.search.versionMatches("?1"), texts.version], sortKey: "st.sort_at")
        return """
            \(Self.columns(sortKey: "e.sort_at"))
            FROM (\(rows) UNION ALL \(versions)) p
            JOIN entry_state st ON st.entry_id = p.id JOIN entries e ON e.id = p.id \(Self.accountJoins(filter, &values))
            ORDER BY p.sort_at \(direction), p.id \(direction) LIMIT \(Self.bind(limit, &values))
            """
    }

    /// A search's matches come from two indexes (docs/SECURITY.md, "Text versions"): the rows' text,
    /// for the entries whose row the account reads (`row`, a condition on `st`), and the versions',
    /// for the versions it reads (`version`, on `v`).
    private static func readTexts(_ filter: ArticleFilter, values: inout [SQLValue]) -> (row: String, version: String) {
        let account = bind(filter.account, &values)
        let subscription = (filter.feedID ?? filter.textSubscription).map { bind($0, &values) }
        return ("NOT " + AccountScope.readsAVersion(account: account, subscription: subscription),
                AccountScope.readsVersion("v", account: account, subscription: subscription))
    }

    /// Ranks the `relevanceWindow` matches stored last by bm25 (on later pages, those at or below the
    /// first page's last-stored match: the same window) and reads the entries of the page only. The
    /// index gives its matches in id order, so the window costs the same for a rare or a common word.
    private func relevanceQuery(_ filter: ArticleFilter, window: Int64?, skipping offset: Int, limit: Int,
                                values: inout [SQLValue]) throws(StoreError) -> String {
        let dialect = database.dialect
        // One index's latest matches in the window, with their scores: both indexes' are merged below.
        func latestMatches(_ name: String, from: String, id: String, where match: [String], score: String) throws(StoreError) -> String {
            var conditions = match + (try filter.conditions(binding: &values, for: .searchIndex, dialect: dialect))
            if let window { conditions.append("\(id) <= \(Self.bind(window, &values))") }
            return """
                SELECT * FROM (
                    SELECT \(id) AS id, \(score) AS score FROM \(from) WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY \(id) DESC LIMIT \(Self.bind(relevanceWindow, &values))
                ) \(name)
                """
        }
        let texts = Self.readTexts(filter, values: &values)
        let id = dialect.search.entryID()
        let rows = try latestMatches("row_matches", from: "\(dialect.search.table()) JOIN entry_state st ON st.entry_id = \(id)", id: id,
                                     where: [dialect.search.matches("?1"), texts.row], score: dialect.search.score("?1"))
        let versions = try latestMatches("version_matches",
                                         from: "\(dialect.search.versionTable()) JOIN entry_state st ON st.entry_id = v.entry_id",
                                         id: "v.entry_id", where: [dialect.search.versionMatches("?1"), texts.version],
                                         score: dialect.search.versionScore("?1"))
        return """
            \(Self.columns(sortKey: "w.score")), w.top
            FROM (
                SELECT id, score, max(id) OVER () AS top FROM (
                    SELECT * FROM (\(rows) UNION ALL \(versions)) matches ORDER BY id DESC LIMIT \(Self.bind(relevanceWindow, &values))
                ) AS latest ORDER BY score, id LIMIT \(Self.bind(limit, &values)) OFFSET \(Self.bind(offset, &values))
            ) w
            JOIN entry_state st ON st.entry_id = w.id JOIN entries e ON e.id = w.id \(Self.accountJoins(filter, &values))
            ORDER BY w.score, e.id
            """
    }

    /// Whether the search bound as `query` matches so few entries that listing them all and sorting
    /// them costs less than walking the dates until `limit` of them are found (`SearchSQL.hasFewMatches`).
    private func hasFewMatches(_ query: SQLValue, limit: Int) throws(StoreError) -> Bool {
        try database.dialect.search.hasFewMatches(query, limit: limit, in: database)
    }

    /// Appends `number` to the statement's values and returns its placeholder.
    private static func bind<Number: BinaryInteger>(_ number: Number, _ values: inout [SQLValue]) -> String {
        values.append(.integer(Int64(number)))
        return "?\(values.count)"
    }

    private static func bind(_ account: AccountID, _ values: inout [SQLValue]) -> String {
        values.append(.account(account))
        return "?\(values.count)"
    }

    private static func bind(_ subscription: SubscriptionID, _ values: inout [SQLValue]) -> String {
        values.append(.subscription(subscription))
        return "?\(values.count)"
    }

    /// One of the account's articles with its content and attachments, or nil (another account's too).
    public func article(id: EntryID, account: AccountID) throws(StoreError) -> Article? {
        var found: Article?
        try database.statement("""
            SELECT \(AccountScope.articleColumns), e.content, e.enclosures
            FROM entries e JOIN entry_state st ON st.entry_id = e.id \(AccountScope.joins(account: "?2"))
            WHERE e.id = ?1 AND st.removed = 0 AND \(AccountScope.visible(account: "?2"))
            """).query([.entry(id), .account(account)]) { row in
            var article = Self.article(from: row)
            article.content = row.text(at: 13)
            article.enclosures = ArticleEnclosure.decoding(columnText: row.text(at: 14))
            found = article
        }
        guard let found else { return nil }
        var read = [found]
        try readVersions(of: &read, account: account, subscription: nil, withContent: true)
        return read[0]
    }

    /// The id of the newest stored entry (0 when there is none): where `watch` starts.
    public func newestEntryID() throws(StoreError) -> Int64 {
        try database.integer("SELECT coalesce(max(id), 0) FROM entries") ?? 0
    }

    /// How many articles match `filter`.
    public func count(_ filter: ArticleFilter) throws(StoreError) -> Int {
        var values: [SQLValue] = []
        let conditions = try filter.conditions(binding: &values, dialect: database.dialect)
        var total = 0
        try database.statement("""
            SELECT count(*) FROM entries e JOIN entry_state st ON st.entry_id = e.id
            WHERE \(conditions.joined(separator: " AND "))
            """)
            .query(values) { row in total = Int(row.int64(at: 0)) }
        return total
    }

    // MARK: - Helpers

    /// The SQL sort key, ORDER BY clause and keyset comparison of a sort over the entries' sort index
    /// (relevance only applies to searches, which rank in `relevanceQuery`).
    private static func ordering(_ sort: ArticleSort) -> (key: String, order: String, direction: String) {
        switch sort {
        case .newest, .relevance: ("e.sort_at", "e.sort_at DESC, e.id DESC", "<")
        case .oldest: ("e.sort_at", "e.sort_at ASC, e.id ASC", ">")
        case .title: ("coalesce(e.title, '') COLLATE NOCASE", "coalesce(e.title, '') COLLATE NOCASE ASC, e.id ASC", ">")
        }
    }

    static func article(from row: Statement) -> Article {
        Article(
            id: row.entryID(at: 0), feedID: row.optionalSubscriptionID(at: 1), feedTitle: row.text(at: 2), category: row.text(at: 3),
            title: row.text(at: 4), url: row.text(at: 5), author: row.text(at: 6),
            published: row.optionalInt64(at: 7).map { Date(timeIntervalSince1970: TimeInterval($0)) },
            updated: row.optionalInt64(at: 8).map { Date(timeIntervalSince1970: TimeInterval($0)) },
            summary: row.text(at: 9), imageURL: row.text(at: 10), isRead: row.int64(at: 11) != 0,
            isStarred: row.int64(at: 12) != 0)
    }
}

@available(*, unavailable)
extension StoreReader: Sendable {}
