import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// The Fever API (Reeder, Unread, ReadKit and others still offer it) at `/fever/` and
/// `/api/fever.php`: one endpoint, selectors in the query (`?api&items&since_id=…`), `api_key` (md5
/// of "name:password", accepted only while `aggregatorctl user fever on`) and marks in the form body.
/// Every answer is JSON with `api_version`, `auth` and `last_refreshed_on_time`; a refused login is a
/// 200 with `auth: 0`, as clients expect. Ids lists are comma-separated strings; items come 50 a page.
struct FeverAPI: Sendable {
    let service: AggregatorService

    static let pageSize = 50

    static func serves(_ path: String) -> Bool {
        ["/fever", "/fever/", "/api/fever.php", "/api/fever.php/"].contains(path)
    }

    func handle(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        let form = request.headers["content-type"]?.lowercased().hasPrefix("multipart/") == true
            ? [] : FormBody.pairs(String(decoding: request.body, as: UTF8.self))
        let arguments = request.query + form
        func value(_ name: String) -> String? { arguments.last { $0.name == name }?.value }
        func has(_ name: String) -> Bool { request.query.contains { $0.name == name } }

        let verdict = await service.authenticate(.feverKey(value("api_key") ?? ""), from: request.clientAddress)
        var answer: [String: JSONValue] = ["api_version": 3, "auth": verdict.account != nil ? 1 : 0]
        let account: AccountIdentity
        switch verdict {
        case .granted(let granted):
            account = granted
        case .throttled:
            return ("/fever", Login.refusal(verdict))
        case .unavailable:
            return ("/fever", HTTPFrontEnd.error("the database cannot be read now; retry later", status: 503))
        case .refused, .noAccount:
            answer["last_refreshed_on_time"] = 0
            return ("/fever", MinifluxJSON.response(.object(answer)))
        }
        do {
            let status = try await service.status(for: account)
            answer["last_refreshed_on_time"] = .from(status.lastRound.map { Int64($0.finished.timeIntervalSince1970) } ?? 0)
            if let mark = value("mark") {
                let state = value("as") ?? ""
                try await self.mark(mark, as: state, id: Int64(value("id") ?? "") ?? -1, before: Int64(value("before") ?? ""),
                                    for: account)
                // As FreshRSS answers a mark: the list it changed, so the client need not ask again.
                switch state {
                case "read", "unread": answer["unread_item_ids"] = .string(try await ids(read: false, for: account))
                case "saved", "unsaved": answer["saved_item_ids"] = .string(try await ids(starred: true, for: account))
                default: break
                }
            }
            if has("groups") || has("feeds") {
                let feeds = try await service.feeds(for: account)
                if has("groups") {
                    answer["groups"] = .array(try await service.categories(for: account).map { ["id": .from($0.id), "title": .string($0.name)] })
                }
                if has("feeds") { answer["feeds"] = .array(feeds.map(Self.feed)) }
                answer["feeds_groups"] = Self.feedsGroups(feeds)
            }
            if has("favicons") {
                answer["favicons"] = .array(try await service.icons(for: account).map { ["id": .from($0.id), "data": .string(FeedIcons.dataText($0))] })
            }
            if has("links") { answer["links"] = [] }  // Fever's "hot links": not kept
            if has("items") {
                let (items, total) = try await self.items(request, for: account)
                answer["items"] = .array(items)
                answer["total_items"] = .from(total)
            }
            if has("unread_item_ids") { answer["unread_item_ids"] = .string(try await ids(read: false, for: account)) }
            if has("saved_item_ids") { answer["saved_item_ids"] = .string(try await ids(starred: true, for: account)) }
            return ("/fever", MinifluxJSON.response(.object(answer)))
        } catch let error as AggregatorError {
            return ("/fever", HTTPFrontEnd.error(error.description, status: MinifluxAPI.status(of: error)))
        } catch {
            return ("/fever", HTTPFrontEnd.error(String(describing: error), status: 500))
        }
    }

    // MARK: - Reads

