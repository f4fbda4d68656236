import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import HTTPServer

extension MinifluxAPI {
    // MARK: - Entries

    func entries(_ request: MinifluxRequest) async throws -> HTTPResponse {
        try await listEntries(request)
    }

    func entry(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let entry = try await shownEntry(request)
        let feed = try await entry.article.feedID.asyncMap { try await service.feed(.id($0), for: request.account) }
        return MinifluxJSON.response(MinifluxJSON.entry(entry, feed: feed, user: request.account.id))
    }

    /// `{"total", "entry_ids"}`: the page of ids the filters select, cut by the database, and the
    /// total (a listing of no entries counts them: the kept counters when it can).
    func entryIDs(_ request: MinifluxRequest) async throws -> HTTPResponse {
        guard let (query, paging) = try await listing(request) else { return MinifluxJSON.response(["total": 0, "entry_ids": []]) }
        var counting = paging
        (counting.limit, counting.offset) = (0, 0)
        let total = try await service.entries(query, counting, for: request.account).total
        let ids = try await service.entryIDs(query, paging, for: request.account)
        return MinifluxJSON.response(["total": .from(total), "entry_ids": .array(ids.map { .from($0) })])
    }

    /// `{"content", "reading_time"}`: the article of the entry's page (docs/ARCHITECTURE.md), extracted once per
    /// entry; `update_content=true` shows it instead of the feed's content to this account from now on.
    func fetchContent(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let update = request.http.queryValue("update_content").map { ["true", "1"].contains($0.lowercased()) } ?? false
        let content = try await service.fetchContent(entryID: EntryID(try request.id("entryID")), update: update, for: request.account)
        return MinifluxJSON.response(["content": .string(content), "reading_time": .from(MinifluxJSON.readingTime(of: content))])
    }

    /// `{"title", "content"}` (either or both): the account's own version of the entry, which only it
    /// sees; answered 201 with the entry as it now is, as Miniflux answers.
    func editEntry(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("entryID")
        let body = try request.jsonObject()
        func text(_ name: String) throws -> String? {
            guard let value = body[name], !value.isNull else { return nil }
            guard let text = value.string else { throw MinifluxError("\(name) must be a string") }
            return text
        }
        let edited: ListedEntry
        do {
            edited = try await service.editEntry(id: EntryID(id), title: try text("title"), content: try text("content"),
                                                 for: request.account)
        } catch let error as AggregatorError {
            if case .notFound = error { throw error }
            throw MinifluxError(error.description)
        }
        let feed = try await edited.article.feedID.asyncMap { try await service.feed(.id($0), for: request.account) }
        return MinifluxJSON.response(MinifluxJSON.entry(edited, feed: feed, user: request.account.id), status: 201)
    }

    /// `{"url", "title", "content", "author", "external_id", "published_at", "status", "starred"}`: an
    /// entry for one of the account's feeds, seen by that account only. Answered `{"id"}`, 201 when the
    /// feed gained it and 200 when it carried it already, as Miniflux answers (a re-import is harmless).
    func importEntry(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let feedID = try request.id("feedID")
        _ = try await service.feed(.id(SubscriptionID(feedID)), for: request.account)  // another account's: 404 before the body
        let body = try request.jsonObject()
        func text(_ name: String) throws -> String? {
            guard let value = body[name], !value.isNull else { return nil }
            guard let text = value.string else { throw MinifluxError("\(name) must be a string") }
            return text
        }
        let status = try text("status").flatMap { $0.isEmpty ? nil : $0 } ?? "read"  // Miniflux's default
        guard status == "read" || status == "unread" else {
            throw MinifluxError("status must be read or unread (a removed entry is not imported)")
        }
        var published: Date?
        if let value = body["published_at"], !value.isNull {
            guard let seconds = value.number, seconds.rounded() == seconds, let whole = Int64(exactly: seconds) else {
                throw MinifluxError("published_at must be a Unix time in seconds")
            }
            if whole > 0 { published = Date(timeIntervalSince1970: Double(whole)) }
        }
        var starred = false
        if let value = body["starred"], !value.isNull {
            guard let flag = value.bool else { throw MinifluxError("starred must be true or false") }
            starred = flag
        }
        let entry = EntryImport(url: try text("url") ?? "", title: try text("title"), content: try text("content"),
                                author: try text("author"), externalID: try text("external_id"), published: published,
                                isRead: status == "read", isStarred: starred)
        let imported = try await service.importEntry(entry, feedID: SubscriptionID(feedID), for: request.account)
        return MinifluxJSON.response(["id": .from(imported.id)], status: imported.isNew ? 201 : 200)
    }

