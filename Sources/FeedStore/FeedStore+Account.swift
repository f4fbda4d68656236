import Foundation

/// The owner account of the HTTP APIs, as stored: its password only as an Argon2id hash.
public struct StoredAccount: Sendable, Equatable {
    public var name: String
    public var passwordHash: String
    /// Fever's API key (md5 of `name:password`), present only while Fever is turned on.
    public var feverKey: String?
    public var createdAt: Date
    public var updatedAt: Date
}

/// An API token as listed: never the token itself, which is shown once when made.
public struct APIToken: Sendable, Equatable {
    public var id: Int64
    public var label: String
    public var createdAt: Date
    public var lastUsedAt: Date?
}

// Each write runs in `transaction`, which commits a refresh round's held transaction first: a
// change made alone would otherwise wait, unseen by readers, for the round's next commit.
extension FeedStore {
    /// Creates the account or replaces its name, password hash and Fever key (created_at stays).
    public func setAccount(name: String, passwordHash: String, feverKey: String?, now: Date = Date()) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("""
                INSERT INTO account(id, name, password_hash, fever_key, created_at, updated_at) VALUES (1, ?1, ?2, ?3, ?4, ?4)
                ON CONFLICT(id) DO UPDATE SET name = ?1, password_hash = ?2, fever_key = ?3, updated_at = ?4
                """).run([.text(name), .text(passwordHash), SQLValue(feverKey), .integer(Int64(now.timeIntervalSince1970))])
        }
    }

    /// Sets or clears Fever's key. - Returns: false when there is no account.
    public func setFeverKey(_ key: String?, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            try database.statement("UPDATE account SET fever_key = ?1, updated_at = ?2 WHERE id = 1")
                .run([SQLValue(key), .integer(Int64(now.timeIntervalSince1970))])
            return database.changes == 1
        }
    }

    /// Stores a new token's digest under `label`. - Returns: nil when the label is taken.
    public func addToken(label: String, digest: String, now: Date = Date()) throws(StoreError) -> APIToken? {
        let created = Int64(now.timeIntervalSince1970)
        return try database.transaction { () throws(StoreError) -> APIToken? in
            try database.statement("INSERT INTO api_tokens(label, digest, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
                .run([.text(label), .text(digest), .integer(created)])
            guard database.changes == 1 else { return nil }
            return APIToken(id: database.lastInsertedRowID, label: label, createdAt: Date(timeIntervalSince1970: Double(created)))
        }
    }

    /// Deletes the token with this id, else the one with this label. - Returns: the token deleted, if any.
    public func removeToken(idOrLabel: String) throws(StoreError) -> APIToken? {
        let select = try database.statement("""
            SELECT id, label, created_at, last_used_at FROM api_tokens WHERE id = ?1 OR label = ?2
            ORDER BY id = ?1 DESC LIMIT 1
            """)
        return try database.transaction { () throws(StoreError) -> APIToken? in
            var found: APIToken?
            try select.query([SQLValue(Int64(idOrLabel)), .text(idOrLabel)]) { row in found = Self.token(row) }
            guard let found else { return nil }
            try database.statement("DELETE FROM api_tokens WHERE id = ?1").run([.integer(found.id)])
            return found
        }
    }

    /// Records when tokens were last used (the authenticator batches these: not a write per request).
    public func markTokensUsed(_ uses: [String: Date]) throws(StoreError) {
        guard !uses.isEmpty else { return }
        let update = try database.statement("UPDATE api_tokens SET last_used_at = max(coalesce(last_used_at, 0), ?2) WHERE digest = ?1")
        try database.transaction { () throws(StoreError) in
            for (digest, date) in uses { try update.run([.text(digest), .integer(Int64(date.timeIntervalSince1970))]) }
        }
    }

    static func token(_ row: Statement) -> APIToken {
        APIToken(id: row.int64(at: 0), label: row.text(at: 1) ?? "", createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 2))),
                 lastUsedAt: row.optionalInt64(at: 3).map { Date(timeIntervalSince1970: Double($0)) })
    }
}

extension StoreReader {
    /// The owner account, or nil before `aggregatorctl user set`.
    public func account() throws(StoreError) -> StoredAccount? {
        var account: StoredAccount?
        try database.statement("SELECT name, password_hash, fever_key, created_at, updated_at FROM account WHERE id = 1")
            .query { row in
                account = StoredAccount(name: row.text(at: 0) ?? "", passwordHash: row.text(at: 1) ?? "", feverKey: row.text(at: 2),
                                        createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 3))),
                                        updatedAt: Date(timeIntervalSince1970: Double(row.int64(at: 4))))
            }
        return account
    }

    /// The token whose digest this is, if any.
    public func token(digest: String) throws(StoreError) -> APIToken? {
        var token: APIToken?
        try database.statement("SELECT id, label, created_at, last_used_at FROM api_tokens WHERE digest = ?1")
            .query([.text(digest)]) { row in token = FeedStore.token(row) }
        return token
    }

    /// Every token, oldest first.
    public func tokens() throws(StoreError) -> [APIToken] {
        var tokens: [APIToken] = []
        try database.statement("SELECT id, label, created_at, last_used_at FROM api_tokens ORDER BY id")
            .query { row in tokens.append(FeedStore.token(row)) }
        return tokens
    }
}
