/// Unread and total counters per feed, per category and in all, kept by the writer as entries
/// change, so `feeds`, `categories` and `status` read them instead of counting rows (which took a
/// second at 1M entries). An entry counts once in each feed carrying it and once per category,
/// however many of the category's feeds carry it; retention-expired entries count nowhere.
///
/// A transaction collects its changes here and applies them once before it commits.
struct CounterChanges {
    private struct Delta {
        var entries = 0
        var unread = 0
        var isZero: Bool { entries == 0 && unread == 0 }

        mutating func add(_ other: Delta) {
            entries += other.entries
            unread += other.unread
        }
    }

    private let database: Database
    private var totals = Delta()
    private var feeds: [Int64: Delta] = [:]
    private var categories: [Int64: Delta] = [:]
    private var categoryOfFeed: [Int64: Int64?] = [:]

    init(database: Database) {
        self.database = database
    }

    /// An entry's state changed: it was stored, expired, or read/unread flipped. `entries` and
    /// `unread` are each -1, 0 or +1; `primaryFeed` and `sources` are its `entry_state` values.
    mutating func entryChanged(_ entryID: Int64, primaryFeed: Int64?, sources: Int,
                               entries: Int, unread: Int) throws(StoreError) {
        let delta = Delta(entries: entries, unread: unread)
        totals.add(delta)
        if sources <= 1 {
            // Most entries: one source, the primary feed, known without a query.
            guard sources == 1, let primaryFeed else { return }
            try add(delta, toFeed: primaryFeed)
            return
        }
        let carriers = try sourceFeeds(entryID, primaryFeed: primaryFeed, sources: sources)
        for carrier in carriers {
            feeds[carrier.feed, default: Delta()].add(delta)
        }
        for category in Set(carriers.compactMap(\.category)) {
            categories[category, default: Delta()].add(delta)
        }
    }

    /// `count` entries whose only source is `feed` changed alike (a bulk mark, counted per feed).
    mutating func singleSourceEntriesChanged(_ count: Int, feed: Int64, entries: Int, unread: Int) throws(StoreError) {
        let delta = Delta(entries: entries * count, unread: unread * count)
        totals.add(delta)
        try add(delta, toFeed: feed)
    }

    /// Adds to a feed and to its category.
    private mutating func add(_ delta: Delta, toFeed feed: Int64) throws(StoreError) {
        feeds[feed, default: Delta()].add(delta)
        if let category = try category(ofFeed: feed) { categories[category, default: Delta()].add(delta) }
    }

    /// `feed` now carries an entry that other feeds (`sourcesBefore` of them) carried already.
    mutating func sourceAdded(_ entryID: Int64, feed: Int64, primaryFeed: Int64?, sourcesBefore: Int,
                              isRead: Bool) throws(StoreError) {
        let delta = Delta(entries: 1, unread: isRead ? 0 : 1)
        feeds[feed, default: Delta()].add(delta)
        guard let category = try category(ofFeed: feed) else { return }
        // The category counts it already when another of its feeds carries it.
        let others = try sourceFeeds(entryID, primaryFeed: primaryFeed, sources: sourcesBefore).filter { $0.feed != feed }
        if !others.contains(where: { $0.category == category }) {
            categories[category, default: Delta()].add(delta)
        }
    }

    /// Writes the collected changes; call once, inside the transaction that made them.
    func apply() throws(StoreError) {
        if !totals.isZero {
            try database.statement("UPDATE store_totals SET entries = entries + ?1, unread = unread + ?2 WHERE id = 1")
                .run([.integer(Int64(totals.entries)), .integer(Int64(totals.unread))])
        }
        let feedUpdate = try database.statement(
            "UPDATE feeds SET entry_count = entry_count + ?2, unread_count = unread_count + ?3 WHERE id = ?1")
        for (id, delta) in feeds where !delta.isZero {
            try feedUpdate.run([.integer(id), .integer(Int64(delta.entries)), .integer(Int64(delta.unread))])
        }
        let categoryUpdate = try database.statement(
            "UPDATE categories SET entry_count = entry_count + ?2, unread_count = unread_count + ?3 WHERE id = ?1")
        for (id, delta) in categories where !delta.isZero {
            try categoryUpdate.run([.integer(id), .integer(Int64(delta.entries)), .integer(Int64(delta.unread))])
        }
    }

    /// The feeds carrying an entry and their categories. Most entries have one source, their primary
    /// feed, known without a query.
    private mutating func sourceFeeds(_ entryID: Int64, primaryFeed: Int64?,
                                      sources: Int) throws(StoreError) -> [(feed: Int64, category: Int64?)] {
        if sources <= 1 {
            guard let primaryFeed, sources == 1 else { return [] }
            return [(primaryFeed, try category(ofFeed: primaryFeed))]
        }
        var found: [(feed: Int64, category: Int64?)] = []
        try database.statement("""
            SELECT s.feed_id, f.category_id FROM entry_sources s JOIN feeds f ON f.id = s.feed_id WHERE s.entry_id = ?1
            """).query([.integer(entryID)]) { row in found.append((row.int64(at: 0), row.optionalInt64(at: 1))) }
        return found
    }

    private mutating func category(ofFeed feed: Int64) throws(StoreError) -> Int64? {
        if let known = categoryOfFeed[feed] { return known }
        var category: Int64?
        try database.statement("SELECT category_id FROM feeds WHERE id = ?1").query([.integer(feed)]) { row in
            category = row.optionalInt64(at: 0)
        }
        categoryOfFeed[feed] = category
        return category
    }
}

/// Counters rebuilt from the rows: after the migration that introduced them, after changes that
/// move many entries between categories at once, and in tests that check nothing drifted.
enum Counters {
    static func recountAll(_ database: Database) throws(StoreError) {
        try database.execute("""
            UPDATE feeds SET (entry_count, unread_count) = (
                SELECT count(*), coalesce(sum(st.read = 0), 0)
                FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                WHERE s.feed_id = feeds.id AND st.removed = 0);
            UPDATE store_totals SET (entries, unread) = (
                SELECT count(*), coalesce(sum(read = 0), 0) FROM entry_state WHERE removed = 0);
            """)
        try recountCategories(database)
    }

    /// Recounts one category (or every category when `id` is nil).
    static func recountCategories(_ database: Database, id: Int64? = nil) throws(StoreError) {
        try database.prepare("""
            UPDATE categories SET (entry_count, unread_count) = (
                SELECT count(DISTINCT s.entry_id), count(DISTINCT CASE WHEN st.read = 0 THEN s.entry_id END)
                FROM feeds f JOIN entry_sources s ON s.feed_id = f.id JOIN entry_state st ON st.entry_id = s.entry_id
                WHERE f.category_id = categories.id AND st.removed = 0)
            WHERE ?1 IS NULL OR id = ?1
            """).run([SQLValue(id)])
    }
}