    /// The route's entry as the account sees it (its edits, where it stopped in the enclosures).
    func shownEntry(_ request: MinifluxRequest) async throws -> ListedEntry {
        try await service.entry(id: EntryID(try request.id("entryID")), for: request.account)
    }

    // MARK: - Enclosures

    func enclosure(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(MinifluxJSON.enclosure(try await service.enclosure(id: try request.id("enclosureID"),
                                                                                 for: request.account), user: request.account.id))
    }

    /// `{"media_progression": seconds}`: where the account stopped in it (Miniflux answers 204).
    func updateEnclosure(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("enclosureID")
        let seconds = try request.jsonObject()["media_progression"]?.number ?? -1
        guard seconds >= 0, seconds.rounded() == seconds, let whole = Int64(exactly: seconds) else {
            throw MinifluxError("media_progression must be a whole number of seconds, not negative")
        }
        try await service.setMediaProgression(whole, enclosureID: id, for: request.account)
        return MinifluxJSON.noContent
    }

    /// `{"entry_ids": [...], "status": "read"|"unread"}` and/or `"starred": bool`.
    func updateEntries(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let body = try request.jsonObject()
        guard let values = body["entry_ids"]?.array, !values.isEmpty, values.count <= 10_000 else {
            throw MinifluxError("entry_ids must be a list of 1 to 10000 entry ids")
        }
        let ids = values.compactMap { $0.int.flatMap { $0 > 0 ? Int64($0) : nil } }
        guard ids.count == values.count else { throw MinifluxError("entry_ids must be positive integers") }
        var read: Bool?
        if let status = body["status"], !status.isNull {
            guard let text = status.string, text == "read" || text == "unread" else {
                throw MinifluxError(#"invalid status: must be "read" or "unread""#)
            }
            read = text == "read"
        }
        var starred: Bool?
        if let value = body["starred"], !value.isNull {
            guard let flag = value.bool else { throw MinifluxError("starred must be true or false") }
            starred = flag
        }
        guard read != nil || starred != nil else { throw MinifluxError("give status and/or starred") }
        _ = try await service.mark(.ids(ids.map { EntryID($0) }), read: read, starred: starred, for: request.account)
        return MinifluxJSON.noContent
    }

    func toggleStar(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let entry = try await shownEntry(request)
        _ = try await service.mark(.ids([entry.article.id]), read: nil, starred: !entry.article.isStarred, for: request.account)
        return MinifluxJSON.noContent
    }

    func markEverythingRead(_ request: MinifluxRequest) async throws -> HTTPResponse {
        guard AccountID(try request.id("userID")) == request.account.id else {
            throw MinifluxError("you can only mark your own entries", status: 403)
        }
        _ = try await service.mark(.matching(ArticleQuery()), read: true, starred: nil, for: request.account)
        return MinifluxJSON.noContent
    }

    /// Hides the account's read entries (not the starred ones) from every listing: 202, as Miniflux
    /// answers (it removes them in the background; here it is done before the answer).
    func flushHistory(_ request: MinifluxRequest) async throws -> HTTPResponse {
        try await service.flushHistory(for: request.account)
        return HTTPResponse(status: 202)
    }

    // MARK: - Listing

    /// `{"total", "entries"}` for the filters of the query (within a feed or category of the route).
    func listEntries(_ request: MinifluxRequest, feed: Int64? = nil, category: Int64? = nil) async throws -> HTTPResponse {
        guard let (query, paging) = try await listing(request, feed: feed, category: category) else {
            return MinifluxJSON.response(["total": 0, "entries": []])  // status=removed: we keep none
        }
        let (entries, total) = try await service.entries(query, paging, for: request.account)
        // Only the page's feeds: reading all 5,000 of a large subscription list cost more than the page.
        let routeFeed: SubscriptionID? = if case .id(let id) = query.feed { id } else { nil }
        let feedIDs = Set(entries.compactMap(\.article.feedID) + [routeFeed].compactMap { $0 })
        let feeds = Dictionary(try await service.feeds(ids: feedIDs, for: request.account).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let listedFeed = routeFeed.flatMap { feeds[$0] }
        return MinifluxJSON.response(["total": .from(total), "entries": .array(entries.map { entry in
            MinifluxJSON.entry(entry, feed: listedFeed ?? entry.article.feedID.flatMap { feeds[$0] }, user: request.account.id)
        })])
    }

    /// The query and page the request asks for, or nil when it can match nothing (only removed
    /// entries). Every parameter is checked; a bad one is a 400 naming it.
    func listing(_ request: MinifluxRequest, feed: Int64? = nil,
                 category: Int64? = nil) async throws -> (query: ArticleQuery, paging: EntryPaging)? {
        var (query, paging) = (ArticleQuery(), EntryPaging())
        let statuses = Set(request.values("status"))
        guard statuses.isSubset(of: ["read", "unread", "removed"]) else {
            throw MinifluxError("invalid status: \(statuses.sorted().joined(separator: ", ")) (use read, unread or removed)")
        }
        if statuses == ["removed"] { return nil }
        if statuses.contains("read") != statuses.contains("unread") { query.read = statuses.contains("read") }
        if let order = request.http.queryValue("order") {
            guard let known = EntryPaging.Order(rawValue: order) else {
                throw MinifluxError("invalid order: \(order) (use \(EntryPaging.Order.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            paging.order = known
        }
        switch request.http.queryValue("direction") ?? "asc" {
        case "asc": paging.ascending = true
        case "desc": paging.ascending = false
        case let other: throw MinifluxError("invalid direction: \(other) (use asc or desc)")
        }
        paging.limit = Int(try request.integer("limit", in: 0...1_000_000) ?? 100)
        if paging.limit == 0 { paging.limit = AggregatorService.maximumPageSize }  // Miniflux: 0 means no limit
        paging.offset = Int(try request.integer("offset", in: 0...Int64(Int32.max)) ?? 0)
        query.starred = try request.flag("starred")
        query.globallyVisibleOnly = try request.flag("globally_visible") ?? false
        if let words = request.http.queryValue("search"), !words.isEmpty { query.search = words }

        let categoryID = try category ?? request.integer("category_id", in: 1...Int64.max)
        if let categoryID {
            if categoryID == MinifluxJSON.uncategorizedID {
                query.uncategorized = true
            } else {
                guard let found = try? await service.category(id: categoryID, for: request.account) else { throw MinifluxError("invalid category ID") }
                query.category = found.name
            }
        }
        if let feed {
            query.feed = .id(try await service.feed(.id(SubscriptionID(feed)), for: request.account).id)  // the route's feed: 404 when not there
        } else if let feedID = try request.integer("feed_id", in: 1...Int64.max) {
            guard (try? await service.feed(.id(SubscriptionID(feedID)), for: request.account)) != nil else { throw MinifluxError("invalid feed ID") }
            query.feed = .id(SubscriptionID(feedID))
        }
        // As Miniflux: 0 for a date or an entry id means not given.
        func date(_ name: String) throws(MinifluxError) -> Date? {
            try request.integer(name, in: 0...Int64(Int32.max) * 4).flatMap { $0 == 0 ? nil : Date(timeIntervalSince1970: Double($0)) }
        }
        query.since = try date("published_after") ?? date("after")
        query.before = try date("published_before") ?? date("before")
        query.changedAfter = try date("changed_after")
        query.changedBefore = try date("changed_before")
        query.afterID = try request.integer("after_entry_id").flatMap { $0 == 0 ? nil : EntryID($0) }
        query.beforeID = try request.integer("before_entry_id").flatMap { $0 == 0 ? nil : EntryID($0) }
        return (query, paging)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
