import AggregatorCore
import ControlProtocol
import FeedParser
import FeedStore
import Foundation
import HTTPServer

/// Miniflux's JSON shapes, made from the service's types. Fields Miniflux has and we have no use
/// for (scraper rules, proxies, integrations) are there with their empty values, because apps decode
/// the objects strictly.
enum MinifluxJSON {
    /// Feeds under no category appear in one category of their own, with this id (it fits in 32
    /// bits, which some apps parse ids into, and no real category reaches it).
    static let uncategorizedID: Int64 = 2_147_483_647
    static let uncategorizedTitle = "Uncategorized"

    static func response(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        .json(Data(value.encoded()), status: status)
    }

    static let noContent = HTTPResponse(status: 204)

    /// Miniflux's user object: the account, and its settings (defaults filled in).
    static func user(_ account: AccountSummary) -> JSONValue {
        var object = account.settings.all
        object.merge([
            "id": .from(account.id), "username": .string(account.name), "is_admin": .bool(account.isAdmin),
            "google_id": "", "openid_connect_id": "", "last_login_at": timestamp(account.lastLoginAt),
        ]) { $1 }
        return .object(object)
    }

    static func timestamp(_ date: Date?) -> JSONValue {
        // Go's zero time, as Miniflux writes a date it does not have.
        .string(date.map { rfc3339(secondsSinceEpoch: Int64($0.timeIntervalSince1970.rounded(.down))) } ?? "0001-01-01T00:00:00Z")
    }

    static func category(id: Int64, title: String, feeds: Int? = nil, unread: Int? = nil, hidden: Bool = false,
                         user: AccountID) -> JSONValue {
        var object: [String: JSONValue] = ["id": .from(id), "title": .string(title), "user_id": .from(user), "hide_globally": .bool(hidden)]
        if let feeds { object["feed_count"] = .from(feeds) }
        if let unread { object["total_unread"] = .from(unread) }
        return .object(object)
    }

    static func category(_ category: CategorySummary, counts: Bool = false, user: AccountID) -> JSONValue {
        Self.category(id: category.id, title: category.name, feeds: counts ? category.feeds : nil,
                      unread: counts ? category.unread : nil, hidden: category.hideGlobally, user: user)
    }

    static func feed(_ feed: FeedSummary, user: AccountID) -> JSONValue {
        [
            "id": .from(feed.id), "user_id": .from(user), "feed_url": .string(feed.url), "site_url": .string(feed.siteURL ?? feed.url),
            "title": .string(feed.title ?? feed.url), "description": "", "language": "",
            "checked_at": timestamp(feed.checkedAt), "next_check_at": timestamp(feed.nextCheckAt),
            "etag_header": "", "last_modified_header": "",
            "parsing_error_message": .string(feed.status == .ok ? "" : feed.lastError ?? ""),
            "parsing_error_count": .from(feed.status == .ok ? 0 : feed.errorCount),
            "scraper_rules": .string(feed.scraperRules ?? ""), "rewrite_rules": "", "blocklist_rules": .string(feed.blocklistRules ?? ""), "keeplist_rules": .string(feed.keeplistRules ?? ""),
            "block_filter_entry_rules": "", "keep_filter_entry_rules": "", "urlrewrite_rules": "",
            // The secrets are write-only: "" whether set or not.
            "user_agent": .string(feed.fetchSettings.userAgent ?? ""), "cookie": "",
            "username": .string(feed.fetchSettings.username ?? ""), "password": "",
            "disabled": .bool(feed.status == .disabled), "no_media_player": false,
            "ignore_http_cache": .bool(feed.fetchSettings.ignoresHTTPCache),
            "allow_self_signed_certificates": .bool(feed.fetchSettings.allowsSelfSignedCertificates), "fetch_via_proxy": false, "hide_globally": .bool(feed.hideGlobally),
            "disable_http2": false, "pushover_enabled": false, "ntfy_enabled": false, "crawler": .bool(feed.crawler),
            "ignore_entry_updates": false, "apprise_service_urls": "", "webhook_url": "", "ntfy_priority": 0,
            "ntfy_topic": "", "pushover_priority": 0, "proxy_url": "",
            "category": category(id: feed.categoryID ?? uncategorizedID, title: feed.category ?? uncategorizedTitle,
                                 hidden: feed.isCategoryHidden, user: user),
            "icon": feed.icon.map { ["feed_id": .from(feed.id), "icon_id": .from($0.id), "external_icon_id": .string($0.digest)] }
                ?? .null,
        ]
    }

