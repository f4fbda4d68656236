import FeedStore
import Foundation
import Synchronization

/// Owns when feeds are refreshed (docs/ARCHITECTURE.md, "Scheduling"): sleeps until the earliest
/// due feed or until woken, refreshes every due feed (and every feed asked for) in one round, records
/// the round, and starts no round once cancelled. Between rounds nothing runs: the sleep is one timer
/// raced against a wake-up call, not a loop that looks at the clock.
public actor Scheduler {
    private let store: FeedStore
    private let pipeline: RefreshPipeline
    private let logger: Logger
    private let clock: any SchedulerClock
    /// The last finished round, for `status`.
    public private(set) var lastRound: FinishedRound?
    /// When the next round is due, for `status`; nil while there is no feed to check.
    public private(set) var nextDue: Date?
    private let wakeSignal = WakeSignal()
    /// Feeds asked for by name since the last round: the next round fetches them, due or not.
    private var requested: Set<FeedID> = []
    /// Every feed was asked for since the last round.
    private var isEverythingRequested = false
    /// How long entries are kept; a reload may change it.
    public private(set) var retention: RetentionPolicy
    private var lastRetention: Date?
    /// Retention runs after a round at most this often: expiring is cheap, but not free at a million entries.
    static let retentionInterval: TimeInterval = 3600
    /// Whether the scheduler is alive (each round's progress, each sleep that ends on time): the watchdog's source.
    public nonisolated let heartbeat = Heartbeat()
    /// Feeds' icons are looked for after rounds (when `findsIcons`), in the background, one pass at a time.
    private var iconPass: Task<Void, Never>?
    public private(set) var findsIcons: Bool
    /// Pages of new entries are crawled after rounds (for subscriptions with `crawler` on), one pass at a time.
    private var crawlPass: Task<Void, Never>?
    private let crawler: PageCrawler
    /// This daemon among others on a shared PostgreSQL database: feeds are claimed, not just taken.
    nonisolated let cluster: ClusterNode?
    /// The longest a daemon among others sleeps: a wake-up another sent may have been lost.
    static let clusterSleepLimit: TimeInterval = 60

    public init(store: FeedStore, pipeline: RefreshPipeline, logger: Logger, retention: RetentionPolicy = RetentionPolicy(),
                findsIcons: Bool = false, cluster: ClusterNode? = nil, clock: any SchedulerClock = SystemClock()) {
        self.findsIcons = findsIcons
        self.cluster = cluster
        if cluster != nil { pipeline.commitGroupsAtOnce() }
        self.store = store
        self.pipeline = pipeline
        self.logger = logger
        self.retention = retention
        self.clock = clock
        crawler = PageCrawler(store: store, pipeline: pipeline, logger: logger)
    }

    /// Applies `policy` from the next retention run on; it runs after the next round.
    public func setRetention(_ policy: RetentionPolicy) {
        if policy != retention { lastRetention = nil }
        retention = policy
    }

    /// Turns looking for feed icons after rounds on or off (`feed-icons`).
    public func setFindsIcons(_ enabled: Bool) {
        findsIcons = enabled
    }

    /// Ends the current sleep: the scheduler reads the feeds again and refreshes those now due
    /// (after feeds were added, say).
    public nonisolated func wake() {
        wakeSignal.signal()
    }

    /// `wake()`, and among several daemons every other one too (feeds were added or changed).
    public nonisolated func wakeEveryone() {
        wakeSignal.signal()
        if let cluster { Task { await cluster.wakeEveryone() } }
    }

    /// Has the next round, starting now, fetch `feedIDs` whether they are due or not; every feed
    /// when nil. Feeds already being fetched are joined, not fetched twice.
    public func refreshSoon(_ feedIDs: [FeedID]?) {
        if let feedIDs { requested.formUnion(feedIDs) } else { isEverythingRequested = true }
        wakeSignal.signal()
    }

    /// Runs rounds until the calling task is cancelled (SIGTERM/SIGINT cancel the daemon's root task).
    /// - Parameter onRound: called after each round, e.g. to tell systemd the status.
    public func run(onRound: @Sendable (RefreshSummary) -> Void = { _ in }) async {
        defer { iconPass?.cancel(); crawlPass?.cancel() }
        if let cluster {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await cluster.run(events: self.pipeline.events, scheduler: self) }
                await runClaimingRounds(cluster, onRound: onRound)
                group.cancelAll()
            }
            return
        }
        while !Task.isCancelled {
            heartbeat.beat()
            do {
                let now = clock.now
                let feeds = try await store.feedsToFetch()
                // Asked-for feeds are taken only now, after the `await`: one asked for meanwhile counts.
                let (everything, named) = (isEverythingRequested, requested)
                (isEverythingRequested, requested) = (false, [])
                let due = feeds.filter { everything || named.contains($0.id) || ($0.nextCheckAt ?? .distantPast) <= now }
                if !due.isEmpty {
                    let heartbeat = self.heartbeat
                    let summary = await pipeline.refresh(due) { _, _ in heartbeat.beat() }
                    guard !Task.isCancelled else { return }
                    roundEnded(summary, onRound: onRound)
                }
                await expireOldEntriesIfDue(now: clock.now)
                // After a round the due times changed; without one, the list just read is current.
                var upcoming = (due.isEmpty ? feeds : try await store.feedsToFetch()).compactMap(\.nextCheckAt).min()
                if let round = lastRound, round.summary.unstored > 0, round.finished >= now, let next = upcoming {
                    // Results could not be stored (a full disk?): not again at once, even for feeds
                    // whose failure could not be recorded either and so still look due.
                    upcoming = max(next, clock.now.addingTimeInterval(pipeline.policy.minimumInterval))
                }
                nextDue = upcoming
                logger.debug("Sleeping until the next due feed",
                             ["seconds": upcoming.map { Int(max(0, $0.timeIntervalSince(clock.now))) } ?? -1])
                // Without feeds there is nothing to wait for but a wake-up (a feed added, a refresh asked for).
                try await sleep(until: upcoming)
            } catch is CancellationError {
                return
            } catch {
                logger.error("Scheduler cannot read feeds; retrying in 30 s", ["error": String(describing: error)])
                try? await sleep(until: clock.now.addingTimeInterval(30))
            }
        }
    }

    /// The rounds of a daemon among several (docs/ARCHITECTURE.md): each claims due feeds in batches as it
    /// goes until none is left that it may take, then sleeps until the soonest due time (a minute at
    /// most) or until any daemon asks for a refresh. When the database is away, it tries again after
    /// 1 s, 2 s, 4 s … up to 30 s.
    private func runClaimingRounds(_ cluster: ClusterNode, onRound: @Sendable (RefreshSummary) -> Void) async {
        var pause: TimeInterval = 1
        while !Task.isCancelled {
            heartbeat.beat()
            let heartbeat = self.heartbeat
            let source = ClaimedFeeds(cluster: cluster)
            let summary = await pipeline.refresh(from: source) { _, _ in heartbeat.beat() }
            guard !Task.isCancelled else { return }
            if summary.feeds > 0 {
                cluster.roundFinished(fetches: summary.feeds)
                roundEnded(summary, onRound: onRound)
            }
            await expireOldEntriesIfDue(now: clock.now)
            var deadline = clock.now.addingTimeInterval(Self.clusterSleepLimit)
            if let due = await cluster.nextDue() {
                pause = 1
                if let due { deadline = min(deadline, due) }
                // A feed due but locked by another daemon's transaction is not claimable this instant.
                if summary.feeds == 0 { deadline = max(deadline, clock.now.addingTimeInterval(0.5)) }
                nextDue = due.map { _ in deadline }  // without feeds nothing is due (`status`: none)
            } else {
                deadline = clock.now.addingTimeInterval(pause)
                pause = min(pause * 2, 30)
            }
            try? await sleep(until: deadline)
        }
    }

    /// A round of either loop ended: kept for `status`, logged (with this daemon's name among several),
    /// reported, and the passes that follow rounds started.
    private func roundEnded(_ summary: RefreshSummary, onRound: @Sendable (RefreshSummary) -> Void) {
        lastRound = FinishedRound(finished: clock.now, summary: summary)
        let seconds = String(format: "%.2f", summary.seconds)
        if let cluster {
            logger.info("Refresh round done", ["feeds": summary.feeds, "ok": summary.ok, "not_modified": summary.notModified,
                                               "failed": summary.failed, "new_entries": summary.newEntries,
                                               "seconds": seconds, "node": cluster.name])
        } else {
            logger.info("Refresh round done", ["feeds": summary.feeds, "ok": summary.ok, "not_modified": summary.notModified,
                                               "failed": summary.failed, "new_entries": summary.newEntries,
                                               "seconds": seconds])
        }
        onRound(summary)
        startBackgroundPasses()
    }

    /// After a round (the scheduler's, or one `refresh --wait` ran): the icons due and the pages to crawl,
    /// each in a pass of its own unless one is still going; neither ever delays a round.
    func startBackgroundPasses() {
        findIconsUnlessLooking()
        guard crawlPass == nil else { return }
        let crawler = self.crawler
        crawlPass = Task {
            await crawler.run()
            self.crawlPassEnded()
        }
    }

    private func crawlPassEnded() {
        crawlPass = nil
    }

    /// Starts a pass over the feeds whose icons are due, unless one is still going: it never delays a round.
    private func findIconsUnlessLooking() {
        guard findsIcons, iconPass == nil else { return }
        let finder = IconFinder(store: store, fetcher: pipeline.fetcher, logger: logger, limits: pipeline.limits,
                                regularAccountsRule: pipeline.regularAccountsRule)
        iconPass = Task {
            await finder.run()
            self.iconPassEnded()
        }
    }

    private func iconPassEnded() {
        iconPass = nil
    }

    /// Returns at `deadline` (never, when nil) or at a wake-up call, whichever comes first.
    /// - Throws: `CancellationError` when the task is cancelled meanwhile.
    private func sleep(until deadline: Date?) async throws {
        heartbeat.sleeping(until: deadline)
        defer { heartbeat.beat() }
        await withTaskGroup(of: Void.self) { [clock, wakeSignal] group in
            if let deadline { group.addTask { try? await clock.sleep(until: deadline) } }
            group.addTask { await wakeSignal.wait() }
            await group.next()  // the first to end; cancelling the group ends the other one
            group.cancelAll()
        }
        try Task.checkCancellation()
    }
}

