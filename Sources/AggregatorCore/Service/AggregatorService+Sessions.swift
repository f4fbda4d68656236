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
        guard verdict == .granted else { return .refused(verdict) }
        let secret = SecretToken.generate()
        do {
            let session = try await write { store in
                try await store.addSession(digest: SecretToken.digest(secret), userAgent: String(userAgent.prefix(200)),
                                           address: address, expiredBefore: Date().addingTimeInterval(-Self.sessionLifetime))
            }
            return .started(NewWebSession(session: session, secret: secret))
        } catch {
            return .refused(.unavailable)
        }
    }

    /// The live session whose cookie holds `secret`, if any. Its last use is written at most once a minute.
    public func session(secret: String) async throws(AggregatorError) -> WebSession? {
        guard secret.count == 64 else { return nil }
        let digest = SecretToken.digest(secret)
        let now = Date()
        guard let session = try await read({ try $0.session(digest: digest, expiredBefore: now.addingTimeInterval(-Self.sessionLifetime)) })
        else { return nil }
        if now.timeIntervalSince(session.lastSeenAt) >= 60 {
            // Bookkeeping, off the request's path: a failed write only loses a "last seen" date.
            Task { [store] in try? await store.touchSession(id: session.id, now: now) }
        }
        return session
    }

    /// Every live session, the most recently used first.
    public func sessions() async throws(AggregatorError) -> [WebSession] {
        try await read { try $0.sessions(expiredBefore: Date().addingTimeInterval(-Self.sessionLifetime)) }
    }

    /// Ends the session with this id (logging out, or revoked from the settings page).
    public func endSession(id: Int64) async throws(AggregatorError) {
        guard try await write({ try await $0.removeSession(id: id) }) else { throw .notFound("no session with id \(id)") }
    }

    /// Changes the account's password after checking the current one; every other session ends.
    public func changePassword(current: String, new: String, keepingSession: Int64) async throws(AggregatorError)
        -> AccountSummary {
        let account = try await storedAccount()
        guard await authenticator.verify(current, against: account.passwordHash) else {
            throw .invalidArgument("the current password is not right")
        }
        return try await setAccount(name: account.name, password: new, keepingSession: keepingSession)
    }
}