    /// 50 items: after `since_id` (oldest first), before `max_id` (newest first; 0: the newest), the
    /// ones `with_ids` names (at most 50), or the oldest.
    private func items(_ request: HTTPRequest, for account: AccountIdentity) async throws -> ([JSONValue], Int) {
        var (query, paging) = (ArticleQuery(), EntryPaging(order: .id, limit: Self.pageSize))
        if let since = request.queryValue("since_id").flatMap({ Int64($0) }) {
            query.afterID = since > 0 ? EntryID(since) : nil
        } else if let max = request.queryValue("max_id").flatMap({ Int64($0) }) {
            paging.ascending = false
            query.beforeID = max > 0 ? EntryID(max) : nil
        } else if let wanted = request.queryValue("with_ids") {
            query.ids = wanted.split(separator: ",").prefix(Self.pageSize)
                .compactMap { Int64($0.trimmingCharacters(in: .whitespaces)).map { EntryID($0) } }
        }
        let (entries, _) = try await service.entries(query, paging, for: account)
        return (entries.map(Self.item), try await service.entryCounts(for: account).entries)
    }

    /// The ids of the unread or starred entries, oldest first, as Fever writes them: "1,2,3".
    private func ids(read: Bool? = nil, starred: Bool? = nil, for account: AccountIdentity) async throws -> String {
        var query = ArticleQuery()
        (query.read, query.starred) = (read, starred)
        // Written as bytes: 100,000 ids as Strings joined cost more than reading them (measured).
        var text: [UInt8] = []
        for id in try await service.entryIDs(query, EntryPaging(order: .id, limit: .max), for: account) {
            if !text.isEmpty { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: id.description.utf8)
        }
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - Marks

    /// `mark=item&as=read|unread|saved|unsaved&id=N`; `mark=feed|group&as=read&id=N&before=TIME`
    /// (group 0: everything), which marks what was stored before TIME (the client's last look).
    private func mark(_ kind: String, as state: String, id: Int64, before: Int64?,
                      for account: AccountIdentity) async throws {
        switch (kind, state) {
        case ("item", _):
            guard id > 0 else { return }
            let (read, starred): (Bool?, Bool?) = switch state {
            case "read": (true, nil)
            case "unread": (false, nil)
            case "saved": (nil, true)
            case "unsaved": (nil, false)
            default: (nil, nil)
            }
            guard read != nil || starred != nil else { return }
            _ = try await service.mark(.ids([EntryID(id)]), read: read, starred: starred, for: account)
        case ("feed", "read"), ("group", "read"):
            // In one transaction of the store's, what was stored up to `before` (what the app had seen).
            var query = ArticleQuery(unreadOnly: true)
            if let before, before > 0 { query.storedBefore = Date(timeIntervalSince1970: Double(before) + 1) }
            if kind == "feed" {
                guard id > 0 else { return }
                query.feed = .id(SubscriptionID(id))
            } else if id > 0 {
                query.category = try await service.category(id: id, for: account).name
            } else if id < 0 {
                return  // Fever's Sparks: none here
            }
            _ = try await service.mark(.matching(query), read: true, starred: nil, for: account)
        default:
            return
        }
    }

    // MARK: - Shapes

    private static func feed(_ feed: FeedSummary) -> JSONValue {
        ["id": .from(feed.id), "favicon_id": .from(feed.icon?.id ?? 0), "title": .string(feed.title ?? feed.url), "url": .string(feed.url),
         "site_url": .string(feed.siteURL ?? feed.url), "is_spark": 0,
         "last_updated_on_time": .from(feed.checkedAt.map { Int64($0.timeIntervalSince1970) } ?? 0)]
    }

    private static func feedsGroups(_ feeds: [FeedSummary]) -> JSONValue {
        let grouped = Dictionary(grouping: feeds.filter { $0.categoryID != nil }, by: { $0.categoryID! })
        return .array(grouped.keys.sorted().map { group in
            ["group_id": .from(group), "feed_ids": .string(grouped[group]!.map { $0.id.description }.joined(separator: ","))]
        })
    }

    private static func item(_ entry: ListedEntry) -> JSONValue {
        let article = entry.article
        return ["id": .from(article.id), "feed_id": .from(article.feedID ?? 0), "title": .string(article.title ?? ""),
                "author": .string(article.author ?? ""),
                "html": .string(HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url)),
                "url": .string(article.url ?? ""), "is_saved": article.isStarred ? 1 : 0, "is_read": article.isRead ? 1 : 0,
                "created_on_time": .from(Int64((article.published ?? entry.createdAt).timeIntervalSince1970))]
    }
}
