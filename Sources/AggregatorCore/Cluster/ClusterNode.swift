import FeedFetcher
import FeedStore
import Foundation
import Synchronization

/// This daemon as one of several sharing a PostgreSQL database (docs/ARCHITECTURE.md): it claims feeds
/// before fetching them and renews its leases while it works, beats a heartbeat into `nodes`,
/// relays what it stores to the other daemons (NOTIFY) and hears theirs (LISTEN), and knows whether
/// the database answers (`/healthcheck`). docs/ARCHITECTURE.md, "Several daemons".
public final class ClusterNode: Sendable {
    let store: ClusterStore
    let uri: String
    /// How long a claim holds a feed without being renewed (`claim-lease`).
    public let lease: TimeInterval
    /// How many feeds of one host this daemon takes in one turn (docs/ARCHITECTURE.md: a host is one daemon's
    /// at a time): four per connection it may open to a host keeps them busy, and small turns let
    /// the daemons take turns on a server that carries many feeds.
    let feedsPerTurn: Int
    let logger: Logger
    public let started: Date
    /// Why the database cannot be used now; nil while it answers.
    private let trouble = Mutex<String?>(nil)
    private let lastRoundFetches = Mutex<Int?>(nil)
    /// The feeds this daemon claimed and has not finished: the only leases it renews.
    private let held = Mutex<Set<FeedID>>([])
    /// Signalled when another daemon says it is done with a host (`ClusterStore.freedChannel`).
    private let freed = Broadcast()  // several sources may wait at once: the scheduler's, a manual refresh
    /// Told of the writes daemons announce (`StoreReader.writesChannel`), and when the listener lost
    /// track of them for a while (`hearWrites`).
    private let writesHeard = Mutex<(heard: @Sendable (AccountID, Int64) -> Void, lostTrack: @Sendable () -> Void)?>(nil)
    private static let heartbeatInterval: TimeInterval = 10
    /// Separates the fields of a notification's payload (never in a name, number or URL).
    private static let separator: Character = "\u{1F}"

    /// This daemon's name: `node-name`, else `defaultName(socketPath:)`.
    public var name: String { store.node }

    /// Connects to the database at `uri` as the daemon `name`.
    /// - Throws: `StoreError` when it cannot connect.
    public init(uri: String, name: String, lease: TimeInterval, connectionsPerHost: Int, logger: Logger,
                started: Date = Date()) throws(StoreError) {
        store = try ClusterStore(uri: uri, node: name)
        self.uri = uri
        self.lease = lease
        feedsPerTurn = min(4 * max(1, connectionsPerHost), 100)
        self.logger = logger
        self.started = started
    }

