import FeedFetcher
import FeedParser
import FeedStore
import Foundation
import Synchronization

/// What one refresh round did (the control protocol's `refresh` result).
public struct RefreshSummary: Sendable, Equatable {
    public var feeds = 0
    public var ok = 0
    public var notModified = 0
    public var failed = 0
    public var newEntries = 0
    /// Feeds whose results could not be stored (counted in `failed` too): a storage problem here.
    public var unstored = 0
    public var seconds = 0.0

    public init() {}

    /// One line for logs and `--once`: `feeds=32 ok=30 not_modified=1 failed=1 new_entries=412 seconds=2.4`.
    public var line: String {
        "feeds=\(feeds) ok=\(ok) not_modified=\(notModified) failed=\(failed) new_entries=\(newEntries) "
            + (unstored > 0 ? "unstored=\(unstored) " : "") + "seconds=\(String(format: "%.2f", seconds))"
    }
}

/// What every round since the start did, added up (the `/metrics` counters).
public struct RefreshTotals: Sendable, Equatable {
    public var rounds = 0
    /// The rounds' summaries, summed field by field.
    public var sum = RefreshSummary()

    public init() {}

    mutating func add(_ summary: RefreshSummary) {
        rounds += 1
        sum.feeds += summary.feeds
        sum.ok += summary.ok
        sum.notModified += summary.notModified
        sum.failed += summary.failed
        sum.newEntries += summary.newEntries
        sum.seconds += summary.seconds
    }
}

/// Fetch → parse → store for a set of feeds: at most `width` fetches at once and `perHost` per host
/// (the fetcher holds back a host's extra fetches and starts each the moment a slot frees).
/// Results are stored while the round goes on, in group commits of whatever arrived meanwhile. One
/// bad feed never stops the others.
public final class RefreshPipeline: Sendable {
    let store: FeedStore
    let fetcher: FeedFetcher
    let logger: Logger
    /// How many fetches run at once, the limits on each and the bounds of feeds' intervals; a reload
    /// may change them.
    private let settings: Mutex<Settings>
    /// Fetches in flight, shared by everyone who refreshes (the scheduler and the service's waited refreshes).
    let inFlight = InFlightFeeds()
    /// When a feed was checked, and so when it is due next, is read from this clock (the scheduler's).
    let clock: any SchedulerClock
    /// Where rounds say what they stored and which feeds failed.
    let events: EventHub
    private let runningTotals = Mutex(RefreshTotals())
    /// PostgreSQL: a document's index documents are made as it is parsed (`IncomingFeed`).
    private let makesSearchDocuments: Bool

    /// Every round since the start, added up.
    public var totals: RefreshTotals { runningTotals.withLock { $0 } }

    public init(store: FeedStore, fetcher: FeedFetcher, logger: Logger, width: Int = 16, perHost: Int = 2,
                limits: FetchLimits = FetchLimits(), policy: RefreshPolicy = RefreshPolicy(),
                clock: any SchedulerClock = SystemClock(), events: EventHub = EventHub()) {
        self.store = store
        self.fetcher = fetcher
        self.logger = logger
        self.clock = clock
        self.events = events
        makesSearchDocuments = store.wantsSearchDocuments
        settings = Mutex(Settings(width: max(1, width), perHost: max(1, perHost), limits: limits, policy: policy))
    }

    /// What fetches for regular accounts only may not reach beyond the fetcher's own policy: the
    /// refusal `FetchRequest.refusingPrivateNetworks` carries (`private-networks = admins`), or nil.
    public var regularAccountsRule: String? { settings.withLock { $0.regularAccountsRule } }

    /// Sets `regularAccountsRule` for the fetches from now on (start-up and reloads).
    public func setRegularAccountsRule(_ rule: String?) {
        settings.withLock { $0.regularAccountsRule = rule }
    }

    /// Commits each group of results at once, never holding one open for the next (several daemons
    /// share the database: see `Settings.holdsCommitsOpen`).
    public func commitGroupsAtOnce() {
        settings.withLock { $0.holdsCommitsOpen = false }
    }

    /// The time and size limits each fetch runs under (also for `add` and discovery).
    public var limits: FetchLimits { settings.withLock { $0.limits } }

    /// Changes the limits on fetches from the next one on.
    public func setLimits(_ limits: FetchLimits) {
        settings.withLock { $0.limits = limits }
    }

    /// When feeds are checked next, after their next fetch.
    public var policy: RefreshPolicy { settings.withLock { $0.policy } }

