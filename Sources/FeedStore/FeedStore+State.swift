extension FeedStore {
    /// Marks the given articles read/unread and/or starred/unstarred (nil leaves a flag as it is).
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(ids: [Int64], read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        var values: [SQLValue] = []
        let placeholders = ids.map { id -> String in
            values.append(.integer(id))
            return "?\(values.count)"
        }
        return try setFlags(read: read, starred: starred,
                            where: "st.removed = 0 AND st.entry_id IN (\(placeholders.joined(separator: ",")))",
                            values: values)
    }

    /// Marks every article matching `filter`, e.g. a whole category older than a date.
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(_ filter: ArticleFilter, read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        var values: [SQLValue] = []
        let conditions = try filter.conditions(binding: &values, for: .bulkUpdate)
        return try setFlags(read: read, starred: starred, where: conditions.joined(separator: " AND "), values: values)
    }

    /// Sets the flags on the entries of `entry_state st` matching `condition`, in one transaction.
    /// Only rows whose flag changes are written; the unread counters move by exactly those.
    private func setFlags(read: Bool?, starred: Bool?, where condition: String,
                          values: [SQLValue]) throws(StoreError) -> Int {
        guard read != nil || starred != nil else { return 0 }
        return try database.transaction { () throws(StoreError) -> Int in
            var changed = Set<Int64>()
            if let read {
                let flag = read ? 1 : 0
                var rows: [(id: Int64, feedID: Int64?, sources: Int)] = []
                try database.prepare("""
                    UPDATE entry_state AS st SET read = \(flag) WHERE st.read != \(flag) AND \(condition)
                    RETURNING entry_id, feed_id, sources
                    """).query(values) { row in rows.append((row.int64(at: 0), row.optionalInt64(at: 1), Int(row.int64(at: 2)))) }
                var counters = CounterChanges(database: database)
                for row in rows {
                    try counters.entryChanged(row.id, primaryFeed: row.feedID, sources: row.sources,
                                              entries: 0, unread: read ? -1 : 1)
                    changed.insert(row.id)
                }
                try counters.apply()
            }
            if let starred {
                let flag = starred ? 1 : 0
                try database.prepare("""
                    UPDATE entry_state AS st SET starred = \(flag) WHERE st.starred != \(flag) AND \(condition)
                    RETURNING entry_id
                    """).query(values) { row in changed.insert(row.int64(at: 0)) }
            }
            return changed.count
        }
    }
}
