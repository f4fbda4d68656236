import Foundation

extension StoreReader {
    /// Puts each article in the text its account reads (docs/SECURITY.md, "Text versions"): an entry's row
    /// holds its primary feed's text, and another feed that delivered other text has a version of its
    /// own (`FeedStore.keepText`). In a feed's own list (`subscription`) that feed's text is read;
    /// elsewhere the text of the account's oldest subscription that carries the entry. Most pages hold
    /// no entry with versions: one probe of their ids says so. `withContent`: the articles carry their
    /// content and attachments (the listing shows them), which are replaced too.
    func readVersions(of articles: inout [Article], account: Int64, subscription: Int64?, withContent: Bool) throws(StoreError) {
        guard !articles.isEmpty else { return }
        var values: [SQLValue] = []
        let ids = SQLValue.placeholders(for: articles.map(\.id), appendingTo: &values)
        var versioned: [Int64] = []
        try database.statement("SELECT DISTINCT entry_id FROM entry_versions WHERE entry_id IN (\(ids))")
            .query(values) { versioned.append($0.int64(at: 0)) }
        guard !versioned.isEmpty else { return }
        let feeds = try readingFeeds(of: versioned, account: account, subscription: subscription)
        var texts: [Int64: Article] = [:]
        values = []
        let placeholders = SQLValue.placeholders(for: versioned, appendingTo: &values)
        try database.statement("""
            SELECT entry_id, feed_id, title, summary, content, author, published_at, updated_at, image_url, enclosures
            FROM entry_versions WHERE entry_id IN (\(placeholders))
            """).query(values) { row in
            let entry = row.int64(at: 0)
            guard feeds[entry] == row.int64(at: 1) else { return }
            var text = Article(id: entry, isRead: false, isStarred: false)
            (text.title, text.summary, text.content, text.author) = (row.text(at: 2), row.text(at: 3), row.text(at: 4), row.text(at: 5))
            text.published = row.optionalInt64(at: 6).map { Date(timeIntervalSince1970: TimeInterval($0)) }
            text.updated = row.optionalInt64(at: 7).map { Date(timeIntervalSince1970: TimeInterval($0)) }
            text.imageURL = row.text(at: 8)
            text.enclosures = ArticleEnclosure.decoding(columnText: row.text(at: 9))
            texts[entry] = text
        }
        for index in articles.indices {
            guard let text = texts[articles[index].id] else { continue }
            articles[index].title = text.title
            articles[index].summary = text.summary
            articles[index].author = text.author
            articles[index].published = text.published ?? articles[index].published
            articles[index].updated = text.updated
            articles[index].imageURL = text.imageURL
            if withContent {
                articles[index].content = text.content
                articles[index].enclosures = text.enclosures
            }
        }
    }

    /// The feed each of `entries` is read through by `account`: the feed of `subscription`, else of
    /// its oldest subscription carrying the entry.
    private func readingFeeds(of entries: [Int64], account: Int64, subscription: Int64?) throws(StoreError) -> [Int64: Int64] {
        var feeds: [Int64: Int64] = [:]
        if let subscription {
            let feed = try database.integer("SELECT feed_id FROM subscriptions WHERE id = ?1 AND account_id = ?2",
                                            [.integer(subscription), .integer(account)])
            for entry in entries { feeds[entry] = feed }
            return feeds
        }
        var values: [SQLValue] = [.integer(account)]
        let placeholders = SQLValue.placeholders(for: entries, appendingTo: &values)
        // Newest first: the last row of each entry, its oldest subscription, is the one kept.
        try database.statement("""
            SELECT s.entry_id, u.feed_id FROM entry_sources s JOIN subscriptions u ON u.feed_id = s.feed_id AND u.account_id = ?1
            WHERE s.entry_id IN (\(placeholders)) ORDER BY u.added_at DESC, u.id DESC
            """).query(values) { row in feeds[row.int64(at: 0)] = row.int64(at: 1) }
        return feeds
    }
}
