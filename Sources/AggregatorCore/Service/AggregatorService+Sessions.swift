import Credentials
import FeedStore
import Foundation
import Synchronization

/// A web login just made: `secret` goes into the browser's cookie and is never stored.
public struct NewWebSession: Sendable, Equatable {
    public var session: WebSession
    public var secret: String
}

/// What a login form's answer was: a session, or the verdict that refused it.
public enum SessionStart: Sendable, Equatable {
    case started(NewWebSession)
    case refused(LoginVerdict)
}

extension AggregatorService {
    // MARK: - The web page's sessions

    /// A session not used for this long ends.
    public static let sessionLifetime: TimeInterval = 30 * 86_400

    /// Logs in to the web page with the account's name and password (throttled as every login).
    public func startSession(name: String, password: String, from address: String, userAgent: String)
        async -> SessionStart {
        let verdict = await authenticate(.password(name: name, password: password), from: address)
        guard let account = verdict.account else { return .refused(verdict) }
        let secret = SecretToken.generate()
        do {
            let session = try await write { store in
                try await store.addSession(digest: SecretToken.digest(secret), account: account.id, userAgent: String(userAgent.prefix(200)),
                                           address: address, expiredBefore: Date().addingTimeInterval(-Self.sessionLifetime))
            }
            return .started(NewWebSession(session: session, secret: secret))
        } catch {
            return .refused(.unavailable)
        }
    }

    /// The live session whose cookie holds `secret`, and its account, if any. Its last use is written at
    /// most once a minute.
    public func session(secret: String) async throws(AggregatorError) -> (WebSession, AccountIdentity)? {
        guard secret.count == 64 else { return nil }
        let digest = SecretToken.digest(secret)
        let now = Date()
        let found = try await read { reader -> (WebSession, StoredAccount)? in
            guard let session = try reader.session(digest: digest, expiredBefore: now.addingTimeInterval(-Self.sessionLifetime)),
                  let account = try reader.account(id: session.accountID) else { return nil }
            return (session, account)
        }
        guard let (session, account) = found else { return nil }
        if now.timeIntervalSince(session.lastSeenAt) >= 60 {
            // Bookkeeping, off the request's path: a failed write only loses a "last seen" date.
            Task { [store] in try? await store.touchSession(id: session.id, now: now) }
        }
        return (session, AccountIdentity(account))
    }

    /// `account`'s live sessions, the most recently used first.
    public func sessions(for account: AccountIdentity) async throws(AggregatorError) -> [WebSession] {
        try await read { try $0.sessions(account: account.id, expiredBefore: Date().addingTimeInterval(-Self.sessionLifetime)) }
    }

    /// Ends `account`'s session with this id (logging out, or revoked from the settings page).
    public func endSession(id: Int64, for account: AccountIdentity) async throws(AggregatorError) {
        guard try await write({ try await $0.removeSession(id: id, account: account.id) }) else {
            throw .notFound("no session with id \(id)")
        }
    }

    /// Changes `account`'s password after checking the current one; its every other session ends.
    public func changePassword(_ account: AccountIdentity, current: String, new: String, keepingSession: Int64)
        async throws(AggregatorError) -> AccountSummary {
        let stored = try await storedAccount(account)
        guard stored.hasPassword, await authenticator.verify(current, against: stored.passwordHash) else {
            throw .invalidArgument("the current password is not right")
        }
        return try await setPassword(name: stored.name, password: new, keepingSession: keepingSession)
    }
}