    /// An enclosure, in an entry and at `GET /v1/enclosures/{id}`.
    static func enclosure(_ item: EnclosureItem, user: AccountID) -> JSONValue {
        ["id": .from(item.id), "user_id": .from(user), "entry_id": .from(item.entryID), "url": .string(item.enclosure.url),
         "mime_type": .string(item.enclosure.type ?? "application/octet-stream"), "size": .from(item.enclosure.length ?? 0),
         "media_progression": .number(Double(item.enclosure.mediaProgression))]
    }

    /// `GET /v1/icons/{id}` and `/v1/feeds/{id}/icon`.
    static func icon(_ icon: FeedIcon) -> JSONValue {
        ["id": .from(icon.id), "data": .string(FeedIcons.dataText(icon)), "mime_type": .string(icon.mimeType)]
    }

    /// An entry; `feed` is the feed it is listed under (for a cross-posted entry, the one asked about).
    static func entry(_ entry: ListedEntry, feed: FeedSummary?, user: AccountID) -> JSONValue {
        let article = entry.article
        let feedID = feed?.id ?? article.feedID ?? 0
        let content = HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url)
        var object: [String: JSONValue] = [
            "id": .from(article.id), "user_id": .from(user), "feed_id": .from(feedID),
            "status": .string(article.isRead ? "read" : "unread"), "hash": .string(article.id.description),
            "title": .string(article.title ?? ""), "url": .string(article.url ?? ""), "comments_url": "", "language": "",
            "published_at": timestamp(article.published ?? entry.createdAt), "created_at": timestamp(entry.createdAt),
            "changed_at": timestamp(entry.changedAt), "content": .string(content), "author": .string(article.author ?? ""),
            "share_code": "", "starred": .bool(article.isStarred), "reading_time": .from(readingTime(of: content)),
            "tags": [],
            "enclosures": article.enclosures.isEmpty ? .null : .array(article.enclosures.enumerated().map { index, enclosure in
                Self.enclosure(EnclosureItem(entryID: article.id, index: index, enclosure: enclosure), user: user)
            }),
        ]
        // Apps read entry.feed without checking it is there: a starred entry kept after its feed was
        // removed carries a stand-in (id 0, as feed_id), titled as removed, under the uncategorized one.
        object["feed"] = Self.feed(feed ?? FeedSummary(id: 0, url: "", title: "Removed feed",
                                                       siteURL: article.url.flatMap(Self.origin), status: .disabled), user: user)
        return .object(object)
    }

    /// "https://example.org" of "https://example.org/post/1".
    private static func origin(_ url: String) -> String? {
        guard var components = URLComponents(string: url), components.host != nil else { return nil }
        (components.path, components.query, components.fragment) = ("", nil, nil)
        return components.string
    }

    /// Minutes to read at 265 words a minute, as Miniflux estimates it: words are runs of
    /// characters between whitespace outside tags, counted in one pass over the bytes (building the
    /// plain text first took a sixth of a page's time, measured).
    static func readingTime(of html: String) -> Int {
        var words = 0
        var inWord = false
        var inTag = false
        for byte in html.utf8 {
            switch byte {
            case UInt8(ascii: "<"): inTag = true; inWord = false
            case UInt8(ascii: ">"): inTag = false
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): inWord = false
            default:
                if !inTag && !inWord { words += 1 }
                inWord = !inTag
            }
        }
        return words / 265
    }

    static func token(_ token: APIToken, secret: String = "") -> JSONValue {
        ["id": .from(token.id), "user_id": .from(token.accountID), "token": .string(secret), "description": .string(token.label),
         "last_used_at": timestamp(token.lastUsedAt), "created_at": timestamp(token.createdAt)]
    }
}

extension JSONValue {
    /// An account's, an entry's or a subscription's id, as the number apps know it by.
    static func from<Kind>(_ id: TypedID<Kind>) -> JSONValue { .from(id.rawValue) }
    static func from<Kind>(_ id: TypedID<Kind>?) -> JSONValue { .from(id?.rawValue) }
}
