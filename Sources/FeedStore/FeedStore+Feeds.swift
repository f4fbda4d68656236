import Foundation

/// A subscribed feed with its counts and fetch state.
public struct FeedSummary: Sendable, Equatable {
    public var id: Int64
    public var url: String
    public var title: String?
    public var siteURL: String?
    public var category: String?
    public var status: String
    public var lastError: String?
    public var errorCount: Int
    public var unread: Int
    public var total: Int
    public var checkedAt: Date?
    public var nextCheckAt: Date?
}

/// A category with how many feeds and articles it holds.
public struct CategorySummary: Sendable, Equatable {
    public var name: String
    public var feeds: Int
    public var unread: Int
    public var total: Int
}

/// The store's totals for `status`.
public struct StoreTotals: Sendable, Equatable {
    public var feedsByStatus: [String: Int]
    public var entries: Int
    public var unread: Int
}

extension StoreReader {
    /// Feeds per status, stored entries and unread ones, from indexes only (fast at any size).
    public func totals() throws(StoreError) -> StoreTotals {
        var totals = StoreTotals(feedsByStatus: [:], entries: 0, unread: 0)
        try database.statement("SELECT status, count(*) FROM feeds GROUP BY status").query { row in
            totals.feedsByStatus[row.text(at: 0) ?? "ok"] = Int(row.int64(at: 1))
        }
        try database.statement("SELECT read, count(*) FROM entries WHERE removed = 0 GROUP BY read").query { row in
            totals.entries += Int(row.int64(at: 1))
            if row.int64(at: 0) == 0 { totals.unread += Int(row.int64(at: 1)) }
        }
        return totals
    }

    /// Every feed (optionally one category's, or only failing ones) with unread and total counts.
    /// Counts go from each feed's sources to its entries (`+e.` keeps SQLite off the state index).
    public func feeds(category: String? = nil, failingOnly: Bool = false) throws(StoreError) -> [FeedSummary] {
        var values: [SQLValue] = []
        var conditions: [String] = []
        if let category {
            values.append(.text(category))
            conditions.append("c.name = ?\(values.count)")
        }
        if failingOnly { conditions.append("f.status != 'ok'") }
        let sql = """
            SELECT f.id, f.url, f.title, f.site_url, c.name, f.status, f.last_error, f.error_count,
                   (SELECT count(*) FROM entry_sources s JOIN entries e ON e.id = s.entry_id
                    WHERE s.feed_id = f.id AND +e.removed = 0 AND +e.read = 0),
                   (SELECT count(*) FROM entry_sources s JOIN entries e ON e.id = s.entry_id
                    WHERE s.feed_id = f.id AND +e.removed = 0),
                   f.checked_at, f.next_check_at
            FROM feeds f LEFT JOIN categories c ON c.id = f.category_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY c.name COLLATE NOCASE, f.title COLLATE NOCASE, f.id
            """
        var feeds: [FeedSummary] = []
        try database.statement(sql).query(values) { row in
            feeds.append(FeedSummary(
                id: row.int64(at: 0), url: row.text(at: 1) ?? "", title: row.text(at: 2), siteURL: row.text(at: 3),
                category: row.text(at: 4), status: row.text(at: 5) ?? "ok", lastError: row.text(at: 6),
                errorCount: Int(row.int64(at: 7)), unread: Int(row.int64(at: 8)), total: Int(row.int64(at: 9)),
                checkedAt: row.optionalInt64(at: 10).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                nextCheckAt: row.optionalInt64(at: 11).map { Date(timeIntervalSince1970: TimeInterval($0)) }))
        }
        return feeds
    }

    /// Every category with its feed, unread and total counts (an article counted once per category).
    public func categories() throws(StoreError) -> [CategorySummary] {
        var categories: [CategorySummary] = []
        try database.statement("""
            SELECT c.name, (SELECT count(*) FROM feeds f WHERE f.category_id = c.id),
                   count(DISTINCT CASE WHEN e.read = 0 THEN e.id END), count(DISTINCT e.id)
            FROM categories c
            LEFT JOIN feeds f ON f.category_id = c.id
            LEFT JOIN entry_sources s ON s.feed_id = f.id
            LEFT JOIN entries e ON e.id = s.entry_id AND +e.removed = 0
            GROUP BY c.id ORDER BY c.name COLLATE NOCASE
            """).query { row in
            categories.append(CategorySummary(name: row.text(at: 0) ?? "", feeds: Int(row.int64(at: 1)),
                                              unread: Int(row.int64(at: 2)), total: Int(row.int64(at: 3))))
        }
        return categories
    }
}

extension FeedStore {
    /// Unsubscribes from a feed. Its entries go, except starred ones and those another feed also carries.
    /// - Throws: `StoreError.Kind.notFound` when there is no such feed.
    public func removeFeed(id: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            var exists = false
            try database.statement("SELECT 1 FROM feeds WHERE id = ?1").query([.integer(id)]) { _ in exists = true }
            guard exists else { throw StoreError(.notFound, message: "no feed with id \(id)") }
            let onlyHere = """
                SELECT e.id FROM entries e JOIN entry_sources s ON s.entry_id = e.id AND s.feed_id = ?1
                WHERE e.starred = 0 AND NOT EXISTS (SELECT 1 FROM entry_sources o WHERE o.entry_id = e.id AND o.feed_id != ?1)
                """
            try database.prepare("""
                INSERT INTO entries_fts(entries_fts, rowid, title, body, author)
                SELECT 'delete', id, title, search_text, author FROM entries WHERE +removed = 0 AND id IN (\(onlyHere))
                """).run([.integer(id)])
            try database.prepare("DELETE FROM entries WHERE id IN (\(onlyHere))").run([.integer(id)])
            // Entries other feeds carry stay, now listed under one of those.
            try database.prepare("""
                UPDATE entries SET feed_id = (SELECT o.feed_id FROM entry_sources o WHERE o.entry_id = entries.id AND o.feed_id != ?1 LIMIT 1)
                WHERE feed_id = ?1 AND EXISTS (SELECT 1 FROM entry_sources o WHERE o.entry_id = entries.id AND o.feed_id != ?1)
                """).run([.integer(id)])
            try database.prepare("DELETE FROM feeds WHERE id = ?1").run([.integer(id)])
        }
    }

    /// The id of the feed subscribed at `url`, or nil.
    public func feedID(url: String) throws(StoreError) -> Int64? {
        var id: Int64?
        try database.statement("SELECT id FROM feeds WHERE url = ?1").query([.text(url)]) { row in id = row.int64(at: 0) }
        return id
    }
}
