import Foundation

/// A login session of the web page, as listed: never its cookie, which only the browser holds.
public struct WebSession: Sendable, Equatable {
    public var id: Int64
    /// The account logged in.
    public var accountID: AccountID
    public var createdAt: Date
    public var lastSeenAt: Date
    public var userAgent: String
    public var address: String
}

extension FeedStore {
    /// Stores a new session under the digest of its cookie, and forgets the sessions unused since
    /// `expiredBefore`.
    public func addSession(digest: String, account: AccountID, userAgent: String, address: String, expiredBefore: Date,
                           now: Date = Date()) throws(StoreError) -> WebSession {
        let seconds = Int64(now.timeIntervalSince1970)
        return try database.transaction { () throws(StoreError) -> WebSession in
            try database.statement("DELETE FROM web_sessions WHERE last_seen_at < ?1")
                .run([.integer(Int64(expiredBefore.timeIntervalSince1970))])
            let id = try database.integer("""
                INSERT INTO web_sessions(digest, account_id, created_at, last_seen_at, user_agent, address)
                VALUES (?1, ?5, ?2, ?2, ?3, ?4) RETURNING id
                """, [.text(digest), .integer(seconds), .text(userAgent), .text(address), .account(account)]) ?? 0
            return WebSession(id: id, accountID: account, createdAt: Date(timeIntervalSince1970: Double(seconds)),
                              lastSeenAt: Date(timeIntervalSince1970: Double(seconds)), userAgent: userAgent, address: address)
        }
    }

    /// Records that the session was used now (the caller does this at most once a minute a session).
    public func touchSession(id: Int64, now: Date = Date()) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("UPDATE web_sessions SET last_seen_at = ?2 WHERE id = ?1")
                .run([.integer(id), .integer(Int64(now.timeIntervalSince1970))])
        }
    }

    /// Ends account `account`'s session with this id. - Returns: whether there was one.
    public func removeSession(id: Int64, account: AccountID) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            try database.statement("DELETE FROM web_sessions WHERE id = ?1 AND account_id = ?2").run([.integer(id), .account(account)])
            return try database.changes() == 1
        }
    }

    /// Ends every session of account `account` but `keeping` (a new password logs out every other browser).
    public func removeSessions(account: AccountID, keeping: Int64? = nil) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("DELETE FROM web_sessions WHERE account_id = ?2 AND id IS DISTINCT FROM ?1")
                .run([SQLValue(keeping), .account(account)])
        }
    }

    static func session(_ row: Statement) -> WebSession {
        WebSession(id: row.int64(at: 0), accountID: row.accountID(at: 5),
                   createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 1))),
                   lastSeenAt: Date(timeIntervalSince1970: Double(row.int64(at: 2))), userAgent: row.text(at: 3) ?? "",
                   address: row.text(at: 4) ?? "")
    }
}

extension StoreReader {
    /// The session whose cookie has this digest, if it was used since `expiredBefore`.
    public func session(digest: String, expiredBefore: Date) throws(StoreError) -> WebSession? {
        var session: WebSession?
        try database.statement("""
            SELECT id, created_at, last_seen_at, user_agent, address, account_id FROM web_sessions WHERE digest = ?1 AND last_seen_at >= ?2
            """).query([.text(digest), .integer(Int64(expiredBefore.timeIntervalSince1970))]) { row in
            session = FeedStore.session(row)
        }
        return session
    }

    /// Account `account`'s sessions used since `expiredBefore`, the most recently used first.
    public func sessions(account: AccountID, expiredBefore: Date) throws(StoreError) -> [WebSession] {
        var sessions: [WebSession] = []
        try database.statement("""
            SELECT id, created_at, last_seen_at, user_agent, address, account_id FROM web_sessions
            WHERE account_id = ?2 AND last_seen_at >= ?1 ORDER BY last_seen_at DESC, id DESC
            """).query([.integer(Int64(expiredBefore.timeIntervalSince1970)), .account(account)]) { row in
            sessions.append(FeedStore.session(row))
        }
        return sessions
    }
}
