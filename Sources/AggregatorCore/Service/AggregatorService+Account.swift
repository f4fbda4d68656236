import Credentials
import FeedStore
import Foundation

/// Who a request acts for, once logged in (or named on the control socket): front ends carry it
/// to every call that reads or changes an account's things.
public struct AccountIdentity: Sendable, Hashable {
    public var id: AccountID
    public var name: String
    public var isAdmin: Bool

    public init(id: AccountID, name: String, isAdmin: Bool) {
        (self.id, self.name, self.isAdmin) = (id, name, isAdmin)
    }

    init(_ stored: StoredAccount) {
        self.init(id: stored.id, name: stored.name, isAdmin: stored.isAdmin)
    }
}

/// An account as shown: never its password or hash.
public struct AccountSummary: Sendable, Equatable {
    public var id: AccountID
    public var name: String
    public var isAdmin: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLoginAt: Date?
    /// False for the first account until `user set` gives it a password (it cannot log in before).
    public var hasPassword: Bool
    public var feverEnabled: Bool
    public var tokens: Int
    /// Its feeds and their unread entries.
    public var feeds: Int
    public var unread: Int
    /// Entries it imported (docs/SECURITY.md, "Quotas": `usage`).
    public var entriesImported = 0
    /// Its reading preferences (Miniflux's user settings).
    public var settings = AccountSettings()

    public var identity: AccountIdentity { AccountIdentity(id: id, name: name, isAdmin: isAdmin) }
}

/// A token just made: listed from now on by its id and label; `secret` is shown this once.
public struct NewToken: Sendable, Equatable {
    public var token: APIToken
    public var secret: String
}

extension AggregatorService {
    // MARK: - Accounts

    /// The shortest password taken.
    public static let minimumPasswordLength = 8

    /// The account named `name`, or the first admin (the server's first account unless demoted) when
    /// nil: whom the control socket acts for when no `--user` is given.
    public func account(named name: String?) async throws(AggregatorError) -> AccountIdentity {
        let found = try await read { reader -> StoredAccount? in
            guard let name else { return try reader.accounts().first(where: \.isAdmin) }
            return try reader.account(named: name)
        }
        guard let found else {
            throw .notFound(name.map { "no user named \($0) (see 'aggregatorctl user list')" } ?? "no admin account")
        }
        return AccountIdentity(found)
    }

    /// The account as shown, or not found when it is gone (removed since its request was let in).
    public func accountSummary(_ account: AccountIdentity) async throws(AggregatorError) -> AccountSummary {
        guard let summary = try await summaries(only: account.id).first else { throw .notFound("no user with id \(account.id)") }
        return summary
    }

    /// Every account, by id.
    public func accounts() async throws(AggregatorError) -> [AccountSummary] {
        try await summaries(only: nil)
    }

    /// The account `id` (every account when nil) with its counts: one account's request (`/v1/me`)
    /// counts its own feeds, not every account's.
    func summaries(only id: AccountID?) async throws(AggregatorError) -> [AccountSummary] {
        let (stored, tokens, counts) = try await read { reader in
            let stored = try reader.accounts().filter { id == nil || $0.id == id }
            var counts: [AccountID: (feeds: Int, unread: Int, imported: Int)] = [:]
            for account in stored {
                counts[account.id] = (try reader.feedCounters(account: account.id).count, try reader.accountCounts(account.id).unread,
                                      try reader.importedEntryCount(account: account.id))
            }
            return (stored, try reader.tokenCounts(), counts)
        }
        return stored.map { account in
            AccountSummary(id: account.id, name: account.name, isAdmin: account.isAdmin, createdAt: account.createdAt,
                           updatedAt: account.updatedAt, lastLoginAt: account.lastLoginAt,
                           hasPassword: account.hasPassword, feverEnabled: account.feverKey != nil,
                           tokens: tokens[account.id] ?? 0, feeds: counts[account.id]?.feeds ?? 0,
                           unread: counts[account.id]?.unread ?? 0, entriesImported: counts[account.id]?.imported ?? 0,
                           settings: AccountSettings(stored: account.settings))
        }
    }

