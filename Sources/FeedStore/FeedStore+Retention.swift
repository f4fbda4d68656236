import Foundation

/// How long entries are kept (DESIGN.md §3).
public struct RetentionPolicy: Sendable, Equatable {
    /// Entries published (or first seen) longer ago than this expire; nil keeps them by age.
    public var maximumAgeDays: Int?
    /// The newest this many entries of each feed never expire.
    public var keepNewestPerFeed: Int

    public init(maximumAgeDays: Int? = 90, keepNewestPerFeed: Int = 50) {
        self.maximumAgeDays = maximumAgeDays
        self.keepNewestPerFeed = keepNewestPerFeed
    }
}

extension FeedStore {
    /// Expires old entries in batches of `batchSize`, each its own transaction so the writer is never
    /// held long. An expired entry keeps its key row (`removed = 1`, content dropped) so the next poll
    /// does not store it again as new; starred entries and each feed's newest are never expired.
    /// - Returns: how many entries expired.
    @discardableResult
    public func expire(_ policy: RetentionPolicy, now: Date = Date(), batchSize: Int = 500) throws(StoreError) -> Int {
        guard let days = policy.maximumAgeDays else { return 0 }
        let cutoff = Int64(now.timeIntervalSince1970) - Int64(days) * 86_400
        let candidates = try database.statement("""
            SELECT id FROM (
                SELECT id, starred, sort_at,
                       row_number() OVER (PARTITION BY feed_id ORDER BY sort_at DESC, id DESC) AS position
                FROM entries WHERE removed = 0
            ) WHERE starred = 0 AND sort_at < ?1 AND position > ?2 LIMIT ?3
            """)
        var expired = 0
        while true {
            var ids: [Int64] = []
            try candidates.query([.integer(cutoff), .integer(Int64(policy.keepNewestPerFeed)), .integer(Int64(batchSize))]) {
                row in ids.append(row.int64(at: 0))
            }
            guard !ids.isEmpty else { return expired }
            try database.transaction { () throws(StoreError) in
                for id in ids {
                    try unindexText(id)
                    try database.statement("""
                        UPDATE entries SET removed = 1, title = NULL, summary = NULL, content = NULL, author = NULL,
                            image_url = NULL, enclosures = NULL, search_text = NULL WHERE id = ?1
                        """).run([.integer(id)])
                }
            }
            expired += ids.count
        }
    }
}