    /// Changes how feeds' next checks are set, from the next fetch on (checks already set stay).
    public func setPolicy(_ policy: RefreshPolicy) {
        settings.withLock { $0.policy = policy }
    }

    /// Changes how many fetches rounds run at once, in all and per host, from the next round on.
    public func setBounds(width: Int, perHost: Int) {
        settings.withLock { ($0.width, $0.perHost) = (max(1, width), max(1, perHost)) }
    }

    /// Refreshes `feeds` and returns the round's summary. Cancelling the caller cancels every fetch.
    /// - Parameter progress: called as each feed finishes, with how many are done.
    public func refresh(_ feeds: [FeedFetchState], prefetched: [FeedID: FetchResponse] = [:],
                        progress: (Int, FeedRefresh) -> Void = { _, _ in }) async -> RefreshSummary {
        await refresh(from: FeedList(feeds), prefetched: prefetched, progress: progress)
    }

    /// Refreshes the feeds `source` gives (a list, or claims on a shared database) until it has no
    /// more, and returns the round's summary. A feed in `prefetched` is not fetched: that answer is
    /// its fetch (a new feed's document, which discovery fetched: docs/ARCHITECTURE.md, "Fetch once").
    func refresh(from source: some FeedSource, prefetched: [FeedID: FetchResponse] = [:],
                 progress: (Int, FeedRefresh) -> Void = { _, _ in }) async -> RefreshSummary {
        let started = Date()
        var summary = RefreshSummary()
        let (width, perHost) = settings.withLock { ($0.width, $0.perHost) }
        // The followers' filter rules, read once a round: each document is judged by them in its fetch
        // task, and the store's writer only applies the verdicts (docs/SECURITY.md: no regex in a write
        // transaction). A change of rules meanwhile is judged again by its own background pass.
        let rules = (try? await store.rulesByFeed()) ?? [:]
        // The store commits as results come in, never waiting for a batch to fill, while fetching and
        // parsing go on (committing inside this loop left the store idle half of a cold round). At most
        // 32 parsed documents wait: the 1,000-feed farm's cold round peaks at 50 MB (64: 56 MB, no faster).
        let queue = CommitQueue(capacity: 32)
        var feedURLs: [FeedID: String] = [:]
        async let stored = storeAsTheyArrive(queue)
        await withTaskGroup(of: (FeedRefresh, owned: Bool).self) { group in
            var inFlight = 0
            var isExhausted = false
            func startMore() async {
                while !isExhausted, inFlight < width, !Task.isCancelled {
                    switch await source.next(busy: inFlight > 0) {
                    case .feed(let feed):
                        inFlight += 1
                        summary.feeds += 1
                        feedURLs[feed.id] = feed.url
                        group.addTask {
                            await self.refreshOne(feed, perHost: perHost, rules: rules[feed.id] ?? [], prefetched: prefetched[feed.id])
                        }
                    case .later: return
                    case .end: isExhausted = true
                    }
                }
            }
            await startMore()
            var done = 0
            while let (refresh, owned) = await group.next() {
                inFlight -= 1
                done += 1
                // Joined too: a feed this round took from its source but another round was fetching
                // (and stores) is done with here; a claim on it not ended would be renewed forever.
                await source.fetched(refresh.feedID)
                progress(done, refresh)
                switch refresh.record {
                case .success: if refresh.document == nil { summary.notModified += 1 } else { summary.ok += 1 }
                case .failure(let reason), .gone(let reason):
                    summary.failed += 1
                    events.publish(.feedFailed(feedID: refresh.feedID, url: feedURLs[refresh.feedID] ?? "", reason: reason))
                }
                // A feed this round joined in flight is stored by the round that fetched it, and a fetch
                // cut short by shutdown is not a failure of the feed (those who joined it hear at once).
                if owned && !(Task.isCancelled && !refresh.isSuccess) {
                    await queue.put(refresh)
                } else if owned {
                    await self.inFlight.finish(refresh.feedID, with: refresh)
                }
                await startMore()
            }
        }
        await source.finished()
        await queue.close()
        let outcome = await stored
        summary.newEntries = outcome.newEntries
        if !outcome.lost.isEmpty {
            await recordUnstored(outcome.lost, reason: outcome.error, in: &summary, urls: feedURLs)
        }
        summary.seconds = Date().timeIntervalSince(started)
        // A round of daemons sharing a database may find that others took every due feed.
        guard summary.feeds > 0 else { return summary }
        runningTotals.withLock { $0.add(summary) }
        events.publish(.roundFinished(summary))
        return summary
    }

