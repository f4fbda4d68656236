import Credentials
import FeedStore
import Foundation

/// The owner account as shown: never its password or hash.
public struct AccountSummary: Sendable, Equatable {
    public var name: String
    public var createdAt: Date
    public var updatedAt: Date
    public var feverEnabled: Bool
    public var tokens: Int
}

/// A token just made: listed from now on by its id and label; `secret` is shown this once.
public struct NewToken: Sendable, Equatable {
    public var token: APIToken
    public var secret: String
}

extension AggregatorService {
    // MARK: - The account

    /// The shortest password taken.
    public static let minimumPasswordLength = 8

    /// Creates the owner account, or gives it a new name and password. Tokens stay valid; logins
    /// remembered with the old password are forgotten, and the web page's sessions end but
    /// `keepingSession` (the browser that changed it).
    public func setAccount(name: String, password: String, keepingSession: Int64? = nil)
        async throws(AggregatorError) -> AccountSummary {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64 else { throw .invalidArgument("the user name must be 1 to 64 characters") }
        guard !name.contains(":"), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("the user name cannot contain ':' or control characters (HTTP Basic could not send it)")
        }
        guard password.count >= Self.minimumPasswordLength else {
            throw .invalidArgument("the password must be at least \(Self.minimumPasswordLength) characters")
        }
        let hash: String
        do {
            hash = try await authenticator.hash(password)
        } catch {
            throw .invalidArgument(error.description)
        }
        // Fever's key is made of the password: a new password turns Fever off until turned on again.
        // Sessions end first: if storing the account then fails, browsers log in again, no harm done.
        try await write { store in
            try await store.removeSessions(keeping: keepingSession)
            try await store.setAccount(name: name, passwordHash: hash, feverKey: nil)
        }
        guard let account = try await account() else { throw .unavailable("the account was not stored") }
        return account
    }

    /// The owner account, or nil when none was set.
    public func account() async throws(AggregatorError) -> AccountSummary? {
        let (stored, tokens) = try await read { reader in (try reader.account(), try reader.tokens().count) }
        return stored.map {
            AccountSummary(name: $0.name, createdAt: $0.createdAt, updatedAt: $0.updatedAt, feverEnabled: $0.feverKey != nil,
                           tokens: tokens)
        }
    }

    /// Turns Fever's API on (storing md5 of "name:password", which Fever clients send: `password`
    /// must be the account's) or off (forgetting it).
    public func setFever(enabled: Bool, password: String?) async throws(AggregatorError) -> AccountSummary {
        let account = try await storedAccount()
        var key: String?
        if enabled {
            guard let password, await authenticator.verify(password, against: account.passwordHash) else {
                throw .invalidArgument("that is not the account's password (Fever's key is made of it)")
            }
            key = MD5.hex("\(account.name):\(password)")
        }
        _ = try await write { [key] in try await $0.setFeverKey(key) }
        guard let summary = try await self.account() else { throw .unavailable("the account cannot be read back") }
        return summary
    }

    /// The account with its password hash, to check a password against; an error when none was set.
    func storedAccount() async throws(AggregatorError) -> StoredAccount {
        guard let account = try await read({ try $0.account() }) else {
            throw .notFound("no account yet: create it with 'aggregatorctl user set NAME'")
        }
        return account
    }

    // MARK: - API tokens

    /// Makes a new API token labelled `label` (default `token-N`); the secret is in the result only.
    public func createToken(label: String? = nil) async throws(AggregatorError) -> NewToken {
        let secret = SecretToken.generate()
        let digest = SecretToken.digest(secret)
        if let label {
            let label = label.trimmingCharacters(in: .whitespaces)
            guard !label.isEmpty, label.count <= 100,
                  !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .invalidArgument("a token label must be 1 to 100 characters, without control characters")
            }
            guard Int64(label) == nil else { throw .invalidArgument("a token label cannot be a number (revoke takes an id or a label)") }
            guard let token = try await write({ try await $0.addToken(label: label, digest: digest) }) else {
                throw .alreadySubscribed("a token labelled \(label) exists already (revoke it, or choose another label)")
            }
            return NewToken(token: token, secret: secret)
        }
        let count = try await tokens().count
        for number in (count + 1)...(count + 1000) {
            if let token = try await write({ try await $0.addToken(label: "token-\(number)", digest: digest) }) {
                return NewToken(token: token, secret: secret)
            }
        }
        throw .failed("no free label for the token: give one")
    }

    /// Every API token (never the secrets), oldest first.
    public func tokens() async throws(AggregatorError) -> [APIToken] {
        try await read { try $0.tokens() }
    }

    /// Revokes the token with this id or label: clients using it are refused from the next request on.
    public func revokeToken(_ idOrLabel: String) async throws(AggregatorError) -> APIToken {
        guard let token = try await write({ try await $0.removeToken(idOrLabel: idOrLabel) }) else {
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
        let wait = throttle.wait(for: address)
        guard wait == 0 else {
            // Only a success is answered; a failure is not counted, and a success clears nothing.
            return await isGrantedWithoutGuessing(credentials) ? .granted : .throttled(retryAfter: wait)
        }
        let verdict: LoginVerdict
        do {
            let account = try await read { try $0.account() }
            switch credentials {
            case .token(let secret): verdict = try await checkToken(secret, account: account)
            case .password(let name, let password): verdict = await checkPassword(name: name, password: password, account: account)
            case .feverKey(let key): verdict = Self.checkFeverKey(key, account: account)
            }
        } catch {
            verdict = .unavailable  // the store cannot be read: not the client's fault
        }
        switch verdict {
        case .granted:
            throttle.succeeded(address)
        case .refused, .noAccount:
            let failures = throttle.failed(address)
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

    /// Whether `credentials` are a valid API token: what a throttled address may still use, since
    /// checking one helps no one guess a password. Passwords and Fever keys (md5 of the name and
    /// password) wait.
    private func isGrantedWithoutGuessing(_ credentials: LoginCredentials) async -> Bool {
        guard case .token(let secret) = credentials else { return false }
        return (try? await checkToken(secret, account: nil)) == .granted
    }

    private func checkToken(_ secret: String, account: StoredAccount?) async throws(AggregatorError) -> LoginVerdict {
        let digest = SecretToken.digest(secret)
        guard try await read({ try $0.token(digest: digest) }) != nil else { return account == nil ? .noAccount : .refused }
        if let uses = authenticator.tokenUsed(digest) {
            // Bookkeeping, off the request's path: a failed write only loses a "last used" date.
            Task { [store] in try? await store.markTokensUsed(uses) }
        }
        return .granted
    }

    private static func checkFeverKey(_ key: String, account: StoredAccount?) -> LoginVerdict {
        guard let account else { return .noAccount }
        guard let expected = account.feverKey else { return .refused }  // Fever is off
        return SecretToken.equal(key.lowercased(), expected) ? .granted : .refused
    }

    private func checkPassword(name: String, password: String, account: StoredAccount?) async -> LoginVerdict {
        guard let account else { return .noAccount }
        guard name == account.name else {
            // Same cost as a wrong password: the answer's timing does not tell whether the name exists.
            _ = await authenticator.verify(password, against: account.passwordHash)
            return .refused
        }
        let key = authenticator.rememberedKey(name: name, password: password, hash: account.passwordHash)
        if authenticator.isRemembered(key) { return .granted }
        guard await authenticator.verify(password, against: account.passwordHash) else { return .refused }
        authenticator.remember(key)
        return .granted
    }
}