extension Scheduler {
    /// Expires old entries when the last run was long enough ago (and after every start); `--once`
    /// calls it after its round too.
    public func expireOldEntriesIfDue(now: Date) async {
        if let lastRetention, now.timeIntervalSince(lastRetention) < Self.retentionInterval { return }
        lastRetention = now
        let policy = retention
        let expired: Int
        do {
            expired = try await store.expire(policy, now: now)
        } catch {
            logger.error("Retention run failed; trying again in an hour", ["error": error.description])
            return
        }
        heartbeat.beat()
        let fields: KeyValuePairs<String, Any> = ["expired": expired, "days": policy.maximumAgeDays ?? 0,
                                                  "keep_per_feed": policy.keepNewestPerFeed]
        logger.log(expired > 0 ? .info : .debug, "Retention run done", fields)
    }
}

/// Whether a piece of the daemon is alive, for the systemd watchdog: it beats while it works, and says
/// until when it sleeps when it has nothing to do. Asleep, it is alive until its deadline is overdue.
public final class Heartbeat: Sendable {
    private struct State {
        var last: Date
        /// Asleep until then (`.distantFuture`: until woken); nil while working.
        var sleepingUntil: Date?
    }

    private let state = Mutex(State(last: Date()))

    public init() {}

    /// Progress: alive now.
    public func beat(at moment: Date = Date()) {
        state.withLock { $0 = State(last: moment) }
    }

    /// Nothing to do until `deadline` (nil: until woken).
    public func sleeping(until deadline: Date?, at moment: Date = Date()) {
        state.withLock { $0 = State(last: moment, sleepingUntil: deadline ?? .distantFuture) }
    }

    /// Whether there was a beat within `interval`, or a sleep whose deadline is less than `interval` past.
    public func isFresh(within interval: TimeInterval, now: Date = Date()) -> Bool {
        state.withLock { state in
            let lastSign = max(state.last, state.sleepingUntil.map { min($0, now) } ?? state.last)
            return now.timeIntervalSince(lastSign) <= interval
        }
    }
}