    /// Sets the password of the account named `name`, creating a regular account when none has the
    /// name. When no account has a password yet, the first account (an admin) takes this name and
    /// password instead (a new server's first `user set`). Tokens stay valid; logins
    /// remembered with the old password are forgotten, Fever is turned off (its key is made of the
    /// password), and the account's web sessions end but `keepingSession` (the browser that changed it).
    public func setPassword(name: String, password: String, keepingSession: Int64? = nil)
        async throws(AggregatorError) -> AccountSummary {
        let name = try Self.validatedName(name)
        let accounts = try await read { try $0.accounts() }
        let target: StoredAccount
        if let named = accounts.first(where: { $0.name.lowercased() == name.lowercased() }) {
            target = named
        } else if let first = accounts.first, !accounts.contains(where: \.hasPassword) {
            target = first
        } else {
            // A new name: a new regular account (docs/ARCHITECTURE.md, `user set NAME` creates it).
            return try await addAccount(name: name, password: password, isAdmin: false)
        }
        // Hashed once the account is known: a refused name costs no Argon2id run.
        let hash = try await hashedPassword(password)
        // Sessions end first: if storing the password then fails, browsers log in again, no harm done.
        let changed = try await write { store in
            try await store.removeSessions(account: target.id, keeping: keepingSession)
            return try await store.setAccount(id: target.id, name: target.hasPassword ? target.name : name, passwordHash: hash)
        }
        guard changed else { throw .notFound("the user \(name) was removed meanwhile") }
        return try await accountSummary(AccountIdentity(target))
    }

    /// Renames an account. Its tokens and sessions stay valid; Fever is turned off (its key is made
    /// of the name).
    public func renameAccount(_ old: String, to new: String) async throws(AggregatorError) -> AccountSummary {
        let account = try await account(named: old)
        let new = try Self.validatedName(new)
        guard try await write({ try await $0.renameAccount(id: account.id, to: new) }) else {
            throw .alreadySubscribed("another user is named \(new)")
        }
        return try await accountSummary(account)
    }

