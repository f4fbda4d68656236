import Foundation

extension FeedStore {
    /// Marks the given articles read/unread and/or starred/unstarred (nil leaves a flag as it is).
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(ids: [Int64], read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        // SQLite binds at most 32,766 values a statement: long lists (Fever marks whatever the
        // client names) go in chunks, each in its own transaction.
        var changed = 0
        for start in stride(from: 0, to: ids.count, by: 10_000) {
            var values: [SQLValue] = []
            let placeholders = SQLValue.placeholders(for: ids[start..<min(start + 10_000, ids.count)], appendingTo: &values)
            changed += try setFlags(read: read, starred: starred, from: "entry_state st",
                                    where: ["st.removed = 0", "st.entry_id IN (\(placeholders))"], values: values)
        }
        return changed
    }

    /// Marks every article matching `filter`, e.g. a whole category older than a date.
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(_ filter: ArticleFilter, read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        var values: [SQLValue] = []
        let selection = try filter.bulkSelection(binding: &values)
        return try setFlags(read: read, starred: starred, from: selection.from, where: selection.conditions, values: values)
    }

    /// Sets the flags on the rows of `entry_state st` that `from` and `conditions` select, in one
    /// transaction. Only rows whose flag changes are written; the unread counters move by exactly those.
    private func setFlags(read: Bool?, starred: Bool?, from: String, where conditions: [String],
                          values: [SQLValue]) throws(StoreError) -> Int {
        guard read != nil || starred != nil else { return 0 }
        // Fixed text: 0 or 1, never user input.
        let readChanges = read.map { "st.read != \($0 ? 1 : 0)" }
        let starredChanges = starred.map { "st.starred != \($0 ? 1 : 0)" }
        let changes = [readChanges, starredChanges].compactMap { $0 }.joined(separator: " OR ")
        return try database.transaction { () throws(StoreError) -> Int in
            // The rows that change, collected once before any flag moves (a filter may test the very
            // flags being set): the updates and the counters all read them.
            try database.execute("""
                CREATE TEMP TABLE IF NOT EXISTS marked (
                    entry_id INTEGER PRIMARY KEY, feed_id INTEGER, sources INTEGER NOT NULL, read_changes INTEGER NOT NULL);
                DELETE FROM temp.marked;
                """)
            try database.prepare("""
                INSERT OR IGNORE INTO temp.marked SELECT st.entry_id, st.feed_id, st.sources, \(readChanges ?? "0")
                FROM \(from) WHERE (\(changes)) AND \(conditions.joined(separator: " AND "))
                """).run(values)
            let now = SQLValue.integer(Int64(Date().timeIntervalSince1970))
            if let read {
                try database.statement("""
                    UPDATE entry_state SET read = ?1, changed_at = ?2
                    WHERE entry_id IN (SELECT entry_id FROM temp.marked WHERE read_changes)
                    """).run([SQLValue(read), now])
                try countReadChanges(unread: read ? -1 : 1)
            }
            if let starred {
                try database.statement("""
                    UPDATE entry_state SET starred = ?1, changed_at = ?2 WHERE entry_id IN (SELECT entry_id FROM temp.marked)
                    """).run([SQLValue(starred), now])
            }
            return Int(try database.integer("SELECT count(*) FROM temp.marked") ?? 0)
        }
    }

    /// Moves the unread counters by `unread` for every entry of `temp.marked` whose read flag changed:
    /// per feed for the entries with a single source (nearly all), one by one for the others.
    private func countReadChanges(unread: Int) throws(StoreError) {
        var perFeed: [Int64: Int] = [:]
        var others: [(id: Int64, feedID: Int64?, sources: Int)] = []
        try database.statement("SELECT entry_id, feed_id, sources FROM temp.marked WHERE read_changes").query { row in
            let sources = Int(row.int64(at: 2))
            if sources == 1 {
                perFeed[row.int64(at: 1), default: 0] += 1
            } else {
                others.append((row.int64(at: 0), row.optionalInt64(at: 1), sources))
            }
        }
        var counters = CounterChanges(database: database)
        for (feed, count) in perFeed {
            try counters.singleSourceEntriesChanged(count, feed: feed, entries: 0, unread: unread)
        }
        for other in others {
            try counters.entryChanged(other.id, primaryFeed: other.feedID, sources: other.sources, entries: 0, unread: unread)
        }
        try counters.apply()
    }
}