    /// What storing a round's results came to: the new entries stored for good, and the results lost
    /// with a commit that failed (the disk full, an I/O error, the database locked by another
    /// program), with the store's reason.
    struct StoreOutcome {
        var newEntries = 0
        var lost: [FeedRefresh] = []
        var error = ""
    }

    /// How long a commit that is not held open waits for more results, unless this many wait already
    /// (the queue holds 32 results, and a round waits while it is full).
    static let linger = Duration.milliseconds(3)
    static let lingeringGroup = 32

    /// Commits what the queue holds, all of it at a time, until it is closed and empty. Results
    /// sit in a commit held open until the store ends it; a failing commit undoes every result it
    /// held, so those are counted as lost with the group that failed.
    private func storeAsTheyArrive(_ queue: CommitQueue) async -> StoreOutcome {
        var outcome = StoreOutcome()
        var held: [(refresh: FeedRefresh, new: Int)] = []
        // Whoever joined a feed's fetch (another round, a `refresh --wait` for another account) hears
        // of it once it is committed, so that what it reads next shows the feed's entries.
        // Readers woken by `entriesStored` see the entries: it is published once they are committed.
        func committed(_ refreshes: [(refresh: FeedRefresh, new: Int)]) async {
            for (refresh, _) in refreshes { await inFlight.finish(refresh.feedID, with: refresh) }
            let new = refreshes.reduce(0) { $0 + $1.new }
            outcome.newEntries += new
            if new > 0 { events.publish(.entriesStored(count: new)) }
        }
        func lose(_ refreshes: [FeedRefresh], _ error: StoreError) async {
            outcome.lost += refreshes
            outcome.error = error.description
            logger.error("Cannot store refresh results", ["feeds": refreshes.count, "error": error.description])
            for refresh in refreshes { await inFlight.finish(refresh.feedID, with: refresh) }
        }
        let lingers = !settings.withLock { $0.holdsCommitsOpen }
        while case var batch = await queue.take(), !batch.isEmpty {
            if lingers, batch.count < Self.lingeringGroup {
                // Commits not held open (PostgreSQL) gather a few milliseconds' results first: a warm
                // round of 1,000 feeds committed 255 times, a few feeds each.
                try? await Task.sleep(for: Self.linger)
                batch += await queue.takeWaiting()
            }
            do {
                let counts = try await store.commit(batch, holdingOpen: settings.withLock { $0.holdsCommitsOpen })
                held += zip(batch, counts.map(\.new)).map { ($0, $1) }
                if await !store.isHoldingCommit {
                    await committed(held)
                    held.removeAll()
                }
            } catch {
                await lose(held.map(\.refresh) + batch, error)
                held.removeAll()
            }
        }
        // The round's last feeds may wait in a commit held open for more.
        do {
            try await store.finishHeldCommit()
            await committed(held)
        } catch {
            await lose(held.map(\.refresh), error)
        }
        return outcome
    }

    /// Feeds whose results were not stored: counted as failed in the round (so `--once` exits 1 and
    /// `status` says so), recorded as failing with a storage reason (not the feed's fault), and
    /// checked again after the shortest interval, when space may be back. Their validators went with
    /// the commit, so that fetch brings everything again.
    private func recordUnstored(_ lost: [FeedRefresh], reason error: String, in summary: inout RefreshSummary,
                                urls: [FeedID: String]) async {
        let reason = "not stored: \(error) (a storage problem on this machine, not the feed's)"
        var failures: [FeedRefresh] = []
        summary.unstored += lost.count
        for refresh in lost {
            if case .success = refresh.record {
                if refresh.document == nil { summary.notModified -= 1 } else { summary.ok -= 1 }
                summary.failed += 1
                events.publish(.feedFailed(feedID: refresh.feedID, url: urls[refresh.feedID] ?? "", reason: reason))
            }
            let retry = policy.minimumInterval
            failures.append(FeedRefresh(feedID: refresh.feedID, document: nil, record: .failure(reason), checkedAt: refresh.checkedAt,
                                        nextCheckAt: clock.now.addingTimeInterval(retry), intervalSeconds: Int(retry)))
        }
        do {
            _ = try await store.commit(failures)
        } catch {
            logger.error("Cannot record the feeds whose results were not stored either", ["feeds": failures.count,
                                                                                          "error": error.description])
        }
    }

