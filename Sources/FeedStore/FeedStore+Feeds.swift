import Foundation

/// A subscribed feed with its counts and fetch state.
/// Whether a feed is fetched, and how its last fetch went (the `feeds.status` column).
public enum FeedStatus: String, Sendable, Equatable, CaseIterable {
    /// Its last fetch worked.
    case ok
    /// Its last fetch failed: retried with backoff, the reason in `last_error`.
    case failing
    /// Gone for good (HTTP 410): no longer fetched.
    case disabled

    /// The column's text read back; a value this build does not know counts as failing, so that it shows.
    init(column text: String?) {
        self = text.flatMap(FeedStatus.init(rawValue:)) ?? .failing
    }
}

public struct FeedSummary: Sendable, Equatable {
    public var id: Int64
    public var url: String
    public var title: String?
    public var siteURL: String?
    public var category: String?
    public var categoryID: Int64?
    public var status: FeedStatus
    public var lastError: String?
    public var errorCount: Int
    public var unread: Int
    public var total: Int
    public var checkedAt: Date?
    public var nextCheckAt: Date?
    /// When it last brought an entry, new or carried by another feed first.
    public var newestEntryAt: Date?
    /// Its icon (id, and the digest public URLs name it by), once one was found.
    public var icon: IconReference?
    /// Whether its category is hidden from the global listings (Miniflux's category `hide_globally`).
    public var isCategoryHidden = false

    public init(id: Int64, url: String, title: String? = nil, siteURL: String? = nil, category: String? = nil,
                categoryID: Int64? = nil, status: FeedStatus = .ok, lastError: String? = nil, errorCount: Int = 0,
                unread: Int = 0, total: Int = 0, checkedAt: Date? = nil, nextCheckAt: Date? = nil, newestEntryAt: Date? = nil) {
        (self.id, self.url, self.title, self.siteURL, self.category, self.categoryID) = (id, url, title, siteURL, category, categoryID)
        (self.status, self.lastError, self.errorCount, self.unread, self.total) = (status, lastError, errorCount, unread, total)
        (self.checkedAt, self.nextCheckAt, self.newestEntryAt) = (checkedAt, nextCheckAt, newestEntryAt)
    }
}

/// A category with how many feeds and articles it holds.
public struct CategorySummary: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var feeds: Int
    public var unread: Int
    public var total: Int
    /// Left out of the global listings (`ArticleFilter.globallyVisibleOnly`).
    public var hideGlobally = false
}

/// The store's totals for `status`.
public struct StoreTotals: Sendable, Equatable {
    public var feedsByStatus: [FeedStatus: Int]
    public var entries: Int
    public var unread: Int

    public init(feedsByStatus: [FeedStatus: Int], entries: Int, unread: Int) {
        (self.feedsByStatus, self.entries, self.unread) = (feedsByStatus, entries, unread)
    }
}

extension StoreReader {
    /// Feeds per status, stored entries and unread ones, from the maintained counters.
    public func totals() throws(StoreError) -> StoreTotals {
        var totals = StoreTotals(feedsByStatus: [:], entries: 0, unread: 0)
        try database.statement("SELECT status, count(*) FROM feeds GROUP BY status").query { row in
            totals.feedsByStatus[FeedStatus(column: row.text(at: 0)), default: 0] += Int(row.int64(at: 1))
        }
        try database.statement("SELECT entries, unread FROM store_totals WHERE id = 1").query { row in
            totals.entries = Int(row.int64(at: 0))
            totals.unread = Int(row.int64(at: 1))
        }
        return totals
    }

