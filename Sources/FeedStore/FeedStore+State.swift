extension FeedStore {
    /// Marks the given articles read/unread and/or starred/unstarred (nil leaves a flag as it is).
    /// - Returns: how many articles changed.
    @discardableResult
    public func mark(ids: [Int64], read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        guard !ids.isEmpty, read != nil || starred != nil else { return 0 }
        var values: [SQLValue] = []
        let assignments = Self.assignments(read: read, starred: starred, values: &values)
        let placeholders = ids.map { id -> String in
            values.append(.integer(id))
            return "?\(values.count)"
        }
        try database.prepare("UPDATE entries SET \(assignments) WHERE +removed = 0 AND id IN (\(placeholders.joined(separator: ",")))")
            .run(values)
        return database.changes
    }

    /// Marks every article matching `filter` in one statement, e.g. a whole category older than a date.
    @discardableResult
    public func mark(_ filter: ArticleFilter, read: Bool? = nil, starred: Bool? = nil) throws(StoreError) -> Int {
        guard read != nil || starred != nil else { return 0 }
        var values: [SQLValue] = []
        let assignments = Self.assignments(read: read, starred: starred, values: &values)
        var conditions = try filter.conditions(binding: &values, forBulkUpdate: true)
        // Rows already in the wanted state need no write (when read is the only flag being set).
        if let read, starred == nil { conditions.append("+e.read != \(read ? 1 : 0)") }
        try database.prepare("UPDATE entries AS e SET \(assignments) WHERE \(conditions.joined(separator: " AND "))")
            .run(values)
        return database.changes
    }

    private static func assignments(read: Bool?, starred: Bool?, values: inout [SQLValue]) -> String {
        var parts: [String] = []
        if let read {
            values.append(SQLValue(read))
            parts.append("read = ?\(values.count)")
        }
        if let starred {
            values.append(SQLValue(starred))
            parts.append("starred = ?\(values.count)")
        }
        return parts.joined(separator: ", ")
    }
}
