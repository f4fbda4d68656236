import Foundation

/// What the scheduler needs to fetch a feed.
public struct FeedFetchState: Sendable, Equatable {
    public var id: FeedID
    public var url: String
    public var etag: String?
    public var lastModified: String?
    public var errorCount: Int
    public var status: FeedStatus
    public var nextCheckAt: Date?
    public var intervalSeconds: Int?
    /// Whether an admin follows it (`private-networks = admins`: else it may not reach private addresses).
    public var hasAdminFollower = true
    /// A private copy's own fetch settings (docs/ARCHITECTURE.md); nil for a shared feed, fetched with the defaults.
    public var settings: FeedFetchSettings?
}

/// A feed's own fetch settings (docs/ARCHITECTURE.md), Miniflux's `user_agent`, `cookie`, `username`,
/// `password`, `ignore_http_cache` and `allow_self_signed_certificates`. Any value but the defaults
/// makes the feed its account's private copy.
public struct FeedFetchSettings: Sendable, Equatable {
    public var userAgent: String?
    /// Secrets: kept to be sent, never shown back (write-only in every front end).
    public var cookie: String?
    public var username: String?
    public var password: String?
    public var ignoresHTTPCache = false
    public var allowsSelfSignedCertificates = false

    public init(userAgent: String? = nil, cookie: String? = nil, username: String? = nil, password: String? = nil,
                ignoresHTTPCache: Bool = false, allowsSelfSignedCertificates: Bool = false) {
        (self.userAgent, self.cookie, self.username, self.password) = (userAgent, cookie, username, password)
        (self.ignoresHTTPCache, self.allowsSelfSignedCertificates) = (ignoresHTTPCache, allowsSelfSignedCertificates)
    }

    /// Nothing but the defaults: the feed may be shared.
    public var isDefault: Bool { self == FeedFetchSettings() }

    /// These settings with `change` applied: nil leaves a value, "" clears it.
    public func applying(_ change: FetchSettingsChange) -> FeedFetchSettings {
        func apply(_ old: String?, _ new: String?) -> String? { new.map { $0.isEmpty ? nil : $0 } ?? old }
        return FeedFetchSettings(userAgent: apply(userAgent, change.userAgent), cookie: apply(cookie, change.cookie),
                                 username: apply(username, change.username), password: apply(password, change.password),
                                 ignoresHTTPCache: change.ignoresHTTPCache ?? ignoresHTTPCache,
                                 allowsSelfSignedCertificates: change.allowsSelfSignedCertificates ?? allowsSelfSignedCertificates)
    }

    /// The columns of `feeds` that hold them, in this order (`init(row:at:)`, `values`).
    static let columns = "user_agent, cookie, username, password, ignore_http_cache, allow_self_signed"
    /// `column = ?N, …` for an UPDATE, `values` bound from `?first` on.
    static func assignments(from first: Int) -> String {
        columns.split(separator: ",").enumerated()
            .map { "\($1.trimmingCharacters(in: .whitespaces)) = ?\(first + $0)" }.joined(separator: ", ")
    }

    init(row: Statement, at first: Int32) {
        self.init(userAgent: row.text(at: first), cookie: row.text(at: first + 1), username: row.text(at: first + 2),
                  password: row.text(at: first + 3), ignoresHTTPCache: row.int64(at: first + 4) != 0,
                  allowsSelfSignedCertificates: row.int64(at: first + 5) != 0)
    }

    var values: [SQLValue] {
        [SQLValue(userAgent), SQLValue(cookie), SQLValue(username), SQLValue(password), SQLValue(ignoresHTTPCache),
         SQLValue(allowsSelfSignedCertificates)]
    }
}

/// A change of a feed's fetch settings: for each text, nil leaves it and "" clears it; for each flag,
/// nil leaves it.
public struct FetchSettingsChange: Sendable, Equatable {
    public var userAgent: String?
    public var cookie: String?
    public var username: String?
    public var password: String?
    public var ignoresHTTPCache: Bool?
    public var allowsSelfSignedCertificates: Bool?

    public init(userAgent: String? = nil, cookie: String? = nil, username: String? = nil, password: String? = nil,
                ignoresHTTPCache: Bool? = nil, allowsSelfSignedCertificates: Bool? = nil) {
        (self.userAgent, self.cookie, self.username, self.password) = (userAgent, cookie, username, password)
        (self.ignoresHTTPCache, self.allowsSelfSignedCertificates) = (ignoresHTTPCache, allowsSelfSignedCertificates)
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { self == FetchSettingsChange() }
}

/// The outcome of one fetch, as the store records it on the feed.
public enum FetchRecord: Sendable, Equatable {
    /// A document arrived (or 304): validators to send next time, and a new URL after a permanent redirect.
    case success(etag: String?, lastModified: String?, newURL: String?, title: String?, siteURL: String?,
                 imageURL: String? = nil)
    /// Nothing usable: the reason, shown as the feed's `last_error`.
    case failure(String)
    /// The feed is gone for good (HTTP 410): disabled, not fetched again.
    case gone(String)
}

extension FeedFetchState {
    /// The columns `init(row:)` reads, from `feeds`.
    /// How many columns `columns` names.
    static let columnCount = 16
    static let columns = """
        id, url, etag, last_modified, error_count, status, next_check_at, interval_s,
        EXISTS (SELECT 1 FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE u.feed_id = feeds.id AND a.admin = 1),
        owner_account_id, \(FeedFetchSettings.columns)
        """