    /// One feed, within its host's bound; a feed already being fetched is joined, not fetched twice
    /// (the joiner resumes once the owner's round has stored it: `storeAsTheyArrive`).
    func refreshOne(_ feed: FeedFetchState, perHost: Int, rules: [FollowerRules] = [],
                    prefetched: FetchResponse? = nil) async -> (FeedRefresh, owned: Bool) {
        if let joined = await inFlight.join(feed.id) { return (joined, false) }
        return (await fetchAndParse(feed, perHost: perHost, rules: rules, prefetched: prefetched), true)
    }

    /// Which entries (by their index in the document) each follower's rules hide. Judged here, in the
    /// feed's fetch task: the store's writer applies the verdicts to the entries that are new.
    static func verdicts(on entries: [IncomingEntry], by rules: [FollowerRules],
                         with matcher: (any EntryRules)?) -> [(account: AccountID, hidden: Set<Int>)] {
        guard let matcher else { return [] }
        return rules.map { follower in
            (follower.account, Set(entries.indices.filter { matcher.hides(RuledEntry(entries[$0]), by: follower.rules) }))
        }
    }

    /// Where a permanent redirect moves the feed. A private copy does not move to another host: its
    /// cookie and password would be sent there at every fetch (curl keeps them from the redirect itself).
    private func movedURL(_ feed: FeedFetchState, _ response: FetchResponse) -> String? {
        guard let target = response.permanentRedirect else { return nil }
        if feed.settings != nil, FetchRequest.host(of: target) != FetchRequest.host(of: feed.url) { return nil }
        return target
    }

    /// One fetch of the feed, with its validators and, for a private copy, its own settings.
    private func fetch(_ feed: FeedFetchState, perHost: Int, limits: FetchLimits,
                       refusing rule: String?) async -> Result<FetchResponse, FetchError> {
        do {
            // A private copy's own settings (docs/ARCHITECTURE.md); ignoring the HTTP cache sends no validators.
            let ignoresCache = feed.settings?.ignoresHTTPCache == true
            return .success(try await fetcher.fetch(FetchRequest(
                url: feed.url, etag: ignoresCache ? nil : feed.etag, lastModified: ignoresCache ? nil : feed.lastModified,
                limits: limits, perHostLimit: perHost, refusingPrivateNetworks: feed.hasAdminFollower ? nil : rule,
                credentials: feed.settings.map(\.credentials))))
        } catch {
            return .failure(error)
        }
    }

    /// Fetches (unless it was, `prefetched`) and parses one feed, and judges its document by its
    /// followers' `rules`; never throws: failures become the feed's recorded error.
    func fetchAndParse(_ feed: FeedFetchState, perHost: Int, rules: [FollowerRules] = [],
                       prefetched: FetchResponse? = nil) async -> FeedRefresh {
        let (limits, rule) = settings.withLock { ($0.limits, $0.regularAccountsRule) }
        let fetched = if let prefetched { Result<FetchResponse, FetchError>.success(prefetched) } else {
            await fetch(feed, perHost: perHost, limits: limits, refusing: rule)
        }
        // When the answer came, not when the fetch was asked for: it may have waited for its host.
        let checkedAt = clock.now
        let policy = self.policy
        let random = Double.random(in: 0..<1)
        func failure(_ reason: String, retryAfter: TimeInterval? = nil, gone: Bool = false) -> FeedRefresh {
            let delay = policy.jittered(policy.delay(afterConsecutiveFailures: feed.errorCount + 1, retryAfter: retryAfter),
                                        random: random)
            logger.debug("Feed failed", ["feed_id": feed.id, "url": feed.url, "error": reason])
            return FeedRefresh(feedID: feed.id, document: nil, record: gone ? .gone(reason) : .failure(reason),
                               checkedAt: checkedAt, nextCheckAt: checkedAt.addingTimeInterval(delay),
                               intervalSeconds: Int(delay))
        }
        let response: FetchResponse
        do {
            response = try fetched.get()
        } catch {
            if case .httpStatus(410, _) = error { return failure(error.description + " (gone: feed disabled)", gone: true) }
            if case .httpStatus(_, let retryAfter) = error { return failure(error.description, retryAfter: retryAfter) }
            return failure(error.description)
        }
        let previous = TimeInterval(feed.intervalSeconds ?? Int(policy.minimumInterval * 4))
        if response.isNotModified {
            let interval = policy.jittered(max(previous, response.freshFor ?? 0), random: random)
            return FeedRefresh(feedID: feed.id, document: nil,
                               record: .success(etag: response.etag ?? feed.etag, lastModified: response.lastModified ?? feed.lastModified,
                                                newURL: nil, title: nil, siteURL: nil),
                               checkedAt: checkedAt, nextCheckAt: checkedAt.addingTimeInterval(interval), intervalSeconds: Int(interval))
        }
        let parsed: ParsedFeed
        do {
            parsed = try ParsedFeed(parsing: response.body, source: .init(
                documentURL: response.finalURL, contentType: response.contentType, maximumSize: limits.maximumBodyBytes))
        } catch {
            return failure(error.description)
        }
        guard parsed.format != .unknown else {
            return failure("not a feed (\(parsed.problems.first ?? "no RSS, Atom or JSON Feed document"))")
        }
        let hints = [response.freshFor, RefreshPolicy.publisherHint(
            timeToLiveMinutes: parsed.timeToLiveMinutes, updatePeriod: parsed.updatePeriod,
            updateFrequency: parsed.updateFrequency)].compactMap { $0 }
        let interval = policy.jittered(
            policy.interval(entryDates: parsed.entries.compactMap { $0.published ?? $0.updated }, hints: hints), random: random)
        var document = EntryMapper.incoming(parsed, feedID: feed.id, isPrivate: feed.settings != nil,
                                            makingSearchDocuments: makesSearchDocuments)
        // Reached for an admin where regular accounts may not reach (docs/SECURITY.md): theirs to read only.
        document.onlyForAdmins = response.reachedNonPublicAddress && rule != nil && feed.hasAdminFollower
        document.ruleVerdicts = Self.verdicts(on: document.entries, by: rules, with: store.entryRules)
        return FeedRefresh(
            feedID: feed.id, document: document,
            record: .success(etag: response.etag, lastModified: response.lastModified, newURL: movedURL(feed, response),
                             title: parsed.title, siteURL: parsed.link, imageURL: parsed.image),
            checkedAt: checkedAt, nextCheckAt: checkedAt.addingTimeInterval(interval), intervalSeconds: Int(interval))
    }
}

