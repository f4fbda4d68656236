import Foundation

/// An account, as stored: its password only as an Argon2id hash (empty while it has none).
public struct StoredAccount: Sendable, Equatable {
    public var id: AccountID
    public var name: String
    public var passwordHash: String
    public var isAdmin: Bool
    /// Fever's API key (md5 of `name:password`), present only while Fever is turned on.
    public var feverKey: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// When a password (or Fever key) last logged it in afresh; nil before the first login.
    public var lastLoginAt: Date?
    /// Its reading preferences, as a JSON object (the service reads them: `AccountSettings`).
    public var settings: String = "{}"

    /// Whether it can log in with a password: the first account has none until `user set` gives it one.
    public var hasPassword: Bool { !passwordHash.isEmpty }
}

/// An API token as listed: never the token itself, which is shown once when made.
public struct APIToken: Sendable, Equatable {
    public var id: Int64
    /// The account it logs in as.
    public var accountID: AccountID
    public var label: String
    public var createdAt: Date
    public var lastUsedAt: Date?
}

// Each write runs in `transaction`, which commits a refresh round's held transaction first: a
// change made alone would otherwise wait, unseen by readers, for the round's next commit.
extension FeedStore {
    /// Gives account `id` a name and password hash; Fever's key is cleared (it is made of both).
    /// - Returns: false when there is no such account, or another one has the name.
    public func setAccount(id: AccountID, name: String, passwordHash: String, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            guard try accountID(named: name).map({ $0 == id }) ?? true else { return false }
            try database.statement("UPDATE accounts SET name = ?2, password_hash = ?3, fever_key = NULL, updated_at = ?4 WHERE id = ?1")
                .run([.account(id), .text(name), .text(passwordHash), .integer(Int64(now.timeIntervalSince1970))])
            return try database.changes() == 1
        }
    }

    /// Creates an account with its first category, "All" (as Miniflux gives every new user, docs/ARCHITECTURE.md).
    /// - Returns: its id, or nil when another account has the name (whatever its case).
    public func addAccount(name: String, passwordHash: String, isAdmin: Bool, now: Date = Date()) throws(StoreError) -> AccountID? {
        try database.transaction { () throws(StoreError) -> AccountID? in
            guard try accountID(named: name) == nil else { return nil }
            let seconds = SQLValue.integer(Int64(now.timeIntervalSince1970))
            guard let id = try database.integer("""
                INSERT INTO accounts(name, password_hash, admin, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING id
                """, [.text(name), .text(passwordHash), SQLValue(isAdmin), seconds]) else { return nil }
            try database.statement("INSERT INTO categories(account_id, name) VALUES (?1, 'All')").run([.integer(id)])
            return AccountID(id)
        }
    }

    /// Makes account `id` an admin or a regular account.
    /// - Throws: `StoreError.Kind.notFound` when there is no such account; `.invalidQuery` when it is
    ///   the last admin being demoted (a server always keeps one).
    public func setAdmin(_ isAdmin: Bool, account id: AccountID, now: Date = Date()) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            if !isAdmin { try requireAnotherAdmin(than: id) }
            try database.statement("UPDATE accounts SET admin = ?2, updated_at = ?3 WHERE id = ?1")
                .run([.account(id), SQLValue(isAdmin), .integer(Int64(now.timeIntervalSince1970))])
            guard try database.changes() == 1 else { throw StoreError(.notFound, message: "no user with id \(id)") }
        }
    }

    /// Replaces account `id`'s reading preferences (a JSON object the service has checked).
    /// - Throws: `StoreError.Kind.notFound` when there is no such account.
    public func setSettings(_ settings: String, account id: AccountID, now: Date = Date()) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try database.statement("UPDATE accounts SET settings = ?2, updated_at = ?3 WHERE id = ?1")
                .run([.account(id), .text(settings), .integer(Int64(now.timeIntervalSince1970))])
            guard try database.changes() == 1 else { throw StoreError(.notFound, message: "no user with id \(id)") }
        }
    }

    /// Removes account `id` with its subscriptions, categories, marks, edits, tokens and sessions; the
    /// feeds only it followed go with their entries (but those another account starred), the others
    /// stay for their followers.
    /// - Throws: `StoreError.Kind.notFound` when there is no such account; `.invalidQuery` for the last admin.
    public func removeAccount(id: AccountID) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            guard try database.integer("SELECT count(*) FROM accounts WHERE id = ?1", [.account(id)]) == 1 else {
                throw StoreError(.notFound, message: "no user with id \(id)")
            }
            try requireAnotherAdmin(than: id)
            var lonely: [Int64] = []
            try database.statement("""
                SELECT feed_id FROM subscriptions u
                WHERE account_id = ?1 AND NOT EXISTS (SELECT 1 FROM subscriptions o WHERE o.feed_id = u.feed_id AND o.account_id != ?1)
                """).query([.account(id)]) { row in lonely.append(row.int64(at: 0)) }
            try database.statement("""
                UPDATE entry_state SET stars = stars - 1
                WHERE entry_id IN (SELECT entry_id FROM entry_marks WHERE account_id = ?1 AND starred = 1)
                """).run([.account(id)])
            // Its subscriptions, categories, marks, edits, media positions, tokens and sessions cascade.
            try database.statement("DELETE FROM accounts WHERE id = ?1").run([.account(id)])
            for feed in lonely { try removeUnfollowedFeed(feed) }
        }
    }

    /// Refuses to demote or remove `id` when it is the only admin.
    private func requireAnotherAdmin(than id: AccountID) throws(StoreError) {
        let others = try database.integer("SELECT count(*) FROM accounts WHERE admin = 1 AND id != ?1", [.account(id)]) ?? 0
        let isAdmin = try database.integer("SELECT admin FROM accounts WHERE id = ?1", [.account(id)]) == 1
        if isAdmin, others == 0 {
            throw StoreError(.invalidQuery, message: "the last admin cannot be demoted or removed (make another user an admin first)")
        }
    }

    /// Renames account `id`. - Returns: false when there is no such account, or another one has the name.
    public func renameAccount(id: AccountID, to name: String, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            guard try accountID(named: name).map({ $0 == id }) ?? true else { return false }
            // Fever's key is md5 of "name:password": a new name turns Fever off until turned on again.
            try database.statement("""
                UPDATE accounts SET name = ?2, updated_at = ?3,
                    fever_key = CASE WHEN name = ?2 COLLATE BINARY THEN fever_key END
                WHERE id = ?1
                """).run([.account(id), .text(name), .integer(Int64(now.timeIntervalSince1970))])
            return try database.changes() == 1
        }
    }

    /// Sets or clears account `id`'s Fever key. - Returns: false when there is no such account.
    public func setFeverKey(_ key: String?, account id: AccountID, now: Date = Date()) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            try database.statement("UPDATE accounts SET fever_key = ?2, updated_at = ?3 WHERE id = ?1")
                .run([.account(id), SQLValue(key), .integer(Int64(now.timeIntervalSince1970))])
            return try database.changes() == 1
        }
    }

    /// Records when accounts last logged in (batched by the caller, as token uses are).
    public func recordLogins(_ logins: [AccountID: Date]) throws(StoreError) {
        guard !logins.isEmpty else { return }
        let update = try database.statement("UPDATE accounts SET last_login_at = max(coalesce(last_login_at, 0), ?2) WHERE id = ?1")
        try database.transaction { () throws(StoreError) in
            for (id, date) in logins { try update.run([.account(id), .integer(Int64(date.timeIntervalSince1970))]) }
        }
    }

    private func accountID(named name: String) throws(StoreError) -> AccountID? {
        var id: AccountID?
        try database.statement("SELECT id FROM accounts WHERE name = ?1 COLLATE NOCASE").query([.text(name)]) { row in id = row.accountID(at: 0) }
        return id
    }

    /// Stores a new token's digest under `label` for account `account`.
    /// - Returns: nil when the account has a token with that label.
    public func addToken(label: String, digest: String, account: AccountID, now: Date = Date()) throws(StoreError) -> APIToken? {
        let created = Int64(now.timeIntervalSince1970)
        return try database.transaction { () throws(StoreError) -> APIToken? in
            guard let id = try database.integer("""
                INSERT INTO api_tokens(account_id, label, digest, created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING RETURNING id
                """, [.account(account), .text(label), .text(digest), .integer(created)]) else { return nil }
            return APIToken(id: id, accountID: account, label: label,
                            createdAt: Date(timeIntervalSince1970: Double(created)))
        }
    }

    /// Deletes account `account`'s token with this id, else its one with this label.
    /// - Returns: the token deleted, if any.
    public func removeToken(idOrLabel: String, account: AccountID) throws(StoreError) -> APIToken? {
        let select = try database.statement("""
            SELECT id, account_id, label, created_at, last_used_at FROM api_tokens
            WHERE account_id = ?3 AND (id = ?1 OR label = ?2) ORDER BY id = ?1 DESC LIMIT 1
            """)
        return try database.transaction { () throws(StoreError) -> APIToken? in
            var found: APIToken?
            try select.query([SQLValue(Int64(idOrLabel)), .text(idOrLabel), .account(account)]) { row in found = Self.token(row) }
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
        APIToken(id: row.int64(at: 0), accountID: row.accountID(at: 1), label: row.text(at: 2) ?? "",
                 createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 3))),
                 lastUsedAt: row.optionalInt64(at: 4).map { Date(timeIntervalSince1970: Double($0)) })
    }

    static func account(_ row: Statement) -> StoredAccount {
        StoredAccount(id: row.accountID(at: 0), name: row.text(at: 1) ?? "", passwordHash: row.text(at: 2) ?? "",
                      isAdmin: row.int64(at: 3) != 0, feverKey: row.text(at: 4),
                      createdAt: Date(timeIntervalSince1970: Double(row.int64(at: 5))),
                      updatedAt: Date(timeIntervalSince1970: Double(row.int64(at: 6))),
                      lastLoginAt: row.optionalInt64(at: 7).map { Date(timeIntervalSince1970: Double($0)) },
                      settings: row.text(at: 8) ?? "{}")
    }

    static let accountColumns = "id, name, password_hash, admin, fever_key, created_at, updated_at, last_login_at, settings"
}

