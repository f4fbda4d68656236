extension ArticleFilter {
    /// Which query the conditions go into. Every form has `entry_state st`; the entry is `st.entry_id`.
    /// Every form is limited to the filter's account (`AccountScope`).
    enum Use {
        /// `entries e JOIN entry_state st`, walking the sort index: a search is the set of its matches.
        case listing
        /// As `listing`, over the few entries stored after `storedAfterID` (`watch`): a search is
        /// checked entry by entry rather than collecting every match first.
        case newEntries
        /// `dialect.search.table() JOIN entry_state st`, over a search's matches (whose MATCH the caller adds):
        /// dates are read from `st`, never from the wide `entries` rows.
        case searchIndex
        /// `entry_state st` alone, for bulk updates: members are collected first (`bulkSelection`
        /// walks a feed's or category's sources instead).
        case bulkUpdate
    }

    /// SQL conditions, with their parameters appended to `values`. Values are always bound; only fixed
    /// SQL text is assembled here.
    /// - Parameter membershipKnown: the caller's FROM already limits the rows to the account's feeds.
    func conditions(binding values: inout [SQLValue], for use: Use = .listing, dialect: SQLDialect,
                    membershipKnown: Bool = false) throws(StoreError) -> [String] {
        var conditions = ["st.removed = 0"]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        // Bound on first use: a statement must use every value it is given.
        var boundAccount: String?
        func account() -> String {
            if let boundAccount { return boundAccount }
            boundAccount = parameter(.account(self.account))
            return boundAccount!
        }
        // While walking an index, membership is checked row by row (a page needs only the first
        // matches); a bulk update touches every member, so it collects them first.
        let walksAnIndex = use != .bulkUpdate
        if let feedID {
            let feed = AccountScope.feed(ofSubscription: parameter(.subscription(feedID)), account: account())
            conditions.append(walksAnIndex
                ? "EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = st.entry_id AND s.feed_id = \(feed))"
                : "st.entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = \(feed))")
        }
        // Row by row, an entry's sources lead to the account's subscriptions; collecting members, the
        // category's subscriptions lead to their sources (CROSS JOIN keeps the order: AccountScope).
        let sourcesAndSubscriptions = walksAnIndex
            ? "entry_sources s CROSS JOIN subscriptions u ON u.feed_id = s.feed_id"
            : "subscriptions u CROSS JOIN entry_sources s ON s.feed_id = u.feed_id"
        // Walking a search's matches, a category's members are known by their first feed
        // (`carried(byFeedsOf:members:)`); walking other indexes, as the dialect finds them faster.
        let byFirstFeed = use == .searchIndex || dialect.findsCategoriesByFirstFeed
        if let category {
            let categoryID = """
                (SELECT id FROM categories WHERE account_id = \(account()) AND name = \(parameter(.text(category))) COLLATE NOCASE)
                """
            let members = """
                \(sourcesAndSubscriptions)
                WHERE u.account_id = \(account()) AND u.category_id = \(categoryID)
                """
            conditions.append(!walksAnIndex ? "st.entry_id IN (SELECT s.entry_id FROM \(members))"
                : byFirstFeed ? Self.carried(byFeedsOf: "u.account_id = \(account()) AND u.category_id = \(categoryID)",
                                             members: members)
                : "EXISTS (SELECT 1 FROM \(members) AND s.entry_id = st.entry_id)")
        }
        if uncategorized, category == nil {
            let members = """
                \(sourcesAndSubscriptions)
                WHERE u.account_id = \(account()) AND u.category_id IS NULL
                """
            conditions.append(!walksAnIndex ? "st.entry_id IN (SELECT s.entry_id FROM \(members))"
                : byFirstFeed ? Self.carried(byFeedsOf: "u.account_id = \(account()) AND u.category_id IS NULL",
                                             members: members)
                : "EXISTS (SELECT 1 FROM \(members) AND s.entry_id = st.entry_id)")
        }
        // A feed or a category of the account's already says the entry is its own.
        if feedID == nil, category == nil, !uncategorized, !membershipKnown {
            conditions.append(AccountScope.visible(account: account()))
        } else {
            conditions.append(AccountScope.notHidden(account: account()))
        }
        if let storedAfterID { conditions.append("st.entry_id > \(parameter(.integer(storedAfterID)))") }
        if let storedBefore {
            let moment = parameter(.integer(Int64(storedBefore.timeIntervalSince1970.rounded(.down))))
            conditions.append("(SELECT first_seen_at FROM entries WHERE id = st.entry_id) < \(moment)")
        }
        if unreadOnly { conditions.append("NOT " + AccountScope.marked(.read, account: account())) }
        if starredOnly { conditions.append(AccountScope.marked(.starred, account: account())) }
        if globallyVisibleOnly { conditions.append(Self.globallyVisible(account: account())) }
        conditions += dateConditions(for: use, parameter: parameter)
        if let search, use != .searchIndex {
            let match = parameter(try SearchQuery(search).bound(for: dialect))
            let subscription = (feedID ?? textSubscription).map { parameter(.subscription($0)) }
            conditions.append(Self.matches(match, account: account(), subscription: subscription, for: use, dialect: dialect))
        }
        return conditions
    }

    /// Entry `st` is visible in the account's global listings: some feed carrying it is not hidden,
    /// itself or by its category (Miniflux keeps a copy per feed, and the copy of a visible feed
    /// shows). The first feed decides most entries, against the few hidden feeds collected once;
    /// only a cross-post looks further.
    private static func globallyVisible(account: String) -> String {
        let hiddenFeeds = """
            SELECT u.feed_id FROM subscriptions u LEFT JOIN categories c ON c.id = u.category_id
            WHERE u.account_id = \(account) AND (u.hide_globally = 1 OR coalesce(c.hide_globally, 0) = 1)
            """
        return """
            (coalesce(st.feed_id NOT IN (\(hiddenFeeds)), TRUE)
             OR (st.sources > 1 AND EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = st.entry_id
                                            AND s.feed_id NOT IN (\(hiddenFeeds)))))
            """
    }

    /// Entry `st` matches the search bound as `match`, in the text the account reads. Collecting
    /// every match, the rows' and the versions' matches are the candidates; only an entry that may
    /// have versions is asked which text the account reads.
    private static func matches(_ match: String, account: String, subscription: String?, for use: Use,
                                dialect: SQLDialect) -> String {
        let readText = matchesReadText(match, account: account, subscription: subscription, dialect: dialect)
        return use == .newEntries ? readText : """
            st.entry_id IN (\(dialect.search.matchingIDs(match))
                            UNION ALL SELECT v.entry_id FROM \(dialect.search.versionTable())
                            WHERE \(dialect.search.versionMatches(match)))
            AND (st.versioned = 0 OR \(readText))
            """
    }

    /// Entry `st` matches the search bound as `match` in the text the account reads: a version's
    /// (`AccountScope.readsAVersion`) or its row's.
    static func matchesReadText(_ match: String, account: String, subscription: String?, dialect: SQLDialect) -> String {
        """
        CASE WHEN \(AccountScope.readsAVersion(account: account, subscription: subscription))
        THEN EXISTS (SELECT 1 FROM \(dialect.search.versionTable())
                     WHERE \(dialect.search.versionMatches(match)) AND v.entry_id = st.entry_id
                       AND \(AccountScope.readsVersion("v", account: account, subscription: subscription)))
        ELSE \(dialect.search.entryMatches(match, entry: "st.entry_id")) END
        """
    }

    /// Row by row, whether the entry `st` is carried by one of the subscriptions `subscriptions` selects
    /// (of `u`): its first feed decides, checked against those subscriptions' feeds collected once,
    /// and only an entry several feeds carry looks at its sources (`members`, joined as `s`). A
    /// common word's matches in a category, newest first, walked 11,669 entries' sources for a page of
    /// 50 (PostgreSQL: 71 ms on 1,000,000 entries; by the first feed, 9 ms; SQLite: 68 against 26 ms).
    private static func carried(byFeedsOf subscriptions: String, members: String) -> String {
        """
        (st.feed_id IN (SELECT u.feed_id FROM subscriptions u WHERE \(subscriptions))
         OR (st.sources > 1 AND EXISTS (SELECT 1 FROM \(members) AND s.entry_id = st.entry_id)))
        """
    }

    /// The rows a bulk update changes, as a FROM clause giving `entry_state st` and conditions on it.
    /// A feed's or a category's entries are reached from its sources, which lists them in order, rather
    /// than collecting them into a temporary list first. An entry may come twice (two of the category's
    /// feeds carry it): the caller keeps one.
    /// - Parameter ownEntriesFirst: an account-wide selection starts from the account's own entries
    ///   (its feeds' sources and its starred marks) rather than stepping over every stored entry: for
    ///   an account following a small part of the store (marking 100,000 entries of 1,000,000 read
    ///   took 7 s by the walk).
    func bulkSelection(binding values: inout [SQLValue], dialect: SQLDialect, ownEntriesFirst: Bool = false) throws(StoreError) -> (from: String, conditions: [String]) {
        var rest = self
        let from: String
        var conditions: [String] = []
        if let feedID {
            values.append(.account(account))
            values.append(.subscription(feedID))
            from = "entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id"
            conditions.append("s.feed_id = \(AccountScope.feed(ofSubscription: "?\(values.count)", account: "?\(values.count - 1)"))")
            rest.feedID = nil
            rest.textSubscription = feedID
        } else if let category {
            values.append(.account(account))
            values.append(.text(category))
            from = "subscriptions u JOIN entry_sources s ON s.feed_id = u.feed_id JOIN entry_state st ON st.entry_id = s.entry_id"
            conditions.append("u.account_id = ?\(values.count - 1)")
            conditions.append("u.category_id = (SELECT id FROM categories WHERE account_id = ?\(values.count - 1) AND name = ?\(values.count) COLLATE NOCASE)")
            rest.category = nil
        } else if ownEntriesFirst, !uncategorized {
            values.append(.account(account))
            from = """
                (SELECT s.entry_id AS id FROM subscriptions u CROSS JOIN entry_sources s ON s.feed_id = u.feed_id
                 WHERE u.account_id = ?\(values.count)
                 UNION SELECT entry_id FROM entry_marks INDEXED BY entry_marks_starred WHERE account_id = ?\(values.count) AND starred = 1) own
                CROSS JOIN entry_state st ON st.entry_id = own.id
                """
        } else {
            from = "entry_state st"
        }
        // A feed or category of the account's: its entries need no other check of whose they are.
        let owned = from != "entry_state st"
        return (from, conditions + (try rest.conditions(binding: &values, for: .bulkUpdate, dialect: dialect, membershipKnown: owned)))
    }

    /// `since` and `before`: on the sort key of `entries` (its sort index), or of `entry_state`.
    private func dateConditions(for use: Use, parameter: (SQLValue) -> String) -> [String] {
        let bounds = [(since, ">="), (before, "<")].compactMap { date, comparison in
            date.map { (Int64($0.timeIntervalSince1970), comparison) }
        }
        guard !bounds.isEmpty else { return [] }
        switch use {
        case .listing, .newEntries:
            return bounds.map { "e.sort_at \($0.1) \(parameter(.integer($0.0)))" }
        case .searchIndex:
            return bounds.map { "st.sort_at \($0.1) \(parameter(.integer($0.0)))" }
        case .bulkUpdate:
            let range = bounds.map { "sort_at \($0.1) \(parameter(.integer($0.0)))" }.joined(separator: " AND ")
            return ["st.entry_id IN (SELECT id FROM entries WHERE \(range))"]
        }
    }
}