    init(row: Statement) {
        self.init(id: row.feedID(at: 0), url: row.text(at: 1) ?? "", etag: row.text(at: 2), lastModified: row.text(at: 3),
                  errorCount: Int(row.int64(at: 4)), status: FeedStatus(column: row.text(at: 5)),
                  nextCheckAt: row.optionalInt64(at: 6).map { Date(timeIntervalSince1970: TimeInterval($0)) },
                  intervalSeconds: row.optionalInt64(at: 7).map { Int($0) })
        hasAdminFollower = row.int64(at: 8) != 0
        if row.optionalInt64(at: 9) != nil { settings = FeedFetchSettings(row: row, at: 10) }
    }
}

extension FeedStore {
    /// Every feed that is not disabled (or those of `ids` only), soonest due first.
    public func feedsToFetch(only ids: [FeedID]? = nil) throws(StoreError) -> [FeedFetchState] {
        var feeds: [FeedFetchState] = []
        var values: [SQLValue] = []
        let only = ids.map { " AND id IN (\(SQLValue.placeholders(for: $0, appendingTo: &values)))" } ?? ""
        try database.statement("""
            SELECT \(FeedFetchState.columns)
            FROM feeds WHERE status != 'disabled'\(only) ORDER BY coalesce(next_check_at, 0), id
            """).query(values) { row in feeds.append(FeedFetchState(row: row)) }
        return feeds
    }

    /// Records a fetch on the feed: its state, error count and when to check it next.
    public func record(_ record: FetchRecord, feedID feed: FeedID, checkedAt: Date, nextCheckAt: Date,
                       intervalSeconds: Int) throws(StoreError) {
        let feedID = feed.rawValue
        let checked = Int64(checkedAt.timeIntervalSince1970)
        let next = Int64(nextCheckAt.timeIntervalSince1970)
        switch record {
        case .success(let etag, let lastModified, let newURL, let title, let siteURL, let imageURL):
            // The document's image is kept as the latest document names it (a 304 names none: kept).
            try database.statement("""
                UPDATE feeds SET etag = ?2, last_modified = ?3, checked_at = ?4, next_check_at = ?5, interval_s = ?6,
                    error_count = 0, last_error = NULL, status = 'ok', claimed_by = NULL, check_count = check_count + 1,
                    title = coalesce(title, ?7),
                    site_url = coalesce(site_url, ?8), image_url = coalesce(?9, image_url)
                WHERE id = ?1
                """).run([.integer(feedID), SQLValue(etag), SQLValue(lastModified), .integer(checked), .integer(next),
                          .integer(Int64(intervalSeconds)), SQLValue(title), SQLValue(siteURL), SQLValue(imageURL)])
            if let newURL {
                // A permanent redirect moves the subscription, unless another feed (shared, or the same
                // account's private copies) already has that URL. Written for both backends: SQLite's
                // `UPDATE OR IGNORE` failed the whole group commit on PostgreSQL.
                // What the feed showed came from the old URL (docs/SECURITY.md): its title, site and image are
                // the new document's from now on, and its icon is looked for again there.
                try database.statement("""
                    UPDATE feeds SET url = ?2, title = coalesce(?3, title), site_url = ?4, image_url = ?5, icon_id = NULL,
                        icon_url = NULL, icon_checked_at = NULL, icon_non_public = 0
                    WHERE id = ?1 AND url <> ?2 AND NOT EXISTS (
                        SELECT 1 FROM feeds o WHERE o.url = ?2 AND o.id != ?1
                          AND coalesce(o.owner_account_id, 0) = coalesce(feeds.owner_account_id, 0))
                    """).run([.integer(feedID), .text(newURL), SQLValue(title), SQLValue(siteURL), SQLValue(imageURL)])
            }
        case .failure(let reason), .gone(let reason):
            let status: FeedStatus = if case .gone = record { .disabled } else { .failing }
            try database.statement("""
                UPDATE feeds SET checked_at = ?2, next_check_at = ?3, interval_s = ?4, error_count = error_count + 1,
                    check_count = check_count + 1,
                    last_error = ?5, status = ?6, claimed_by = NULL
                WHERE id = ?1
                """).run([.integer(feedID), .integer(checked), .integer(next), .integer(Int64(intervalSeconds)),
                          .text(reason), .text(status.rawValue)])
        }
    }
}

/// One feed's refresh, committed together with others: its new entries (if any) and its fetch state.
public struct FeedRefresh: Sendable {
    public var feedID: FeedID
    public var document: IncomingFeed?
    public var record: FetchRecord
    public var checkedAt: Date
    public var nextCheckAt: Date
    public var intervalSeconds: Int