extension StoreReader {
    /// Every account, by id (the first is the oldest admin unless demoted).
    public func accounts() throws(StoreError) -> [StoredAccount] {
        var accounts: [StoredAccount] = []
        try database.statement("SELECT \(FeedStore.accountColumns) FROM accounts ORDER BY id").query { row in
            accounts.append(FeedStore.account(row))
        }
        return accounts
    }

    /// The account with this id, if any.
    public func account(id: AccountID) throws(StoreError) -> StoredAccount? {
        var account: StoredAccount?
        try database.statement("SELECT \(FeedStore.accountColumns) FROM accounts WHERE id = ?1").query([.account(id)]) { row in
            account = FeedStore.account(row)
        }
        return account
    }

    /// The account with this name (letter case aside), if any.
    public func account(named name: String) throws(StoreError) -> StoredAccount? {
        var account: StoredAccount?
        try database.statement("SELECT \(FeedStore.accountColumns) FROM accounts WHERE name = ?1 COLLATE NOCASE").query([.text(name)]) { row in
            account = FeedStore.account(row)
        }
        return account
    }

    /// The account whose Fever key this is (lower-case hex), if any has Fever turned on with it.
    public func account(feverKey key: String) throws(StoreError) -> StoredAccount? {
        var account: StoredAccount?
        try database.statement("SELECT \(FeedStore.accountColumns) FROM accounts WHERE fever_key = ?1 ORDER BY id LIMIT 1")
            .query([.text(key)]) { row in account = FeedStore.account(row) }
        return account
    }