    /// A name HTTP Basic can send, and that the pages and logs can show.
    static func validatedName(_ name: String) throws(AggregatorError) -> String {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64 else { throw .invalidArgument("the user name must be 1 to 64 characters") }
        guard !name.contains(":"), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("the user name cannot contain ':' or control characters (HTTP Basic could not send it)")
        }
        return name
    }

    func hashedPassword(_ password: String) async throws(AggregatorError) -> String {
        guard password.count >= Self.minimumPasswordLength else {
            throw .invalidArgument("the password must be at least \(Self.minimumPasswordLength) characters")
        }
        do {
            return try await authenticator.hash(password)
        } catch {
            throw .invalidArgument(error.description)
        }
    }

    /// Turns Fever's API on for `account` (storing md5 of "name:password", which Fever clients send:
    /// `password` must be the account's) or off (forgetting it).
    public func setFever(_ account: AccountIdentity, enabled: Bool, password: String?) async throws(AggregatorError)
        -> AccountSummary {
        let stored = try await storedAccount(account)
        var key: String?
        if enabled {
            guard stored.hasPassword else {
                throw .invalidArgument("\(stored.name) has no password yet: set one with 'aggregatorctl user set \(stored.name)'")
            }
            guard let password, await authenticator.verify(password, against: stored.passwordHash) else {
                throw .invalidArgument("that is not \(stored.name)'s password (Fever's key is made of it)")
            }
            key = MD5.hex("\(stored.name):\(password)")
        }
        guard try await write({ [key] in try await $0.setFeverKey(key, account: stored.id) }) else {
            throw .notFound("no user with id \(stored.id)")
        }
        return try await accountSummary(account)
    }

    /// The account with its password hash, to check a password against.
    func storedAccount(_ account: AccountIdentity) async throws(AggregatorError) -> StoredAccount {
        guard let stored = try await read({ try $0.account(id: account.id) }) else {
            throw .notFound("no user with id \(account.id)")
        }
        return stored
    }

    /// Whether any account can log in with a password (else a login is told how to set one up).
    public func hasLoginAccount() async -> Bool {
        (try? await read { try $0.accounts().contains(where: \.hasPassword) }) ?? true
    }

    // MARK: - API tokens

    /// Makes a new API token for `account` labelled `label` (default `token-N`); the secret is in the
    /// result only.
    /// How many API tokens `account` may hold (`max-tokens`, docs/SECURITY.md); nil: no limit (admins).
    public func tokenQuota(for account: AccountIdentity) async throws(AggregatorError) -> Int? {
        guard let limit = quotas.tokens else { return nil }
        return try await isAdmin(account) ? nil : limit
    }

    public func createToken(for account: AccountIdentity, label: String? = nil) async throws(AggregatorError) -> NewToken {
        if let limit = try await tokenQuota(for: account), try await tokens(for: account).count >= limit {
            throw .invalidArgument("max-tokens = \(limit) reached: an account may hold at most that many API tokens "
                + "(revoke one first, or ask an admin)")
        }
        let secret = SecretToken.generate()
        let digest = SecretToken.digest(secret)
        if let label {
            let label = label.trimmingCharacters(in: .whitespaces)
            guard !label.isEmpty, label.count <= 100,
                  !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .invalidArgument("a token label must be 1 to 100 characters, without control characters")
            }
            guard Int64(label) == nil else { throw .invalidArgument("a token label cannot be a number (revoke takes an id or a label)") }
            guard let token = try await write({ try await $0.addToken(label: label, digest: digest, account: account.id) }) else {
                throw .alreadySubscribed("a token labelled \(label) exists already (revoke it, or choose another label)")
            }
            return NewToken(token: token, secret: secret)
        }
        let count = try await tokens(for: account).count
        for number in (count + 1)...(count + 1000) {
            if let token = try await write({ try await $0.addToken(label: "token-\(number)", digest: digest, account: account.id) }) {
                return NewToken(token: token, secret: secret)
            }
        }
        throw .failed("no free label for the token: give one")
    }

    /// `account`'s API tokens (never the secrets), oldest first.
    public func tokens(for account: AccountIdentity) async throws(AggregatorError) -> [APIToken] {
        try await read { try $0.tokens(account: account.id) }
    }

    /// Revokes `account`'s token with this id or label: clients using it are refused from the next request on.
    public func revokeToken(_ idOrLabel: String, for account: AccountIdentity) async throws(AggregatorError) -> APIToken {
        guard let token = try await write({ try await $0.removeToken(idOrLabel: idOrLabel, account: account.id) }) else {
            throw .notFound("no token with id or label \(idOrLabel) (see 'aggregatorctl token list')")
        }
        return token
    }

    // MARK: - Logging in

    /// Checks what a client at `address` presented. Failures are counted per address and logged;
    /// past a few, the address must wait (doubling) before a password or Fever key it sends is checked
    /// again. The wait slows password guessing only: an API token (too long to guess) still lets its
    /// client in, so that one client guessing behind a NAT or a reverse proxy does not lock out the apps
    /// beside it that use tokens. A password is not checked at all while the address waits, not even
    /// against the ones verified lately: answering those would let a guesser test passwords at the
    /// cost of a digest each while the owner's app, sending its password on every request, syncs.
    public func authenticate(_ credentials: LoginCredentials, from address: String) async -> LoginVerdict {
        let throttle = authenticator.throttle
        var wait = throttle.wait(for: address)
        // Several daemons: failures counted on any of them (a read per login, only on a cluster).
        let shared = wait == 0 ? await cluster?.loginFailures(from: address) : nil
        if let shared { wait = throttle.wait(after: shared.count, lastAt: shared.last) }
        guard wait == 0 else {
            // Only a success is answered; a failure is not counted, and a success clears nothing.
            if case .token(let secret) = credentials, case .granted(let account)? = try? await checkToken(secret) {
                return .granted(account)
            }
            return .throttled(retryAfter: wait)
        }
        let verdict: LoginVerdict
        do {
            switch credentials {
            case .token(let secret): verdict = try await checkToken(secret)
            case .password(let name, let password): verdict = try await checkPassword(name: name, password: password)
            case .feverKey(let key): verdict = try await checkFeverKey(key)
            }
        } catch {
            verdict = .unavailable  // the store cannot be read: not the client's fault
        }
        switch verdict {
        case .granted:
            throttle.succeeded(address)
            if shared != nil { await cluster?.loginSucceeded(from: address) }
        case .refused, .noAccount:
            var failures = throttle.failed(address)
            if let cluster, let counted = await cluster.loginFailed(from: address) { failures = max(failures, counted) }
            var fields: KeyValuePairs<String, Any> = ["client": address, "failures": failures, "with": "token"]
            if case .password(let name, _) = credentials {
                fields = ["client": address, "failures": failures, "with": "password", "user": name]
            } else if case .feverKey = credentials {
                fields = ["client": address, "failures": failures, "with": "fever key"]
            }
            authLogger.warning("Login refused", fields)
        case .throttled, .unavailable:
            break
        }
        return verdict
    }

    private var authLogger: Logger { pipeline.logger.component("auth") }

    private func checkToken(_ secret: String) async throws(AggregatorError) -> LoginVerdict {
        let digest = SecretToken.digest(secret)
        let found = try await read { reader -> StoredAccount? in
            guard let token = try reader.token(digest: digest) else { return nil }
            return try reader.account(id: token.accountID)
        }
        guard let found else { return await hasLoginAccount() ? .refused : .noAccount }
        if let uses = authenticator.tokenUsed(digest) {
            // Bookkeeping, off the request's path: a failed write only loses a "last used" date.
            Task { [store] in try? await store.markTokensUsed(uses) }
        }
        return .granted(AccountIdentity(found))
    }

    private func checkFeverKey(_ key: String) async throws(AggregatorError) -> LoginVerdict {
        // Lower-case hex only: anything else matches no stored key (and cannot reach the query as a pattern).
        let key = key.lowercased()
        guard key.count == 32, key.allSatisfy(\.isHexDigit) else { return await hasLoginAccount() ? .refused : .noAccount }
        guard let found = try await read({ try $0.account(feverKey: key) }) else {
            return await hasLoginAccount() ? .refused : .noAccount
        }
        // Compared in constant time as before, though the lookup found it by value.
        guard let stored = found.feverKey, SecretToken.equal(key, stored) else { return .refused }
        loggedIn(found.id)
        return .granted(AccountIdentity(found))
    }

    private func checkPassword(name: String, password: String) async throws(AggregatorError) -> LoginVerdict {
        let (named, anyHash) = try await read { reader in
            (try reader.account(named: name), try reader.accounts().first(where: \.hasPassword)?.passwordHash)
        }
        guard let anyHash else { return .noAccount }
        guard let account = named, account.hasPassword else {
            // Same cost as a wrong password: the answer's timing does not tell whether the name exists.
            _ = await authenticator.verify(password, against: anyHash)
            return .refused
        }
        let key = authenticator.rememberedKey(name: account.name, password: password, hash: account.passwordHash)
        if authenticator.isRemembered(key) { return .granted(AccountIdentity(account)) }
        guard await authenticator.verify(password, against: account.passwordHash) else { return .refused }
        authenticator.remember(key)
        loggedIn(account.id)
        return .granted(AccountIdentity(account))
    }

    /// Notes a fresh login (a password verified, not a remembered one; a Fever key); written in batches.
    private func loggedIn(_ account: AccountID) {
        if let logins = authenticator.accountLoggedIn(account) {
            Task { [store] in try? await store.recordLogins(logins) }
        }
    }
}