    /// Every feed (optionally one category's, only failing ones, or those with `ids`) with its unread
    /// and total counts.
    public func feeds(category: String? = nil, failingOnly: Bool = false, ids: [Int64]? = nil) throws(StoreError)
        -> [FeedSummary] {
        var values: [SQLValue] = []
        var conditions: [String] = []
        if let ids {
            conditions.append("f.id IN (\(SQLValue.placeholders(for: ids, appendingTo: &values)))")
        }
        if let category {
            values.append(.text(category))
            conditions.append("c.name = ?\(values.count)")
        }
        if failingOnly { conditions.append("f.status != 'ok'") }
        let sql = """
            SELECT f.id, f.url, f.title, f.site_url, c.name, f.status, f.last_error, f.error_count,
                   f.unread_count, f.entry_count, f.checked_at, f.next_check_at, f.category_id, f.newest_entry_at,
                   i.id, i.digest, coalesce(c.hide_globally, 0)
            FROM feeds f LEFT JOIN categories c ON c.id = f.category_id LEFT JOIN icons i ON i.id = f.icon_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY c.name COLLATE NOCASE, f.title COLLATE NOCASE, f.id
            """
        var feeds: [FeedSummary] = []
        try database.statement(sql).query(values) { row in
            feeds.append(FeedSummary(
                id: row.int64(at: 0), url: row.text(at: 1) ?? "", title: row.text(at: 2), siteURL: row.text(at: 3),
                category: row.text(at: 4), categoryID: row.optionalInt64(at: 12), status: FeedStatus(column: row.text(at: 5)), lastError: row.text(at: 6),
                errorCount: Int(row.int64(at: 7)), unread: Int(row.int64(at: 8)), total: Int(row.int64(at: 9)),
                checkedAt: row.optionalInt64(at: 10).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                nextCheckAt: row.optionalInt64(at: 11).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                newestEntryAt: row.optionalInt64(at: 13).map { Date(timeIntervalSince1970: TimeInterval($0)) }))
            if let iconID = row.optionalInt64(at: 14) { feeds[feeds.count - 1].icon = IconReference(id: iconID, digest: row.text(at: 15) ?? "") }
            feeds[feeds.count - 1].isCategoryHidden = row.int64(at: 16) != 0
        }
        return feeds
    }

    /// Each feed's id, total and unread entries: the counters alone, for apps that poll them.
    public func feedCounters() throws(StoreError) -> [(id: Int64, total: Int, unread: Int)] {
        var counters: [(id: Int64, total: Int, unread: Int)] = []
        try database.statement("SELECT id, entry_count, unread_count FROM feeds ORDER BY id").query { row in
            counters.append((row.int64(at: 0), Int(row.int64(at: 1)), Int(row.int64(at: 2))))
        }
        return counters
    }

    /// How many feeds are filed under no category, and their unread entries (the feeds' counters
    /// added up: an entry two of them carry counts twice, as in Miniflux's uncategorized category).
    public func uncategorizedCounts() throws(StoreError) -> (feeds: Int, unread: Int) {
        var counts = (feeds: 0, unread: 0)
        try database.statement("SELECT count(*), coalesce(sum(unread_count), 0) FROM feeds WHERE category_id IS NULL")
            .query { row in counts = (Int(row.int64(at: 0)), Int(row.int64(at: 1))) }
        return counts
    }

    /// Every category with its feed, unread and total counts (an article counted once per category).
    public func categories() throws(StoreError) -> [CategorySummary] {
        var categories: [CategorySummary] = []
        try database.statement("""
            SELECT c.name, (SELECT count(*) FROM feeds f WHERE f.category_id = c.id), c.unread_count, c.entry_count, c.id,
                   c.hide_globally
            FROM categories c ORDER BY c.name COLLATE NOCASE
            """).query { row in
            categories.append(CategorySummary(id: row.int64(at: 4), name: row.text(at: 0) ?? "", feeds: Int(row.int64(at: 1)),
                                              unread: Int(row.int64(at: 2)), total: Int(row.int64(at: 3)),
                                              hideGlobally: row.int64(at: 5) != 0))
        }
        return categories
    }
}

