import Foundation

extension StoreReader {
    /// Puts each article in the text its account reads (docs/SECURITY.md, "Text versions"): an entry's row
    /// holds its primary feed's text, and another feed that delivered other text has a version of its
    /// own (`FeedStore.keepText`). In a feed's own list (`subscription`) that feed's text is read;
    /// elsewhere the text of the account's oldest subscription that carries the entry
    /// (`AccountScope.readingFeed`). Most pages hold no entry that may have versions (`versioned`): one
    /// probe of their state rows says so. `withContent`: the articles carry their content and
    /// attachments (the listing shows them), which are replaced too; with `search`, their snippets.
    func readVersions(of articles: inout [Article], account: AccountID, subscription: SubscriptionID?, withContent: Bool,
                      search: SearchQuery? = nil) throws(StoreError) {
        guard !articles.isEmpty else { return }
        var values: [SQLValue] = []
        let ids = SQLValue.placeholders(for: articles.map(\.id.rawValue), appendingTo: &values)
        var versioned: [Int64] = []
        try database.statement("SELECT entry_id FROM entry_state WHERE versioned <> 0 AND entry_id IN (\(ids))")
            .query(values) { versioned.append($0.int64(at: 0)) }
        guard !versioned.isEmpty else { return }
        var texts: [Int64: Article] = [:]
        values = [.account(account)] + (subscription.map { [.subscription($0)] } ?? [])
        let placeholders = SQLValue.placeholders(for: versioned, appendingTo: &values)
        try database.statement("""
            SELECT v.entry_id, v.title, v.summary, v.content, v.author, v.published_at, v.updated_at, v.image_url,
                   v.enclosures, v.search_text
            FROM entry_versions v WHERE v.entry_id IN (\(placeholders))
              AND \(AccountScope.readsVersion("v", account: "?1", subscription: subscription == nil ? nil : "?2"))
            """).query(values) { row in
            let entry = row.int64(at: 0)
            var text = Article(id: EntryID(entry), isRead: false, isStarred: false)
            (text.title, text.summary, text.content, text.author) = (row.text(at: 1), row.text(at: 2), row.text(at: 3), row.text(at: 4))
            text.published = row.optionalInt64(at: 5).map { Date(timeIntervalSince1970: TimeInterval($0)) }
            text.updated = row.optionalInt64(at: 6).map { Date(timeIntervalSince1970: TimeInterval($0)) }
            text.imageURL = row.text(at: 7)
            text.enclosures = ArticleEnclosure.decoding(columnText: row.text(at: 8))
            text.snippet = search?.snippet(of: row.text(at: 9) ?? text.summary)
            texts[entry] = text
        }
        for index in articles.indices {
            guard let text = texts[articles[index].id.rawValue] else { continue }
            articles[index].title = text.title
            articles[index].summary = text.summary
            articles[index].author = text.author
            articles[index].published = text.published ?? articles[index].published
            articles[index].updated = text.updated
            articles[index].imageURL = text.imageURL
            if search != nil { articles[index].snippet = text.snippet }
            if withContent {
                articles[index].content = text.content
                articles[index].enclosures = text.enclosures
            }
        }
    }
}