    /// The token whose digest this is, if any.
    public func token(digest: String) throws(StoreError) -> APIToken? {
        var token: APIToken?
        try database.statement("SELECT id, account_id, label, created_at, last_used_at FROM api_tokens WHERE digest = ?1")
            .query([.text(digest)]) { row in token = FeedStore.token(row) }
        return token
    }

    /// Account `account`'s tokens, oldest first.
    public func tokens(account: AccountID) throws(StoreError) -> [APIToken] {
        var tokens: [APIToken] = []
        try database.statement("SELECT id, account_id, label, created_at, last_used_at FROM api_tokens WHERE account_id = ?1 ORDER BY id")
            .query([.account(account)]) { row in tokens.append(FeedStore.token(row)) }
        return tokens
    }
}

extension StoreReader {
    /// How many tokens each account has (accounts without any are absent).
    /// How many entries `account` imported (`POST /v1/feeds/{id}/entries/import`).
    public func importedEntryCount(account: AccountID) throws(StoreError) -> Int {
        Int(try database.integer("SELECT count(*) FROM entries WHERE imported_by = ?1", [.account(account)]) ?? 0)
    }

    public func tokenCounts() throws(StoreError) -> [AccountID: Int] {
        var counts: [AccountID: Int] = [:]
        try database.statement("SELECT account_id, count(*) FROM api_tokens GROUP BY account_id").query { row in
            counts[row.accountID(at: 0)] = Int(row.int64(at: 1))
        }
        return counts
    }
}
