import ControlProtocol
import FeedStore
import Foundation
import Synchronization

/// Everything a user can do, in one place, for every front end (the control socket now; the HTTP
/// APIs and the web page next): typed calls, typed results, and `AggregatorError` for what went
/// wrong. Front ends decode a request, call one method, and encode the result; none of them reaches
/// the store, the scheduler or the pipeline itself. See docs/ARCHITECTURE.md, "The service".
///
/// Reads go to a pool of read connections; writes to the store's writer actor; refreshes to the
/// scheduler (in the background) or the pipeline (waited for).
public final class AggregatorService: Sendable {
    let store: FeedStore
    let scheduler: Scheduler
    let pipeline: RefreshPipeline
    let readers: StoreReaderPool
    /// Lists and searches from standbys (`database-read`); nil: the primary answers them.
    let standbys: StandbyReads?
    let started: Date
    /// Verified logins remembered, failures throttled, token uses pending.
    let authenticator = Authenticator()
    /// What a regular account may hold (`max-subscriptions`, …), as the configuration last said.
    let quotaSettings = Mutex(Quotas())
    /// Accounts' stored entries being judged again by their new rules.
    let ruleJudging = RuleJudging()
    /// Regular accounts' refreshes on demand, bounded.
    let refreshLimiter = RefreshLimiter()

    /// - Parameter standby: `database-read`, the PostgreSQL standbys that answer lists and searches.
    public init(store: FeedStore, scheduler: Scheduler, pipeline: RefreshPipeline, started: Date = Date(),
                standby: String? = nil) {
        self.store = store
        self.scheduler = scheduler
        self.pipeline = pipeline
        self.started = started
        let readers = StoreReaderPool(path: store.path)
        self.readers = readers
        standbys = standby.map { StandbyReads(uri: $0, primary: readers, logger: pipeline.logger.component("standby")) }
        if let standbys {
            scheduler.cluster?.hearWrites({ standbys.heard(account: $0, wroteUpTo: $1) }, lostTrack: { standbys.lostTrack() })
        }
    }

    /// What happens in the daemon as it happens (entries stored, rounds finished, feeds failing),
    /// for any number of subscribers.
    public var events: EventHub { pipeline.events }

    // MARK: - Status and maintenance

    /// The server's state as `account` may see it: an admin's has the server's feeds, entries,
    /// database size and daemons; a regular account's counts only its own feeds and entries
    /// (docs/SECURITY.md, "Counts"). The unread count is always the account's. The control socket, whose users act
    /// as admins, asks for the server's view (`serverWide`) whichever account it acts for.
    public func status(for account: AccountIdentity, serverWide: Bool? = nil) async throws(AggregatorError) -> ServiceStatus {
        let serverWide = if let serverWide { serverWide } else { try await isAdmin(account) }
        let totals = try await read { try $0.totals(account: account.id, serverWide: serverWide) }
        let size = serverWide ? await store.sizeInBytes() : nil
        var status = ServiceStatus(version: AggregatorVersion.current, uptime: Date().timeIntervalSince(started),
                                   databasePath: FeedStore.location(of: store.path), databaseBytes: size, totals: totals,
                                   lastRound: await scheduler.lastRound, nextDue: await scheduler.nextDue)
        if serverWide, let cluster = scheduler.cluster { status.nodes = await cluster.nodes() ?? [] }
        return status
    }

    /// How many entries the account reads, and how many of them are unread.
    public func entryCounts(for account: AccountIdentity) async throws(AggregatorError) -> EntryCounts {
        try await read { try $0.accountCounts(account.id) }
    }

    /// What every refresh round since the start did, added up.
    public var refreshTotals: RefreshTotals { pipeline.totals }

    /// Copies the database, consistent as of one moment, to `path` (absolute); returns its size.
    public func backup(to path: String) async throws(AggregatorError) -> Int? {
        guard path.hasPrefix("/") else { throw .invalidArgument("the backup path must be absolute: \(path)") }
        try await write { try await $0.backup(to: path) }
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    // MARK: - Store access

    /// Runs `body` with a read connection of the pool, on a thread of the readers' queue (SQLite
    /// blocks: not on Swift's cooperative pool), store failures as the service's errors.
    func read<T: Sendable>(_ body: @escaping @Sendable (StoreReader) throws -> T) async throws(AggregatorError) -> T {
        let readers = self.readers
        let result: Result<T, AggregatorError> = await withCheckedContinuation { continuation in
            Self.readQueue.async {
                continuation.resume(returning: Result { try readers.withReader(body) }.mapError(Self.translated))
            }
        }
        return try result.get()
    }

    /// Where reads run: a queue of its own, whose threads Dispatch adds as reads block.
    private static let readQueue = DispatchQueue(label: "store-readers", attributes: .concurrent)

    /// Runs `body` for a list or search of `account`'s: on a standby (`database-read`) when one has
    /// replayed what the account wrote (`StandbyReads`), else as `read` does.
    func listRead<T: Sendable>(for account: AccountIdentity,
                               _ body: @escaping @Sendable (StoreReader) throws -> T) async throws(AggregatorError) -> T {
        guard let standbys else { return try await read(body) }
        let answer: Result<T, AggregatorError>? = await withCheckedContinuation { continuation in
            Self.readQueue.async {
                continuation.resume(returning: standbys.read(for: account.id, body)?.mapError(Self.translated))
            }
        }
        if let answer { return try answer.get() }
        return try await read(body)
    }

    /// `write` for what `account` sees: with standbys, its later lists wait for this write to be
    /// replayed (on every daemon: it is announced before this returns), whether or not it succeeded.
    @discardableResult
    func write<T>(for account: AccountID, _ body: (FeedStore) async throws -> T) async throws(AggregatorError) -> T {
        do {
            let result = try await write(body)
            await noteWrite(account)
            return result
        } catch {
            await noteWrite(account)  // a part may have been stored
            throw error
        }
    }

    /// With standbys: `account` wrote (`StandbyReads.wrote`).
    func noteWrite(_ account: AccountID) async {
        guard let standbys else { return }
        await withCheckedContinuation { continuation in
            Self.readQueue.async {
                standbys.wrote(account: account)
                continuation.resume()
            }
        }
    }

    /// Runs `body` against the writer, store failures as the service's errors.
    func write<T>(_ body: (FeedStore) async throws -> T) async throws(AggregatorError) -> T {
        do {
            return try await body(store)
        } catch {
            throw Self.translated(error)
        }
    }

    static func translated(_ error: any Error) -> AggregatorError {
        switch error {
        case let error as AggregatorError: error
        case let error as StoreError: AggregatorError(error)
        default: .unavailable(String(describing: error))
        }
    }

    /// The id of the account's subscription named by id or URL; another account's is not found.
    func feedID(_ reference: FeedReference, for account: AccountIdentity) async throws(AggregatorError) -> SubscriptionID {
        switch reference {
        case .id(let id):
            guard try await read({ try $0.subscriptionCounts(id, account: account.id) }) != nil else {
                throw .notFound("no feed with id \(id)")
            }
            return id
        case .url(let url):
            guard let id = try await write({ try await $0.feedID(url: url, account: account.id) }) else {
                throw .notFound("no feed with URL \(url)")
            }
            return id
        }
    }
}