extension FeedStore {
    /// Unsubscribes from a feed. Its entries go, except starred ones and those another feed also carries.
    /// - Throws: `StoreError.Kind.notFound` when there is no such feed.
    public func removeFeed(id: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            let categoryID = try categoryID(ofFeed: id)
            let onlyHere = """
                SELECT st.entry_id FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                WHERE s.feed_id = ?1 AND st.sources = 1 AND st.starred = 0
                """
            var gone = (entries: Int64(0), unread: Int64(0))
            try database.prepare("""
                SELECT count(*), coalesce(sum(read = 0), 0) FROM entry_state WHERE removed = 0 AND entry_id IN (\(onlyHere))
                """).query([.integer(id)]) { row in gone = (row.int64(at: 0), row.int64(at: 1)) }
            try database.prepare("""
                INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
                SELECT 'delete', e.id, e.title, e.search_text, e.author
                FROM entries e JOIN entry_state st ON st.entry_id = e.id
                WHERE st.removed = 0 AND e.id IN (\(onlyHere))
                """).run([.integer(id)])
            try database.prepare("DELETE FROM entries WHERE id IN (\(onlyHere))").run([.integer(id)])
            // What stays (starred, or carried by other feeds too) loses this source; an entry whose
            // primary feed this was is listed under another of its feeds from now on.
            try database.prepare("""
                UPDATE entry_state SET sources = sources - 1,
                    feed_id = CASE WHEN feed_id = ?1 THEN
                        (SELECT o.feed_id FROM entry_sources o WHERE o.entry_id = entry_state.entry_id AND o.feed_id != ?1 LIMIT 1)
                        ELSE feed_id END
                WHERE entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = ?1)
                """).run([.integer(id)])
            try database.prepare("DELETE FROM feeds WHERE id = ?1").run([.integer(id)])
            try database.statement("UPDATE store_totals SET entries = entries - ?1, unread = unread - ?2 WHERE id = 1")
                .run([.integer(gone.entries), .integer(gone.unread)])
            if let categoryID { try Counters.recountCategories(database, id: categoryID) }
        }
    }

    /// Renames a feed, files it under another category (`""` for none), moves it to another URL or
    /// site URL, disables or enables it; nil leaves a field as it is. A new URL is fetched afresh (no
    /// validators of the old one) at once; an enabled feed is due at once with its errors cleared.
    /// - Throws: `StoreError.Kind.notFound` when there is no such feed.
    public func updateFeed(id: Int64, title: String? = nil, category: String? = nil, url: String? = nil,
                           siteURL: String? = nil, disabled: Bool? = nil) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            let previous = try categoryID(ofFeed: id)
            if let title {
                try database.statement("UPDATE feeds SET title = ?2 WHERE id = ?1").run([.integer(id), SQLValue(title.isEmpty ? nil : title)])
            }
            if let url {
                try database.statement("""
                    UPDATE feeds SET url = ?2, etag = NULL, last_modified = NULL, next_check_at = NULL
                    WHERE id = ?1 AND url != ?2
                    """).run([.integer(id), .text(url)])
            }
            if let siteURL {
                try database.statement("UPDATE feeds SET site_url = ?2 WHERE id = ?1").run([.integer(id), SQLValue(siteURL.isEmpty ? nil : siteURL)])
            }
            if disabled == true {
                try database.statement("UPDATE feeds SET status = 'disabled' WHERE id = ?1").run([.integer(id)])
            } else if disabled == false {
                try database.statement("""
                    UPDATE feeds SET status = 'ok', error_count = 0, last_error = NULL, next_check_at = NULL
                    WHERE id = ?1 AND status = 'disabled'
                    """).run([.integer(id)])
            }
            guard let category else { return }
            let next = category.isEmpty ? nil : try categoryID(named: category, creating: true)
            guard next != previous else { return }
            try database.statement("UPDATE feeds SET category_id = ?2 WHERE id = ?1").run([.integer(id), SQLValue(next)])
            for changed in [previous, next].compactMap({ $0 }) { try Counters.recountCategories(database, id: changed) }
        }
    }

    /// Renames a category; when another category already has the new name, the two are merged.
    /// - Throws: `StoreError.Kind.notFound` when there is no category `name`.
    public func renameCategory(_ name: String, to newName: String) throws(StoreError) {
        guard !newName.isEmpty else { throw StoreError(.invalidQuery, message: "a category needs a name") }
        try database.transaction { () throws(StoreError) in
            guard let source = try categoryID(named: name, creating: false) else {
                throw StoreError(.notFound, message: "no category named '\(name)'")
            }
            guard let target = try categoryID(named: newName, creating: false), target != source else {
                try database.statement("UPDATE categories SET name = ?2 WHERE id = ?1").run([.integer(source), .text(newName)])
                return
            }
            try database.statement("UPDATE feeds SET category_id = ?2 WHERE category_id = ?1").run([.integer(source), .integer(target)])
            try database.statement("DELETE FROM categories WHERE id = ?1").run([.integer(source)])
            try Counters.recountCategories(database, id: target)
        }
    }

    /// Creates an empty category. - Returns: its id, or nil when the name is taken.
    public func createCategory(_ name: String) throws(StoreError) -> Int64? {
        guard !name.isEmpty else { throw StoreError(.invalidQuery, message: "a category needs a name") }
        return try database.transaction { () throws(StoreError) -> Int64? in
            try database.statement("INSERT INTO categories(name) VALUES (?1) ON CONFLICT(name) DO NOTHING").run([.text(name)])
            return database.changes == 1 ? database.lastInsertedRowID : nil
        }
    }

    /// Hides a category from the global listings, or shows it there again.
    /// - Throws: `StoreError.Kind.notFound` when there is no such category.
    public func setCategoryHidden(id: Int64, _ hidden: Bool) throws(StoreError) {
        try database.statement("UPDATE categories SET hide_globally = ?2 WHERE id = ?1").run([.integer(id), SQLValue(hidden)])
        guard database.changes == 1 else { throw StoreError(.notFound, message: "no category with id \(id)") }
    }

    /// Deletes a category; its feeds stay, filed under none.
    /// - Throws: `StoreError.Kind.notFound` when there is no such category.
    public func removeCategory(id: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("UPDATE feeds SET category_id = NULL WHERE category_id = ?1").run([.integer(id)])
            try database.statement("DELETE FROM categories WHERE id = ?1").run([.integer(id)])
            guard database.changes == 1 else { throw StoreError(.notFound, message: "no category with id \(id)") }
        }
    }

    /// The id of the feed subscribed at `url`, or nil.
    public func feedID(url: String) throws(StoreError) -> Int64? {
        var id: Int64?
        try database.statement("SELECT id FROM feeds WHERE url = ?1").query([.text(url)]) { row in id = row.int64(at: 0) }
        return id
    }

    /// The category a feed is filed under (nil for none).
    /// - Throws: `StoreError.Kind.notFound` when there is no such feed.
    private func categoryID(ofFeed id: Int64) throws(StoreError) -> Int64? {
        var found: Int64??
        try database.statement("SELECT category_id FROM feeds WHERE id = ?1").query([.integer(id)]) { row in
            found = .some(row.optionalInt64(at: 0))
        }
        guard let found else { throw StoreError(.notFound, message: "no feed with id \(id)") }
        return found
    }

    /// The id of the category `name` (case-insensitive), created when asked.
    func categoryID(named name: String, creating: Bool) throws(StoreError) -> Int64? {
        if creating {
            try database.statement("INSERT INTO categories(name) VALUES (?1) ON CONFLICT(name) DO NOTHING").run([.text(name)])
        }
        var id: Int64?
        try database.statement("SELECT id FROM categories WHERE name = ?1").query([.text(name)]) { row in id = row.int64(at: 0) }
        return id
    }
}
