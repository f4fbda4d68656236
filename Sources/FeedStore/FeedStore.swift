import Foundation

/// The store's writer: the one actor that owns the write connection (docs/ARCHITECTURE.md, "Storage").
public actor FeedStore {
    /// Path of the database file.
    public nonisolated let path: String
    let database: Database
    /// SQLite's log copier; PostgreSQL checkpoints by itself.
    private let checkpointer: Checkpointer?
    /// Judges entries by the accounts' filter rules as they arrive (none: rules are kept, not applied).
    /// Judges arriving entries by their followers' rules (AggregatorCore's matcher).
    nonisolated public let entryRules: (any EntryRules)?
    /// PostgreSQL: index documents of the entries an ingest inserted, sent at its end (`indexPendingDocuments`).
    var pendingDocuments: [SQLValue] = []

    /// Opens the database at `path` (an SQLite file, or a PostgreSQL URI), creating it and applying
    /// migrations as needed.
    /// - Throws: `StoreError` saying what is wrong with the database and what to do.
    public init(path: String, entryRules: (any EntryRules)? = nil) throws(StoreError) {
        self.path = path
        self.entryRules = entryRules
        database = try Database(path: path)
        guard database.dialect.checkpointsItsLog else {
            checkpointer = nil
            return
        }
        let pageSize = try database.integer("PRAGMA page_size") ?? 4096
        try database.execute("PRAGMA wal_autocheckpoint = \(Checkpointer.writerLimitBytes / Int(pageSize))")
        // A large group commit grows the log past that; it shrinks back to this once checkpointed.
        try database.execute("PRAGMA journal_size_limit = \(64 << 20)")
        let checkpointer = try Checkpointer(path: path)
        checkpointer.watchCommits(of: database)
        self.checkpointer = checkpointer
    }

    /// Where `database` (a path or a PostgreSQL URI) keeps its data, fit to show: a URI's password is
    /// never shown or logged.
    public static func location(of database: String) -> String {
        SQLDialect.of(database).shown(database)
    }

    /// Whether `database` is a file (an SQLite database) rather than a server's (a PostgreSQL URI): a
    /// file is one process's at a time (`DatabaseClaim`), and is copied and removed as a file.
    public static func isFile(_ database: String) -> Bool {
        SQLDialect.of(database).isAFile
    }

    /// Whether several daemons may share `database` (a server's; docs/ARCHITECTURE.md, "Several
    /// daemons"), and read from its standbys.
    public static func canBeShared(_ database: String) -> Bool {
        !isFile(database)
    }

    /// Whether the store wants entries' search documents built before they reach the writer
    /// (`IncomingFeed.searchDocuments`: PostgreSQL's, built in Swift).
    public nonisolated var wantsSearchDocuments: Bool { SQLDialect.of(path).search.buildsDocuments }

    /// The space the database takes: its file, or on PostgreSQL the database's size on the server.
    public func sizeInBytes() -> Int? {
        database.dialect.size(of: path, database)
    }

    /// The schema version a database written by this build has.
    public static var schemaVersion: Int { Int(Migrations.currentVersion) }

    /// A feed to subscribe to, as an OPML outline or `aggregatorctl add` names it.
    public struct NewFeed: Sendable, Equatable {
        public var url: String
        public var title: String?
        public var siteURL: String?
        public var category: String?
        /// Anything but the defaults makes the feed the account's private copy (docs/ARCHITECTURE.md).
        public var fetchSettings = FeedFetchSettings()

        public init(url: String, title: String? = nil, siteURL: String? = nil, category: String? = nil,
                    fetchSettings: FeedFetchSettings = FeedFetchSettings()) {
            self.url = url
            self.title = title
            self.siteURL = siteURL
            self.category = category
            self.fetchSettings = fetchSettings
        }
    }

    /// What `subscribe` did: how many subscriptions were new, and the URLs left out because the account
    /// reached its quota.
    public struct Subscribed: Sendable, Equatable {
        public var added = 0
        public var overQuota: [String] = []
    }

    /// Subscribes the account to `feeds` in one transaction (`subscribe` without a quota).
    /// - Returns: how many subscriptions were new.
    @discardableResult
    public func addFeeds(_ feeds: [NewFeed], account: AccountID, now: Date = Date()) throws(StoreError) -> Int {
        try subscribe(feeds, account: account, maximumSubscriptions: nil, now: now).added
    }

    /// Subscribes the account to `feeds` in one transaction; a URL it already follows is skipped, and
    /// once it follows `maximumSubscriptions` feeds the rest are left out (counted in the same
    /// transaction, so two imports at once cannot pass it). A feed another account follows is shared:
    /// it is fetched once for all, its entries stored once. A feed with fetch settings of its own is
    /// the account's private copy (docs/ARCHITECTURE.md).
    public func subscribe(_ feeds: [NewFeed], account: AccountID, maximumSubscriptions: Int?,
                          now: Date = Date()) throws(StoreError) -> Subscribed {
        let insertFeed = try database.prepare("""
            INSERT INTO feeds(url, title, site_url, added_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(url) WHERE owner_account_id IS NULL DO NOTHING
            """)
        let subscribe = try database.prepare("""
            INSERT INTO subscriptions(account_id, feed_id, title, category_id, added_at)
            SELECT ?1, id, ?3, ?4, ?5 FROM feeds WHERE url = ?2 AND owner_account_id IS NULL
            ON CONFLICT(account_id, feed_id) DO NOTHING
            """)
        return try database.transaction { () throws(StoreError) -> Subscribed in
            var result = Subscribed()
            var room = Int.max
            if let maximumSubscriptions { room = maximumSubscriptions - (try database.subscriptionCount(account: account)) }
            for feed in feeds {
                // A URL it follows already, through the shared feed or a private copy of its own.
                let followed = try database.integer("""
                    SELECT 1 FROM subscriptions u JOIN feeds f ON f.id = u.feed_id WHERE u.account_id = ?1 AND f.url = ?2
                    """, [.account(account), .text(feed.url)]) != nil
                guard followed || result.added < room else {
                    result.overQuota.append(feed.url)
                    continue
                }
                var categoryID: Int64?
                if let category = feed.category {
                    categoryID = try self.categoryID(named: category, account: account, creating: true)
                }
                guard !followed else { continue }
                let seconds = SQLValue.integer(Int64(now.timeIntervalSince1970))
                if !feed.fetchSettings.isDefault {
                    let copy = try insertPrivateFeed(url: feed.url, title: feed.title, siteURL: feed.siteURL,
                                                     settings: feed.fetchSettings, account: account, now: seconds)
                    try database.statement("""
                        INSERT INTO subscriptions(account_id, feed_id, title, category_id, added_at) VALUES (?1, ?2, ?3, ?4, ?5)
                        """).run([.account(account), .integer(copy), SQLValue(feed.title), SQLValue(categoryID), seconds])
                    result.added += 1
                    continue
                }
                try insertFeed.run([.text(feed.url), SQLValue(feed.title), SQLValue(feed.siteURL), seconds])
                let isNewFeed = try database.changes() == 1
                try subscribe.run([.account(account), .text(feed.url), SQLValue(feed.title), SQLValue(categoryID), seconds])
                guard try database.changes() == 1 else { continue }
                result.added += 1
                if !isNewFeed, let feedID = try database.integer("SELECT id FROM feeds WHERE url = ?1 AND owner_account_id IS NULL",
                                                                  [.text(feed.url)]) {
                    try showLatestDocumentOnly(feed: feedID, account: account, now: Int64(now.timeIntervalSince1970))
                    // A feed its other followers had all disabled is fetched again for this one.
                    try updateFetching(feedID)
                }
            }
            if result.added > 0 { try Counters.recountStarredOrphans(account: account, database) }
            return result
        }
    }

    /// Rebuilds every counter from the rows (tests compare the result with the counters as kept).
    func recountCounters() throws(StoreError) {
        try database.transaction { () throws(StoreError) in try Counters.recountAll(database) }
    }

    /// How many feeds are stored (followed by any account).
    public func feedCount() throws(StoreError) -> Int {
        Int(try database.integer("SELECT count(*) FROM feeds") ?? 0)
    }

    /// The account's category names, sorted case-insensitively.
    public func categoryNames(account: AccountID) throws(StoreError) -> [String] {
        var names: [String] = []
        try database.statement("SELECT name FROM categories WHERE account_id = ?1 ORDER BY name COLLATE NOCASE")
            .query([.account(account)]) { row in
                if let name = row.text(at: 0) { names.append(name) }
            }
        return names
    }
}