    /// The name a daemon takes without `node-name`: the host name and a digest of its control
    /// socket's path. A restart has the same name, so it takes back at once the claims its killed
    /// predecessor left (`ClusterStore.register`) rather than leaving those feeds for a lease; two
    /// daemons of one host never share it (one socket path is one daemon's: the second is refused it).
    public static func defaultName(socketPath: String) -> String {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: the same in every process, unlike Hasher
        for byte in socketPath.utf8 {
            digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\(ProcessInfo.processInfo.hostName)-\(String(digest % 0x1_0000_0000, radix: 16))"
    }

    /// Why the database cannot be used now (for `/healthcheck` and systemd's status); nil while it answers.
    public var unavailableReason: String? { trouble.withLock { $0 } }

    /// Runs `body` against the shared database, recording whether it answered; nil when it failed.
    private func using<T>(_ what: String, _ body: () async throws(StoreError) -> T) async -> T? {
        do {
            let result = try await body()
            if trouble.withLock({ $0 }) != nil {
                trouble.withLock { $0 = nil }
                logger.info("The database answers again", ["node": name])
            }
            return result
        } catch {
            let first = trouble.withLock { state -> Bool in
                defer { state = error.description }
                return state == nil
            }
            logger.log(first ? .error : .debug, "Cannot use the database", ["node": name, "while": what, "error": error.description])
            return nil
        }
    }

    /// Hands `heard` each write announced on `StoreReader.writesChannel` (account, position), and
    /// calls `lostTrack` when announcements may have been missed (the listener reconnected).
    func hearWrites(_ heard: @escaping @Sendable (_ account: AccountID, _ position: Int64) -> Void,
                    lostTrack: @escaping @Sendable () -> Void) {
        writesHeard.withLock { $0 = (heard, lostTrack) }
    }

    /// A write announced on `StoreReader.writesChannel`: "account:position".
    private func heardWrite(_ payload: String) {
        let fields = payload.split(separator: ":")
        guard fields.count == 2, let account = Int64(fields[0]).map { AccountID($0) }, let position = Int64(fields[1]) else { return }
        writesHeard.withLock { $0 }?.heard(account, position)
    }

    // MARK: - Claims

    func claim(limit: Int, only: [FeedID]?) async -> ClusterStore.Claim? {
        await using("claiming feeds") { () throws(StoreError) in
            try await store.claim(limit: limit, perTurn: feedsPerTurn, lease: lease, only: only, host: FetchRequest.host(of:))
        }.map { claim in
            held.withLock { $0.formUnion(claim.feeds.map(\.id)) }
            return claim
        }
    }

    // MARK: - Login failures

    /// Failed logins from `address` counted by any daemon; nil when none, or the database is away
    /// (this daemon's own count still applies then).
    func loginFailures(from address: String) async -> (count: Int, last: Date)? {
        await using("reading login failures") { () throws(StoreError) in try await store.loginFailures(from: address) } ?? nil
    }

    /// Counts a failed login for the whole cluster. - Returns: the failures in a row, nil when the database is away.
    func loginFailed(from address: String) async -> Int? {
        await using("counting a login failure") { () throws(StoreError) in try await store.loginFailed(from: address) }
    }

    func loginSucceeded(from address: String) async {
        _ = await using("clearing login failures") { () throws(StoreError) in try await store.loginSucceeded(from: address) }
    }

    /// Returns when another daemon is done with a host (one this daemon may be waiting for), or after `limit`.
    func waitForAFreedHost(upTo limit: Duration) async {
        await withTaskGroup(of: Void.self) { [freed] group in
            group.addTask { try? await Task.sleep(for: limit) }
            group.addTask { await freed.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Fetches ended while no other daemon ran: their claims are not renewed, and their commits clear
    /// them (nobody waits for their hosts, so the database is not told before).
    func fetchedAlone(_ feedIDs: [FeedID]) {
        held.withLock { $0.subtract(feedIDs) }
    }

    func fetched(_ feedIDs: [FeedID]) async {
        // No longer renewed even if the database does not hear of it now: the lease then runs out.
        held.withLock { $0.subtract(feedIDs) }
        _ = await using("ending claims") { () throws(StoreError) in try await store.fetched(feedIDs) }
    }

    /// Makes feeds due for whichever daemon claims them first (`refresh`); how many, nil when the
    /// database did not answer.
    func makeDue(_ feedIDs: [FeedID]?) async -> Int? {
        await using("asking for a refresh") { () throws(StoreError) in try await store.makeDue(feedIDs) }
    }

    /// Wakes every daemon's scheduler: feeds were added or changed.
    func wakeEveryone() async {
        _ = await using("waking the other daemons") { () throws(StoreError) in try await store.wakeEveryone() }
    }

    func nextDue() async -> Date?? {
        await using("reading when feeds are due") { () throws(StoreError) in try await store.nextDue() }
    }

    func checks(_ feedIDs: [FeedID]) async -> [FeedID: ClusterStore.Check] {
        await using("reading feeds' checks") { () throws(StoreError) in try await store.checks(feedIDs) } ?? [:]
    }

    /// The daemons seen in the last minute, for `status`.
    public func nodes() async -> [ClusterStore.Node]? {
        await using("listing the daemons") { () throws(StoreError) in try await store.nodes() }
    }

    /// A round finished with `fetches` fetches: the next heartbeat says so.
    func roundFinished(fetches: Int) {
        lastRoundFetches.withLock { $0 = fetches }
    }

    /// Asks the database whether it answers now (`/healthcheck`); the reason when it does not. Answers
    /// within `healthcheckWait` whatever the database does (docs/RELIABILITY.md, "A silent network"):
    /// a check still running then counts as no answer, and is the one the next ask waits for.
    public func checkDatabase() async -> String? {
        let check = checking.withLock { running -> Task<Void, Never> in
            if let running { return running }
            let task = Task {
                _ = await self.using("checking the database") { () throws(StoreError) in try await self.store.check() }
                self.checking.withLock { $0 = nil }
            }
            running = task
            return task
        }
        let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let first = FirstAnswer(continuation)
            Task { await check.value; first.give(true) }
            Task { try? await Task.sleep(for: Self.healthcheckWait); first.give(false) }
        }
        return answered ? unavailableReason : unavailableReason ?? "the database did not answer within a second"
    }

    /// The database check under way (`checkDatabase`), if any.
    private let checking = Mutex<Task<Void, Never>?>(nil)
    static let healthcheckWait = Duration.milliseconds(800)

    // MARK: - Running

    /// Until cancelled: registers, beats the heartbeat, renews the leases it holds, relays events
    /// both ways, and wakes `scheduler` when another daemon asks for a refresh. Gives its claims back
    /// when it ends (a stop signal), so that others need not wait for the lease.
    func run(events: EventHub, scheduler: Scheduler) async {
        _ = await using("registering") { () throws(StoreError) in try await store.register(started: started, lease: lease) }
        let node = name
        let listener = PostgresListener(uri: uri, channels: [ClusterStore.eventChannel, ClusterStore.wakeChannel,
                                                             ClusterStore.freedChannel, StoreReader.writesChannel],
                                        onNotification: { [freed, self] channel, payload in
            if channel == StoreReader.writesChannel {
                heardWrite(payload)
            } else if channel == ClusterStore.freedChannel {
                freed.signal()
            } else if channel == ClusterStore.wakeChannel {
                scheduler.wake()
            } else if let (sender, event) = Self.decode(payload), sender != node {
                events.publishFromElsewhere(event)
            }
        }, onReconnect: { [self] in
            // What was sent while away is lost: watchers read the store again, schedulers look again,
            // standbys must replay whatever was written meanwhile.
            writesHeard.withLock { $0 }?.lostTrack()
            events.publishFromElsewhere(.entriesStored(count: 0))
            scheduler.wake()
        }, onTrouble: { [logger] reason in logger.warning("Event relay: \(reason)", ["node": node]) })
        defer { listener.stop() }
        let (relayed, relay) = AsyncStream.makeStream(of: ServiceEvent.self, bufferingPolicy: .bufferingNewest(256))
        events.relayLocalEvents { event in relay.yield(event) }
        defer { events.relayLocalEvents(nil) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in relayed {
                    guard let payload = Self.encode(event, from: node) else { continue }
                    _ = await self.using("relaying an event") { () throws(StoreError) in
                        try await self.store.notify(ClusterStore.eventChannel, payload)
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    let fetches = self.lastRoundFetches.withLock { value -> Int? in defer { value = nil }; return value }
                    _ = await self.using("beating the heartbeat") { () throws(StoreError) in
                        try await self.store.heartbeat(lastRoundFetches: fetches)
                    }
                    try? await Task.sleep(for: .seconds(Self.heartbeatInterval))
                }
            }
            group.addTask { await self.keepRenewingClaims() }
            await group.waitForAll()
        }
        relay.finish()
        _ = await using("giving claims back") { () throws(StoreError) in try await store.releaseClaims() }
    }

    /// Renews the leases of the feeds this daemon works on every third of a lease, until cancelled.
    func keepRenewingClaims() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(lease / 3))
            guard !Task.isCancelled else { break }
            let ids = Array(held.withLock { $0 })
            _ = await using("renewing claims") { () throws(StoreError) in try await store.renewClaims(ids, lease: lease) }
        }
    }

