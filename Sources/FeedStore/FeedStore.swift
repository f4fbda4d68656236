import Foundation

/// The store's writer: the one actor that owns the write connection (docs/ARCHITECTURE.md, "Storage").
public actor FeedStore {
    /// Path of the database file.
    public nonisolated let path: String
    let database: Database
    private let checkpointer: Checkpointer

    /// Opens the database at `path`, creating it and applying migrations as needed.
    /// - Throws: `StoreError` saying what is wrong with the file and what to do.
    public init(path: String) throws(StoreError) {
        self.path = path
        database = try Database(path: path)
        let pageSize = try database.integer("PRAGMA page_size") ?? 4096
        try database.execute("PRAGMA wal_autocheckpoint = \(Checkpointer.writerLimitBytes / Int(pageSize))")
        // A large group commit grows the log past that; it shrinks back to this once checkpointed.
        try database.execute("PRAGMA journal_size_limit = \(64 << 20)")
        checkpointer = try Checkpointer(path: path)
        checkpointer.watchCommits(of: database)
    }

    /// The schema version a database written by this build has.
    public static var schemaVersion: Int { Int(Migrations.currentVersion) }

    /// A feed to subscribe to, as an OPML outline or `aggregatorctl add` names it.
    public struct NewFeed: Sendable, Equatable {
        public var url: String
        public var title: String?
        public var siteURL: String?
        public var category: String?

        public init(url: String, title: String? = nil, siteURL: String? = nil, category: String? = nil) {
            self.url = url
            self.title = title
            self.siteURL = siteURL
            self.category = category
        }
    }

    /// Subscribes to `feeds` in one transaction; a URL already subscribed is skipped.
    /// - Returns: how many feeds were new.
    @discardableResult
    public func addFeeds(_ feeds: [NewFeed], now: Date = Date()) throws(StoreError) -> Int {
        let insertFeed = try database.prepare("""
            INSERT INTO feeds(url, title, site_url, category_id, added_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(url) DO NOTHING
            """)
        return try database.transaction { () throws(StoreError) -> Int in
            var added = 0
            for feed in feeds {
                var categoryID: Int64?
                if let category = feed.category { categoryID = try self.categoryID(named: category, creating: true) }
                try insertFeed.run([.text(feed.url), SQLValue(feed.title), SQLValue(feed.siteURL),
                                    SQLValue(categoryID), .integer(Int64(now.timeIntervalSince1970))])
                added += database.changes
            }
            return added
        }
    }

    /// Rebuilds every counter from the rows (tests compare the result with the counters as kept).
    func recountCounters() throws(StoreError) {
        try database.transaction { () throws(StoreError) in try Counters.recountAll(database) }
    }

    /// How many feeds are subscribed.
    public func feedCount() throws(StoreError) -> Int {
        Int(try database.integer("SELECT count(*) FROM feeds") ?? 0)
    }

    /// Category names in use, sorted case-insensitively.
    public func categoryNames() throws(StoreError) -> [String] {
        let statement = try database.prepare("SELECT name FROM categories ORDER BY name COLLATE NOCASE")
        var names: [String] = []
        while try statement.step() {
            if let name = statement.text(at: 0) { names.append(name) }
        }
        return names
    }
}
