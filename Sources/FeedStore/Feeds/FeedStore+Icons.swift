import Foundation

/// A feed's icon as kept: the image, its type, and the digest that names it in public URLs.
public struct FeedIcon: Sendable, Equatable {
    public var id: Int64
    /// Lower-case hex SHA-256 of the image: the same image is kept once, and URLs by it never go stale.
    public var digest: String
    public var mimeType: String
    public var data: Data
}

/// Which icon a feed shows: its id (Miniflux's `icon_id`) and digest (public URLs, `external_icon_id`).
public struct IconReference: Sendable, Equatable {
    public var id: Int64
    public var digest: String
}

/// A feed whose icon is due to be looked for.
public struct IconCandidate: Sendable, Equatable {
    public var feedID: Int64
    public var feedURL: String
    public var siteURL: String?
    /// The image the feed's document names (`<image>`, `<icon>`, `<logo>`, JSON Feed's icon).
    public var imageURL: String?
    /// Where its icon was found last time, if it has one.
    public var iconURL: String?
    /// Whether an admin follows the feed (else its icon may not come from a private address).
    public var hasAdminFollower = true
}

extension FeedStore {
    /// Feeds fetched successfully whose icon was never looked for or not since `checkedBefore`, oldest first.
    /// Only feed `only`, when given (a feed just added, whose icon an app shows at once).
    public func feedsNeedingIcons(checkedBefore: Date, limit: Int, only: Int64? = nil) throws(StoreError) -> [IconCandidate] {
        var found: [IconCandidate] = []
        try database.statement("""
            SELECT id, url, site_url, image_url, icon_url, EXISTS (SELECT 1 FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE u.feed_id = feeds.id AND a.admin = 1) FROM feeds
            WHERE status = 'ok' AND checked_at IS NOT NULL AND coalesce(icon_checked_at, 0) < ?1 AND (CAST(?3 AS BIGINT) IS NULL OR id = ?3)
            ORDER BY coalesce(icon_checked_at, 0), id LIMIT ?2
            """).query([.integer(Int64(checkedBefore.timeIntervalSince1970)), .integer(Int64(limit)), SQLValue(only)]) { row in
            found.append(IconCandidate(feedID: row.int64(at: 0), feedURL: row.text(at: 1) ?? "", siteURL: row.text(at: 2),
                                       imageURL: row.text(at: 3), iconURL: row.text(at: 4), hasAdminFollower: row.int64(at: 5) != 0))
        }
        return found
    }

    /// Records what looking for a feed's icon found: the image (kept once by `digest`, its lower-case hex
    /// SHA-256), or nothing (nil), which keeps the icon it had. Icons no feed shows any more are deleted.
    public func setIcon(feedID: Int64, image: (data: Data, mimeType: String, digest: String, url: String)?,
                        nonPublic: Bool = false, now: Date = Date()) throws(StoreError) {
        let seconds = Int64(now.timeIntervalSince1970)
        try database.transaction { () throws(StoreError) in
            try database.statement("UPDATE feeds SET icon_checked_at = ?2 WHERE id = ?1").run([.integer(feedID), .integer(seconds)])
            guard let (data, mimeType, digest, url) = image else { return }
            try database.statement("""
                INSERT INTO icons(digest, mime_type, data, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(digest) DO NOTHING
                """).run([.text(digest), .text(mimeType), .blob(data), .integer(seconds)])
            try database.statement("""
                UPDATE feeds SET icon_id = (SELECT id FROM icons WHERE digest = ?2), icon_url = ?3, icon_non_public = ?4 WHERE id = ?1
                """).run([.integer(feedID), .text(digest), .text(url), SQLValue(nonPublic)])
            try database.execute("DELETE FROM icons WHERE id NOT IN (SELECT icon_id FROM feeds WHERE icon_id IS NOT NULL)")
        }
    }
}

extension StoreReader {
    /// The icon with this id, if one of the account's feeds shows it (another account's is not found).
    /// An icon fetched from a non-public address only with `nonPublic` (docs/SECURITY.md), here and below.
    public func icon(id: Int64, account: AccountID, nonPublic: Bool) throws(StoreError) -> FeedIcon? {
        try icon(where: """
            id = ?1 AND EXISTS (SELECT 1 FROM subscriptions u JOIN feeds f ON f.id = u.feed_id
                                WHERE u.account_id = ?2 AND f.icon_id = icons.id AND (f.icon_non_public = 0 OR ?3 = 1))
            """, [.integer(id), .account(account), SQLValue(nonPublic)])
    }

    /// The icon with this digest (lower-case hex), if kept: public, named by an unguessable digest.
    public func icon(digest: String) throws(StoreError) -> FeedIcon? {
        try icon(where: "digest = ?1", [.text(digest)])
    }

    /// The icon the feed of the account's subscription `subscriptionID` shows, if it has one.
    public func icon(ofFeed subscriptionID: SubscriptionID, account: AccountID, nonPublic: Bool) throws(StoreError) -> FeedIcon? {
        try icon(where: """
            id = (SELECT f.icon_id FROM subscriptions u JOIN feeds f ON f.id = u.feed_id
                  WHERE u.id = ?1 AND u.account_id = ?2 AND (f.icon_non_public = 0 OR ?3 = 1))
            """, [.subscription(subscriptionID), .account(account), SQLValue(nonPublic)])
    }

    /// The icon digests of those of the account's subscriptions `feedIDs` (at most 10,000) whose
    /// feed has an icon.
    public func feedIconDigests(feedIDs: [SubscriptionID], account: AccountID, nonPublic: Bool) throws(StoreError) -> [SubscriptionID: String] {
        var values: [SQLValue] = [.account(account), SQLValue(nonPublic)]
        let placeholders = SQLValue.placeholders(for: feedIDs.prefix(10_000), appendingTo: &values)
        guard !placeholders.isEmpty else { return [:] }
        var digests: [SubscriptionID: String] = [:]
        try database.statement("""
            SELECT u.id, i.digest FROM subscriptions u JOIN feeds f ON f.id = u.feed_id JOIN icons i ON i.id = f.icon_id
            WHERE u.account_id = ?1 AND (f.icon_non_public = 0 OR ?2 = 1) AND u.id IN (\(placeholders))
            """).query(values) { row in digests[row.subscriptionID(at: 0)] = row.text(at: 1) ?? "" }
        return digests
    }

    /// Every icon one of the account's feeds shows (Fever sends them all at once).
    public func icons(account: AccountID, nonPublic: Bool) throws(StoreError) -> [FeedIcon] {
        var icons: [FeedIcon] = []
        try database.statement("""
            SELECT id, digest, mime_type, data FROM icons
            WHERE id IN (SELECT f.icon_id FROM subscriptions u JOIN feeds f ON f.id = u.feed_id
                         WHERE u.account_id = ?1 AND (f.icon_non_public = 0 OR ?2 = 1))
            ORDER BY id
            """).query([.account(account), SQLValue(nonPublic)]) { row in icons.append(Self.icon(row)) }
        return icons
    }

    private func icon(where condition: String, _ values: [SQLValue]) throws(StoreError) -> FeedIcon? {
        var icon: FeedIcon?
        try database.statement("SELECT id, digest, mime_type, data FROM icons WHERE \(condition)").query(values) { row in
            icon = Self.icon(row)
        }
        return icon
    }

    private static func icon(_ row: Statement) -> FeedIcon {
        FeedIcon(id: row.int64(at: 0), digest: row.text(at: 1) ?? "", mimeType: row.text(at: 2) ?? "", data: row.blob(at: 3))
    }
}
