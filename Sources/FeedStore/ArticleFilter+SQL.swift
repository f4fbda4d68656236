extension ArticleFilter {
    /// Where the conditions are used: a listing walks `entries e` joined with `entry_state st`; a bulk
    /// update runs on `entry_state st` alone and reaches other tables through `st.entry_id`.
    enum Use {
        case listing, bulkUpdate
    }

    /// SQL conditions on `st` (and, in listings, `e`), with their parameters appended to `values`.
    /// Values are always bound; only fixed SQL text is assembled here.
    func conditions(binding values: inout [SQLValue], for use: Use = .listing) throws(StoreError) -> [String] {
        var conditions = ["st.removed = 0"]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        let id = use == .listing ? "e.id" : "st.entry_id"
        // A listing checks membership row by row while it walks the sort index (a page needs only
        // the first matches); a bulk update touches every member, so it collects them first.
        if let feedID {
            let feed = parameter(.integer(feedID))
            conditions.append(use == .listing
                ? "EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = e.id AND s.feed_id = \(feed))"
                : "st.entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = \(feed))")
        }
        if let category {
            let members = """
                entry_sources s JOIN feeds f ON f.id = s.feed_id
                WHERE f.category_id = (SELECT id FROM categories WHERE name = \(parameter(.text(category))))
                """
            conditions.append(use == .listing
                ? "EXISTS (SELECT 1 FROM \(members) AND s.entry_id = e.id)"
                : "st.entry_id IN (SELECT s.entry_id FROM \(members))")
        }
        if let storedAfterID { conditions.append("\(id) > \(parameter(.integer(storedAfterID)))") }
        if unreadOnly { conditions.append("st.read = 0") }
        if starredOnly { conditions.append("st.starred = 1") }
        var dates: [String] = []
        if let since { dates.append("sort_at >= \(parameter(.integer(Int64(since.timeIntervalSince1970))))") }
        if let before { dates.append("sort_at < \(parameter(.integer(Int64(before.timeIntervalSince1970))))") }
        if !dates.isEmpty {
            conditions.append(use == .listing
                ? dates.map { "e." + $0 }.joined(separator: " AND ")
                : "st.entry_id IN (SELECT id FROM entries WHERE \(dates.joined(separator: " AND ")))")
        }
        if let search {
            let query = try SearchQuery(search)
            conditions.append("\(id) IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(parameter(.text(query.expression))))")
        }
        return conditions
    }
}