    /// Whether the fetch succeeded (a new document or not modified).
    public var isSuccess: Bool {
        if case .success = record { return true }
        return false
    }

    public init(feedID: FeedID, document: IncomingFeed?, record: FetchRecord, checkedAt: Date, nextCheckAt: Date,
                intervalSeconds: Int) {
        self.feedID = feedID
        self.document = document
        self.record = record
        self.checkedAt = checkedAt
        self.nextCheckAt = nextCheckAt
        self.intervalSeconds = intervalSeconds
    }
}

extension FeedStore {
    /// Stores several feeds' refreshes (group commit): entries and fetch state, each refresh whole.
    /// With `holdingOpen` the commit may wait for the next call's feeds (see `groupCommit`).
    /// - Returns: the ingest counts of each refresh, zero for those without a document.
    @discardableResult
    public func commit(_ refreshes: [FeedRefresh], holdingOpen: Bool = false) throws(StoreError) -> [IngestCounts] {
        try groupCommit(holdingOpen: holdingOpen) { () throws(StoreError) -> [IngestCounts] in
            var counters = CounterChanges(database: database)
            var results: [IngestCounts] = []
            var successes: [FeedRefresh] = []
            for refresh in refreshes {
                var counts = IngestCounts()
                if let document = refresh.document {
                    counts = try ingestOne(document, seenAt: Int64(refresh.checkedAt.timeIntervalSince1970),
                                           counters: &counters)
                }
                if case .success(_, _, nil, _, _, _) = refresh.record {
                    successes.append(refresh)
                } else {
                    try record(refresh.record, feedID: refresh.feedID, checkedAt: refresh.checkedAt,
                               nextCheckAt: refresh.nextCheckAt, intervalSeconds: refresh.intervalSeconds)
                }
                results.append(counts)
            }
            try recordSuccesses(successes)
            try counters.apply()
            return results
        }
    }
}

extension FeedStore {
    /// The columns of one row of `recordSuccesses`' values.
    private static let successColumns = 9

    /// Records successful fetches without a move (nearly every fetch) as `record` does. On PostgreSQL
    /// several feeds a statement (runs of 64, 16, 4 and 1: few shapes to prepare): a warm round's
    /// statement per feed was most of its writer's time. On SQLite, where a statement costs no round
    /// trip, one each: the joined UPDATE made a warm round 15 ms slower (0.107 -> 0.122 s).
    func recordSuccesses(_ refreshes: [FeedRefresh]) throws(StoreError) {
        guard database.dialect.batchesRows else {
            for refresh in refreshes {
                try record(refresh.record, feedID: refresh.feedID, checkedAt: refresh.checkedAt,
                           nextCheckAt: refresh.nextCheckAt, intervalSeconds: refresh.intervalSeconds)
            }
            return
        }
        // A feed twice in one group (a fetch joined and stored twice) is recorded as its last fetch says.
        var last: [FeedID: Int] = [:]
        for (index, refresh) in refreshes.enumerated() { last[refresh.feedID] = index }
        let rows = refreshes.indices.filter { last[refreshes[$0].feedID] == $0 }.map { refreshes[$0] }
        var start = 0
        while start < rows.count {
            let count = [64, 16, 4, 1].first { start + $0 <= rows.count }!
            var values: [SQLValue] = []
            values.reserveCapacity(count * Self.successColumns)
            for refresh in rows[start..<(start + count)] {
                guard case .success(let etag, let lastModified, _, let title, let siteURL, let imageURL) = refresh.record
                else { continue }
                values += [.feed(refresh.feedID), SQLValue(etag), SQLValue(lastModified),
                           .integer(Int64(refresh.checkedAt.timeIntervalSince1970)),
                           .integer(Int64(refresh.nextCheckAt.timeIntervalSince1970)),
                           .integer(Int64(refresh.intervalSeconds)), SQLValue(title), SQLValue(siteURL),
                           SQLValue(imageURL)]
            }
            // The document's image is kept as the latest document names it (a 304 names none: kept).
            try database.statement("""
                UPDATE feeds SET etag = v.column2, last_modified = v.column3, checked_at = v.column4,
                    next_check_at = v.column5, interval_s = v.column6, error_count = 0, last_error = NULL,
                    status = 'ok', check_count = feeds.check_count + 1, claimed_by = NULL,
                    title = coalesce(feeds.title, v.column7), site_url = coalesce(feeds.site_url, v.column8),
                    image_url = coalesce(v.column9, feeds.image_url)
                FROM (VALUES \(SQLValue.rowPlaceholders(count, columns: Self.successColumns))) AS v
                WHERE feeds.id = v.column1
                """).run(values)
            start += count
        }
    }
}
