import Foundation

/// A read connection of its own (WAL lets it read while the writer writes): listings, search, counts.
/// Not thread-safe: one owner at a time.
public final class StoreReader {
    let database: Database

    /// Opens a reader on an existing store.
    public init(path: String) throws(StoreError) {
        database = try Database(path: path, create: false)
    }

    // MARK: - Articles

    /// One page of articles matching `filter`, in `sort` order, after `cursor`.
    /// - Throws: `StoreError.Kind.invalidQuery` for a bad search or cursor, never an SQL error.
    public func articles(_ filter: ArticleFilter = ArticleFilter(), sort: ArticleSort = .newest, limit: Int = 50,
                         cursor: String? = nil) throws(StoreError) -> ArticlePage {
        let sort = sort == .relevance && filter.search == nil ? .newest : sort
        var values: [SQLValue] = []
        var conditions = try filter.conditions(binding: &values)
        var join = ""
        if sort == .relevance, let search = filter.search {
            values.append(.text(try SearchQuery(search).expression))
            join = "JOIN (SELECT rowid, rank FROM entries_fts WHERE entries_fts MATCH ?\(values.count)) m ON m.rowid = e.id"
        }
        let (sortKey, order, direction) = Self.ordering(sort)
        if let cursor {
            let position = try ArticleCursor(decoding: cursor, for: sort)
            let key: SQLValue = sort == .title ? .text(position.text ?? "") : position.number.map(SQLValue.real) ?? .null
            values.append(key)
            values.append(.integer(position.id))
            conditions.append("(\(sortKey), e.id) \(direction) (?\(values.count - 1), ?\(values.count))")
        }
        values.append(.integer(Int64(max(1, min(limit, 1000)) + 1)))
        let sql = """
            SELECT e.id, st.feed_id, f.title, c.name, e.title, e.url, e.author, e.published_at, e.updated_at,
                   e.summary, e.image_url, st.read, st.starred, \(sortKey), e.search_text
            FROM entries e JOIN entry_state st ON st.entry_id = e.id \(join)
            LEFT JOIN feeds f ON f.id = st.feed_id LEFT JOIN categories c ON c.id = f.category_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(order) LIMIT ?\(values.count)
            """
        let search = try filter.search.map { (text: String) throws(StoreError) in try SearchQuery(text) }
        var articles: [Article] = []
        var sortKeys: [(number: Double?, text: String?)] = []
        do {
            try database.statement(sql).query(values) { row in
                var article = Self.article(from: row)
                article.snippet = search?.snippet(of: row.text(at: 14) ?? article.summary)
                articles.append(article)
                sortKeys.append((row.optionalDouble(at: 13), row.text(at: 13)))
            }
        } catch let error where error.kind == .sqlite {
            throw StoreError(.invalidQuery, code: error.code, message: "cannot run this search: \(filter.search ?? "")")
        }
        var nextCursor: String?
        if articles.count > max(1, limit) {
            // One row more than asked says there is a next page; the cursor is the last shown row's key.
            articles.removeLast()
            let key = sortKeys[articles.count - 1]
            nextCursor = ArticleCursor(sort: sort, number: sort == .title ? nil : key.number,
                                       text: sort == .title ? key.text : nil, id: articles[articles.count - 1].id).encoded
        }
        return ArticlePage(articles: articles, nextCursor: nextCursor)
    }

    /// One article with its content and attachments, or nil.
    public func article(id: Int64) throws(StoreError) -> Article? {
        var found: Article?
        try database.statement("""
            SELECT e.id, st.feed_id, f.title, c.name, e.title, e.url, e.author, e.published_at, e.updated_at,
                   e.summary, e.image_url, st.read, st.starred, e.content, e.enclosures
            FROM entries e JOIN entry_state st ON st.entry_id = e.id
            LEFT JOIN feeds f ON f.id = st.feed_id LEFT JOIN categories c ON c.id = f.category_id
            WHERE e.id = ?1 AND st.removed = 0
            """).query([.integer(id)]) { row in
            var article = Self.article(from: row)
            article.content = row.text(at: 13)
            article.enclosuresJSON = row.text(at: 14)
            found = article
        }
        return found
    }

    /// The id of the newest stored entry (0 when there is none): where `watch` starts.
    public func newestEntryID() throws(StoreError) -> Int64 {
        try database.integer("SELECT coalesce(max(id), 0) FROM entries") ?? 0
    }

    /// How many articles match `filter`.
    public func count(_ filter: ArticleFilter = ArticleFilter()) throws(StoreError) -> Int {
        var values: [SQLValue] = []
        let conditions = try filter.conditions(binding: &values)
        var total = 0
        try database.statement("""
            SELECT count(*) FROM entries e JOIN entry_state st ON st.entry_id = e.id
            WHERE \(conditions.joined(separator: " AND "))
            """)
            .query(values) { row in total = Int(row.int64(at: 0)) }
        return total
    }

    // MARK: - Helpers

    /// The SQL sort key, ORDER BY clause and keyset comparison of a sort.
    private static func ordering(_ sort: ArticleSort) -> (key: String, order: String, direction: String) {
        switch sort {
        case .newest: ("e.sort_at", "e.sort_at DESC, e.id DESC", "<")
        case .oldest: ("e.sort_at", "e.sort_at ASC, e.id ASC", ">")
        case .title: ("coalesce(e.title, '') COLLATE NOCASE", "coalesce(e.title, '') COLLATE NOCASE ASC, e.id ASC", ">")
        case .relevance: ("m.rank", "m.rank ASC, e.id ASC", ">")
        }
    }

    static func article(from row: Statement) -> Article {
        Article(
            id: row.int64(at: 0), feedID: row.optionalInt64(at: 1), feedTitle: row.text(at: 2), category: row.text(at: 3),
            title: row.text(at: 4), url: row.text(at: 5), author: row.text(at: 6),
            published: row.optionalInt64(at: 7).map { Date(timeIntervalSince1970: TimeInterval($0)) },
            updated: row.optionalInt64(at: 8).map { Date(timeIntervalSince1970: TimeInterval($0)) },
            summary: row.text(at: 9), imageURL: row.text(at: 10), isRead: row.int64(at: 11) != 0,
            isStarred: row.int64(at: 12) != 0)
    }
}

@available(*, unavailable)
extension StoreReader: Sendable {}