/// What a reload may change in the pipeline.
private struct Settings: Sendable {
    var width: Int
    var perHost: Int
    var limits: FetchLimits
    var policy: RefreshPolicy
    var regularAccountsRule: String?
    /// Whether a commit may stay open for the next group's feeds (`FeedStore.groupCommit`). Not
    /// when daemons share the database: an open commit holds the kept counters' row, and every other
    /// daemon's commit would wait for it.
    var holdsCommitsOpen = true
}

/// Refreshes waiting to be stored. The round puts each as it finishes (waiting while `capacity` wait
/// already: memory stays bounded when fetching outpaces storing); the committer takes all there are.
actor CommitQueue {
    private let capacity: Int
    private var waiting: [FeedRefresh] = []
    private var isClosed = false
    private var taker: CheckedContinuation<[FeedRefresh], Never>?
    private var putters: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func put(_ refresh: FeedRefresh) async {
        while waiting.count >= capacity {
            await withCheckedContinuation { putters.append($0) }
        }
        waiting.append(refresh)
        handOver()
    }

    /// Everything waiting, once there is something; empty when closed and drained.
    func take() async -> [FeedRefresh] {
        guard waiting.isEmpty, !isClosed else { return takeAll() }
        return await withCheckedContinuation { taker = $0 }
    }

    /// Everything waiting now, perhaps nothing.
    func takeWaiting() -> [FeedRefresh] {
        takeAll()
    }

    /// No more puts: the committer ends once it has taken the rest.
    func close() {
        isClosed = true
        handOver()
    }

    /// Gives everything waiting to a committer that is waiting for it.
    private func handOver() {
        guard let taker else { return }
        self.taker = nil
        taker.resume(returning: takeAll())
    }

    private func takeAll() -> [FeedRefresh] {
        defer {
            waiting.removeAll()
            for putter in putters { putter.resume() }
            putters.removeAll()
        }
        return waiting
    }
}

/// Single flight per feed: the first caller fetches, later callers wait for its result, stored.
actor InFlightFeeds {
    private var waiting: [FeedID: [CheckedContinuation<FeedRefresh, Never>]] = [:]

    /// Nil when the caller should fetch (it now owns the feed); else the in-flight fetch's result.
    func join(_ feedID: FeedID) async -> FeedRefresh? {
        guard waiting[feedID] != nil else {
            waiting[feedID] = []
            return nil
        }
        return await withCheckedContinuation { waiting[feedID, default: []].append($0) }
    }

    /// Ends the owner's fetch (once stored, or lost) and hands its result to everyone who joined it.
    func finish(_ feedID: FeedID, with refresh: FeedRefresh) {
        for continuation in waiting.removeValue(forKey: feedID) ?? [] { continuation.resume(returning: refresh) }
    }
}
