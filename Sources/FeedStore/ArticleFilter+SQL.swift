extension ArticleFilter {
    /// SQL conditions on entries aliased `e`, with their parameters appended to `values`.
    /// Values are always bound; only fixed SQL text is assembled here.
    /// - Parameter forBulkUpdate: membership as IN (…) rather than EXISTS: a bulk update touches every
    ///   member, so collecting them first from `entry_sources` beats checking every entry.
    /// - Parameter walkingSortIndex: for paged listings: the state flags are written `+e.read` so
    ///   SQLite walks the sort index (and stops after a page) rather than the state index.
    ///   Bulk updates get the same treatment.
    func conditions(binding values: inout [SQLValue], forBulkUpdate: Bool = false,
                    walkingSortIndex: Bool = false) throws(StoreError) -> [String] {
        // Both paged listings and bulk updates find their rows another way (the sort index, the
        // sources): the state index would make SQLite scan every entry.
        let flag = walkingSortIndex || forBulkUpdate ? "+e." : "e."
        var conditions = ["\(flag)removed = 0"]
        func parameter(_ value: SQLValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        // EXISTS, checked row by row while the sort index is walked: a page needs only the first
        // matches, where IN (…) would first collect every entry of the feed or category.
        if forBulkUpdate, let feedID {
            conditions.append("e.id IN (SELECT entry_id FROM entry_sources WHERE feed_id = \(parameter(.integer(feedID))))")
        } else if let feedID {
            conditions.append("EXISTS (SELECT 1 FROM entry_sources s WHERE s.entry_id = e.id AND s.feed_id = \(parameter(.integer(feedID))))")
        }
        if forBulkUpdate, let category {
            conditions.append("""
                e.id IN (SELECT s.entry_id FROM entry_sources s JOIN feeds f ON f.id = s.feed_id
                         WHERE f.category_id = (SELECT id FROM categories WHERE name = \(parameter(.text(category)))))
                """)
        } else if let category {
            conditions.append("""
                EXISTS (SELECT 1 FROM entry_sources s JOIN feeds f ON f.id = s.feed_id
                        WHERE s.entry_id = e.id AND f.category_id = (SELECT id FROM categories WHERE name = \(parameter(.text(category)))))
                """)
        }
        if let storedAfterID { conditions.append("e.id > \(parameter(.integer(storedAfterID)))") }
        if unreadOnly { conditions.append("\(flag)read = 0") }
        if starredOnly { conditions.append("\(flag)starred = 1") }
        if let since { conditions.append("e.sort_at >= \(parameter(.integer(Int64(since.timeIntervalSince1970))))") }
        if let before { conditions.append("e.sort_at < \(parameter(.integer(Int64(before.timeIntervalSince1970))))") }
        if let search {
            let query = try SearchQuery(search)
            conditions.append("e.id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(parameter(.text(query.expression))))")
        }
        return conditions
    }
}
