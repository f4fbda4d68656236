import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import HTTPServer

extension MinifluxAPI {
    // MARK: - Categories

    /// Every category, with the uncategorized one when feeds are filed under none; `?counts=true`
    /// adds `feed_count` and `total_unread`.
    func categories(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let counts = try request.flag("counts") ?? false
        var list = try await service.categories(for: request.account).map { MinifluxJSON.category($0, counts: counts, user: request.account.id) }
        let loose = try await service.feeds(for: request.account).filter { $0.categoryID == nil }
        if !loose.isEmpty {
            list.append(MinifluxJSON.category(id: MinifluxJSON.uncategorizedID, title: MinifluxJSON.uncategorizedTitle,
                                              feeds: counts ? loose.count : nil,
                                              unread: counts ? loose.reduce(0) { $0 + $1.unread } : nil, user: request.account.id))
        }
        return MinifluxJSON.response(.array(list))
    }

    /// `{"title", "hide_globally"}`.
    func createCategory(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let body = try request.jsonObject()
        let title = try Self.title(in: body)
        let hidden = try Self.hideGlobally(in: body)
        var category: CategorySummary
        do {
            category = try await service.createCategory(title, for: request.account)
        } catch .alreadySubscribed(let message) {
            throw MinifluxError(message)  // Miniflux: 400 "This category already exists"
        }
        if hidden == true { category = try await service.setCategoryHidden(id: category.id, true, for: request.account) }
        return MinifluxJSON.response(MinifluxJSON.category(category, user: request.account.id), status: 201)
    }

    /// `{"title", "hide_globally"}`, either or both (as Miniflux: a field left out stays as it is).
    func updateCategory(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("categoryID")
        let body = try request.jsonObject()
        var title: String?
        if let value = body["title"], !value.isNull { title = try Self.title(in: body) }
        let hidden = try Self.hideGlobally(in: body)
        guard title != nil || hidden != nil else { throw MinifluxError("give a title and/or hide_globally") }
        guard id != MinifluxJSON.uncategorizedID else { throw MinifluxError("the uncategorized feeds cannot be changed") }
        var category = try await service.category(id: id, for: request.account)
        if let title { category = try await service.renameCategory(id: id, to: title, for: request.account) }
        if let hidden { category = try await service.setCategoryHidden(id: category.id, hidden, for: request.account) }
        return MinifluxJSON.response(MinifluxJSON.category(category, user: request.account.id), status: 201)
    }

    /// The optional `hide_globally` of a category request.
    private static func hideGlobally(in body: [String: JSONValue]) throws(MinifluxError) -> Bool? {
        guard let value = body["hide_globally"], !value.isNull else { return nil }
        guard let flag = value.bool else { throw MinifluxError("hide_globally must be true or false") }
        return flag
    }

    func deleteCategory(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("categoryID")
        guard id != MinifluxJSON.uncategorizedID else { throw MinifluxError("the uncategorized feeds are not a category") }
        try await service.removeCategory(id: id, for: request.account)
        return MinifluxJSON.noContent
    }

    func categoryFeeds(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try await categoryID(request)
        let feeds = try await service.feeds(for: request.account).filter { ($0.categoryID ?? MinifluxJSON.uncategorizedID) == id }
        return MinifluxJSON.response(.array(feeds.map { MinifluxJSON.feed($0, user: request.account.id) }))
    }

    func categoryEntries(_ request: MinifluxRequest) async throws -> HTTPResponse {
        try await listEntries(request, category: try await categoryID(request))
    }

    func categoryEntry(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let category = try await categoryID(request)
        let entry = try await shownEntry(request)
        let feeds = try await service.feeds(for: request.account)
        let members = Set(feeds.filter { ($0.categoryID ?? MinifluxJSON.uncategorizedID) == category }.map(\.id))
        guard let feedID = entry.article.feedID, members.contains(feedID) else {
            throw AggregatorError.notFound("no entry \(entry.article.id) in category \(category)")
        }
        return MinifluxJSON.response(MinifluxJSON.entry(entry, feed: feeds.first { $0.id == feedID }, user: request.account.id))
    }

    func markCategoryRead(_ request: MinifluxRequest) async throws -> HTTPResponse {
        _ = try await service.mark(.matching(try await categoryQuery(try await categoryID(request), request)), read: true, starred: nil, for: request.account)
        return MinifluxJSON.noContent
    }

    func refreshCategory(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try await categoryID(request)
        let feeds = try await service.feeds(for: request.account).filter { ($0.categoryID ?? MinifluxJSON.uncategorizedID) == id }
        _ = try await service.refreshOnDemand(feeds.map(\.id), skippingLimited: true, for: request.account)
        return MinifluxJSON.noContent
    }

    // MARK: - Helpers

    /// The category id of the route, checked to exist (the uncategorized one included).
    func categoryID(_ request: MinifluxRequest) async throws -> Int64 {
        let id = try request.id("categoryID")
        if id != MinifluxJSON.uncategorizedID { _ = try await service.category(id: id, for: request.account) }
        return id
    }

    /// The articles of a category (or of the feeds filed under none), for marks and listings.
    func categoryQuery(_ id: Int64, _ request: MinifluxRequest) async throws -> ArticleQuery {
        guard id != MinifluxJSON.uncategorizedID else { return ArticleQuery(uncategorized: true) }
        return ArticleQuery(category: try await service.category(id: id, for: request.account).name)
    }

    static func title(in body: [String: JSONValue]) throws(MinifluxError) -> String {
        guard let title = body["title"]?.string, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw MinifluxError("the category title is required")
        }
        return title
    }
}
