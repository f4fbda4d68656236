import FeedStore
import Foundation
import Synchronization

/// Owns when feeds are refreshed (DESIGN.md §4): sleeps until the earliest due feed, refreshes
/// every due feed in one round, records the round, and starts no round once cancelled.
public actor Scheduler {
    private let store: FeedStore
    private let pipeline: RefreshPipeline
    private let logger: Logger
    /// The last finished round, for `status`.
    public private(set) var lastRound: (finished: Date, summary: RefreshSummary)?
    /// When the next round is due, for `status`.
    public private(set) var nextDue: Date?
    private var wakeRequested = false
    /// How long entries are kept; a reload may change it.
    public private(set) var retention: RetentionPolicy
    private var lastRetention: Date?
    /// Retention runs after a round at most this often: expiring is cheap, but not free at a million entries.
    static let retentionInterval: TimeInterval = 3600
    /// When the scheduler last showed it is alive (each sleep step, each finished feed): the watchdog's source.
    public nonisolated let heartbeat = Heartbeat()

    public init(store: FeedStore, pipeline: RefreshPipeline, logger: Logger, retention: RetentionPolicy = RetentionPolicy()) {
        self.store = store
        self.pipeline = pipeline
        self.logger = logger
        self.retention = retention
    }

    /// Applies `policy` from the next retention run on; it runs after the next round.
    public func setRetention(_ policy: RetentionPolicy) {
        if policy != retention { lastRetention = nil }
        retention = policy
    }

    /// Ends the current sleep: the next round starts now (for feeds that are due).
    public func wake() {
        wakeRequested = true
    }

    /// Runs rounds until the calling task is cancelled (SIGTERM/SIGINT cancel the daemon's root task).
    /// - Parameter onRound: called after each round, e.g. to tell systemd the status.
    public func run(onRound: @Sendable (RefreshSummary) -> Void = { _ in }) async {
        while !Task.isCancelled {
            heartbeat.beat()
            do {
                let now = Date()
                let feeds = try await store.feedsToFetch()
                let due = feeds.filter { ($0.nextCheckAt ?? .distantPast) <= now }
                if !due.isEmpty {
                    let heartbeat = self.heartbeat
                    let summary = await pipeline.refresh(due) { _, _ in heartbeat.beat() }
                    guard !Task.isCancelled else { return }
                    lastRound = (Date(), summary)
                    logger.info("Refresh round done", ["feeds": summary.feeds, "ok": summary.ok,
                                                       "not_modified": summary.notModified, "failed": summary.failed,
                                                       "new_entries": summary.newEntries,
                                                       "seconds": String(format: "%.2f", summary.seconds)])
                    onRound(summary)
                }
                await expireOldEntriesIfDue()
                // After a round the due times changed; without one, the list just read is current.
                let upcoming = (due.isEmpty ? feeds : try await store.feedsToFetch()).compactMap(\.nextCheckAt).min()
                // No feeds yet: look again in a minute (feeds may be added over the control socket).
                let wake = upcoming ?? Date().addingTimeInterval(60)
                nextDue = wake
                logger.debug("Sleeping until the next due feed", ["seconds": Int(max(0, wake.timeIntervalSinceNow))])
                // Sleep in short steps so `wake()` (a feed added, a refresh asked for) takes effect at once.
                while !wakeRequested, wake.timeIntervalSinceNow > 0 {
                    heartbeat.beat()
                    try await Task.sleep(for: .milliseconds(Int(min(wake.timeIntervalSinceNow, 0.5) * 1000) + 1))
                }
                wakeRequested = false
            } catch is CancellationError {
                return
            } catch {
                logger.error("Scheduler cannot read feeds; retrying in 30 s", ["error": String(describing: error)])
                try? await Task.sleep(for: .seconds(30))
            }
        }
    }
}

extension Scheduler {
    /// Expires old entries when the last run was long enough ago (and after every start); `--once`
    /// calls it after its round too.
    public func expireOldEntriesIfDue(now: Date = Date()) async {
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

/// The last moment a piece of the daemon showed progress; read by the systemd watchdog.
public final class Heartbeat: Sendable {
    private let last = Mutex(Date())

    public init() {}

    public func beat(at moment: Date = Date()) {
        last.withLock { $0 = moment }
    }

    /// Whether there was a beat within `interval`.
    public func isFresh(within interval: TimeInterval, now: Date = Date()) -> Bool {
        last.withLock { now.timeIntervalSince($0) <= interval }
    }
}
