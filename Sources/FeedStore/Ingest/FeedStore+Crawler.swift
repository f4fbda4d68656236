import Foundation

/// An entry whose page the crawler is to extract (docs/ARCHITECTURE.md), and for whom.
public struct CrawlCandidate: Sendable, Equatable {
    public var entryID: EntryID
    public var pageURL: String
    public var feedURL: String
    /// The accounts whose subscription to a feed carrying it has `crawler` on, and that do not see its page yet.
    public var accounts: [AccountID]
    /// The page is kept already (another account asked for it): only shown to `accounts`, not fetched.
    public var isKept: Bool
    /// The page kept came from a non-public address: only admins may be shown it under
    /// `private-networks = admins` (docs/SECURITY.md).
    public var isKeptNonPublic = false
    /// The admins among `accounts`.
    public var admins: [AccountID] = []
    /// A private copy's fetch settings, sent with the page's request when it is on the feed's host.
    public var settings: FeedFetchSettings?
    /// Whether every account in `accounts` is an admin: only then may the page be on a private address
    /// under `private-networks = admins` (it is fetched for them; docs/ARCHITECTURE.md).
    public var isForAdminsOnly: Bool
}

extension FeedStore {
    /// The entries first seen since `since` whose subscriptions want them crawled (first seen since the
    /// subscription began, its crawler on), that some of those accounts do not see the page of yet,
    /// newest first, at most `limit`, leaving out `excluding` (pages that could not be had).
    public func pagesToCrawl(since: Date, limit: Int, excluding: Set<EntryID> = []) throws(StoreError) -> [CrawlCandidate] {
        var candidates: [Int64: CrawlCandidate] = [:]
        var order: [Int64] = []
        try database.statement("""
            SELECT e.id, e.url, f.url, u.account_id, (SELECT 1 + p.non_public FROM entry_pages p WHERE p.entry_id = e.id),
                   (SELECT a.admin FROM accounts a WHERE a.id = u.account_id), f.owner_account_id, \(FeedFetchSettings.columns)
            FROM subscriptions u CROSS JOIN entry_sources s ON s.feed_id = u.feed_id
            JOIN entries e ON e.id = s.entry_id JOIN entry_state st ON st.entry_id = e.id JOIN feeds f ON f.id = u.feed_id
            WHERE u.crawler_since IS NOT NULL AND e.first_seen_at >= u.crawler_since AND e.first_seen_at >= ?1
              AND st.removed = 0 AND e.url IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM page_readers r WHERE r.entry_id = e.id AND r.account_id = u.account_id)
              AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = u.account_id AND m.entry_id = e.id
                              AND m.hidden = 1)
            ORDER BY e.id DESC
            """).query([.integer(Int64(since.timeIntervalSince1970))]) { row in
            let id = row.int64(at: 0)
            guard !excluding.contains(EntryID(id)) else { return }
            if candidates[id] == nil {
                guard order.count < limit else { return }
                order.append(id)
                candidates[id] = CrawlCandidate(
                    entryID: EntryID(id), pageURL: row.text(at: 1) ?? "", feedURL: row.text(at: 2) ?? "", accounts: [],
                    isKept: row.optionalInt64(at: 4) != nil, isKeptNonPublic: row.optionalInt64(at: 4) == 2,
                    settings: row.optionalInt64(at: 6) == nil ? nil : FeedFetchSettings(row: row, at: 7),
                    isForAdminsOnly: true)
            }
            let account = row.accountID(at: 3)
            if candidates[id]?.accounts.contains(account) == false {
                candidates[id]?.accounts.append(account)
                if row.int64(at: 5) != 0 { candidates[id]?.admins.append(account) }
            }
            if row.int64(at: 5) == 0 { candidates[id]?.isForAdminsOnly = false }
        }
        return order.compactMap { candidates[$0] }
    }

    /// `showPage` for each of `accounts`, in one transaction.
    public func showPage(entryID id: EntryID, accounts: [AccountID]) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for account in accounts { try showPage(entryID: id, account: account) }
        }
    }
}
