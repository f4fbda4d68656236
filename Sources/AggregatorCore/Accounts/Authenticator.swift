import Credentials
import FeedStore
import Foundation
import Synchronization

/// What a client presented to log in.
public enum LoginCredentials: Sendable {
    /// An API token (`X-Auth-Token`, a Google Reader auth token, …).
    case token(String)
    /// The account's name and password (HTTP Basic, a login form).
    case password(name: String, password: String)
    /// Fever's `api_key`: md5 of "name:password", accepted only while Fever is turned on.
    case feverKey(String)
}

/// The answer to a login.
public enum LoginVerdict: Sendable, Equatable {
    /// The account let in, if the login was granted.
    public var account: AccountIdentity? {
        if case .granted(let account) = self { return account }
        return nil
    }

    /// In, as this account.
    case granted(AccountIdentity)
    /// Wrong name, password or token.
    case refused
    /// No account has a password yet and no token matched: nothing can log in yet.
    case noAccount
    /// Too many failures from this address: try again after this many seconds (nothing was checked).
    case throttled(retryAfter: Int)
    /// The store could not be read: not the client's fault, not counted against it.
    case unavailable
}

/// The memory of logins: which name-and-password pairs were verified lately (so a client sending
/// Basic on every request costs one Argon2id hash, not one per request), the throttle of failures,
/// and token uses not yet written to the store.
final class Authenticator: Sendable {
    /// How long a verified password is taken without hashing it again.
    static let rememberFor: TimeInterval = 300
    static let rememberedCapacity = 1024

    let throttle = LoginThrottle()
    private let digest = KeyedDigest()
    /// Keyed digests of (name, password, stored hash) → when the verification expires. The stored
    /// hash is part of the key, so changing the password forgets every remembered login at once.
    private let remembered = Mutex<[[UInt8]: Date]>([:])
    /// Token digests → last use, written out at most once a minute.
    private let tokenUses = MinuteBatch<String>()
    /// Accounts' fresh logins → when, written out at most once a minute too.
    private let logins = MinuteBatch<AccountID>()

    /// Password checks run here, one at a time: each takes ~20 MiB and tens of milliseconds of CPU,
    /// and must neither pile up in memory nor hold a thread of Swift's cooperative pool.
    private static let hashingQueue = DispatchQueue(label: "password-hashing")

    func rememberedKey(name: String, password: String, hash: String) -> [UInt8] {
        digest.digest(name, password, hash)
    }

    func isRemembered(_ key: [UInt8], now: Date = Date()) -> Bool {
        remembered.withLock { ($0[key] ?? .distantPast) > now }
    }

    func remember(_ key: [UInt8], now: Date = Date()) {
        remembered.withLock { remembered in
            if remembered.count >= Self.rememberedCapacity { remembered = remembered.filter { $0.value > now } }
            if remembered.count >= Self.rememberedCapacity { remembered.removeAll() }
            remembered[key] = now.addingTimeInterval(Self.rememberFor)
        }
    }

    /// Verifies `password` against `hash` on the hashing queue.
    func verify(_ password: String, against hash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Self.hashingQueue.async { continuation.resume(returning: PasswordHash.verify(password, against: hash)) }
        }
    }

    /// Hashes a new password on the hashing queue.
    func hash(_ password: String) async throws(CredentialError) -> String {
        let result: Result<String, CredentialError> = await withCheckedContinuation { continuation in
            Self.hashingQueue.async { continuation.resume(returning: Result { () throws(CredentialError) in try PasswordHash.make(password) }) }
        }
        return try result.get()
    }

    /// Notes a token's use; returns the uses to write when a minute has passed since the last write.
    func tokenUsed(_ digest: String, now: Date = Date()) -> [String: Date]? {
        tokenUses.note(digest, at: now)
    }

    /// Notes an account's login; returns the logins to write when a minute has passed since the last write.
    func accountLoggedIn(_ account: AccountID, now: Date = Date()) -> [AccountID: Date]? {
        logins.note(account, at: now)
    }
}

/// When each key was last seen, handed out to be written at most once a minute: bookkeeping that
/// must not cost a write per request.
private final class MinuteBatch<Key: Hashable & Sendable>: Sendable {
    private let state = Mutex<(pending: [Key: Date], lastWrite: Date)>(([:], .distantPast))

    /// Notes `key` at `now`; returns everything noted when a minute has passed since the last hand-out.
    func note(_ key: Key, at now: Date) -> [Key: Date]? {
        state.withLock { state in
            state.pending[key] = now
            guard now.timeIntervalSince(state.lastWrite) >= 60 else { return nil }
            defer { state = ([:], now) }
            return state.pending
        }
    }
}