    // MARK: - Events between daemons

    /// The payload of a notification: sender, kind, fields.
    static func encode(_ event: ServiceEvent, from node: String) -> String? {
        let s = String(separator)
        switch event {
        case .entriesStored(let count): return [node, "stored", String(count)].joined(separator: s)
        case .feedFailed(let feedID, let url, let reason): return [node, "failed", feedID.description, url, reason].joined(separator: s)
        case .roundFinished: return nil  // each daemon's own
        }
    }

    static func decode(_ payload: String) -> (node: String, event: ServiceEvent)? {
        let fields = payload.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3 else { return nil }
        switch fields[1] {
        case "stored": return Int(fields[2]).map { (fields[0], .entriesStored(count: $0)) }
        case "failed" where fields.count >= 5:
            return Int64(fields[2]).map { (fields[0], .feedFailed(feedID: FeedID($0), url: fields[3], reason: fields[4...].joined())) }
        default: return nil
        }
    }
}

/// Resumes a continuation with the first of the answers given, once.
private final class FirstAnswer: Sendable {
    private let continuation: CheckedContinuation<Bool, Never>
    private let given = Atomic<Bool>(false)

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = continuation
    }

    func give(_ answer: Bool) {
        if given.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            continuation.resume(returning: answer)
        }
    }
}
