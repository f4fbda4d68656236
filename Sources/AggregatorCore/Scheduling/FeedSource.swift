import FeedStore
import Foundation
import Synchronization

/// What a source has for a round that asks it for the next feed.
enum FeedSourceStep: Sendable {
    case feed(FeedFetchState)
    /// Nothing now, but maybe once a fetch in flight ends: ask again then.
    case later
    /// The round is over.
    case end
}

/// Where a refresh round takes its feeds from: a list (one daemon), or claims on the database that
/// several daemons share (`ClaimedFeeds`).
protocol FeedSource: Sendable {
    /// The next feed to fetch. `.later` only while `busy` (fetches are in flight); when not busy a
    /// source waits until it has a feed or is done.
    func next(busy: Bool) async -> FeedSourceStep
    /// The fetch of `feedID` ended (its result may still wait for its commit).
    func fetched(_ feedID: FeedID) async
    /// The round is over: every fetch it started has ended.
    func finished() async
}

/// The feeds of a list, in order.
final class FeedList: FeedSource {
    private let remaining: Mutex<IndexingIterator<[FeedFetchState]>>

    init(_ feeds: [FeedFetchState]) {
        remaining = Mutex(feeds.makeIterator())
    }

    func next(busy: Bool) async -> FeedSourceStep {
        remaining.withLock { $0.next() }.map(FeedSourceStep.feed) ?? .end
    }

    func fetched(_ feedID: FeedID) async {}

    func finished() async {}
}

/// Due feeds claimed on the shared database, a batch at a time, as a round needs them (docs/ARCHITECTURE.md).
/// A host is one daemon's at a time, so feeds whose hosts others hold are held back: while fetches
/// are in flight the round asks again when one ends; when none are, this waits until a daemon says
/// it is done with a host (or a quarter second) and claims again.
///
/// The next batch is claimed while the round still has half of the last to fetch, and fetched feeds'
/// hosts are freed in the background: a claim takes the database a few milliseconds, and a round
/// that waited for each left its fetcher idle meanwhile.
final class ClaimedFeeds: FeedSource {
    private let cluster: ClusterNode
    /// Claim only among these feeds (a refresh asked for by name), due ones only otherwise.
    private let only: [FeedID]?
    private let batch: Int
    private let state = Mutex(State())
    /// Feeds fetched whose hosts are not yet freed in the database: freed together, one statement
    /// for up to 25 (or every 100 ms), not one commit each (docs/BENCHMARKS.md, "Several daemons").
    private let freed = Mutex<(ids: [FeedID], since: ContinuousClock.Instant?)>(([], nil))
    /// The database calls made in the background, one after the other (a claim after the frees
    /// before it: this daemon's finished turns are not in its way).
    private let background = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var claimed: [FeedFetchState] = []
        var isDone = false
        /// A claim made ahead found nothing due and nothing held back: the round ends with what it has.
        var nothingDue = false
        /// A claim made ahead is under way.
        var claimingAhead: Task<Void, Never>?
        /// The last claim saw no other daemon alive.
        var isAlone = false
    }

    init(cluster: ClusterNode, only: [FeedID]? = nil, batch: Int = 100) {
        self.cluster = cluster
        self.only = only
        self.batch = batch
    }

    func next(busy: Bool) async -> FeedSourceStep {
        while !Task.isCancelled {
            let (step, pending) = state.withLock { state -> (FeedSourceStep?, Task<Void, Never>?) in
                if !state.claimed.isEmpty {
                    let feed = state.claimed.removeFirst()
                    if state.claimed.count < claimSize(state) / 2, state.claimingAhead == nil, !state.isDone,
                       !state.nothingDue {
                        state.claimingAhead = inBackground { await self.claimAhead() }
                    }
                    return (.feed(feed), nil)
                }
                if state.isDone || state.nothingDue { return (.end, nil) }
                return (nil, state.claimingAhead)
            }
            if let step { return step }
            if let pending {
                await pending.value
                continue
            }
            await inBackground { await self.freeHosts() }.value  // this daemon's finished turns are not in its way
            guard let claim = await cluster.claim(limit: state.withLock { claimSize($0) }, only: only) else {
                // The database is away: the round ends; the scheduler tries again after its pause.
                state.withLock { $0.isDone = true }
                return .end
            }
            if !claim.feeds.isEmpty {
                state.withLock {
                    $0.claimed += claim.feeds
                    $0.isAlone = claim.isAlone
                }
                continue
            }
            if claim.heldBack == 0 {
                state.withLock { $0.isDone = true }
                return .end
            }
            if busy { return .later }
            await cluster.waitForAFreedHost(upTo: .milliseconds(250))
        }
        return .end
    }

    /// How many feeds a claim asks for: alone, four batches (no other daemon wants them, and a claim
    /// of 100 took the database as long as fetching them took a warm round: the round waited).
    private func claimSize(_ state: State) -> Int {
        state.isAlone ? batch * 4 : batch
    }

    /// Claims the next batch while the round fetches the last one's rest.
    private func claimAhead() async {
        await freeHosts()
        let claim = await cluster.claim(limit: state.withLock { claimSize($0) }, only: only)
        state.withLock { state in
            state.claimingAhead = nil
            guard let claim else {
                state.isDone = true  // the database is away: the round ends with what it has
                return
            }
            state.claimed += claim.feeds
            state.isAlone = claim.isAlone
            if claim.feeds.isEmpty, claim.heldBack == 0 { state.nothingDue = true }
        }
    }

    func fetched(_ feedID: FeedID) async {
        // Alone, the fetch's commit frees the host: a statement per 25 feeds was a quarter of the
        // feeds table's writes in a warm round.
        if state.withLock({ $0.isAlone }) {
            cluster.fetchedAlone([feedID])
            return
        }
        let isDue = freed.withLock { freed -> Bool in
            freed.ids.append(feedID)
            let since = freed.since ?? .now
            freed.since = since
            return freed.ids.count >= 25 || ContinuousClock.now - since >= .milliseconds(100)
        }
        if isDue { _ = inBackground { await self.freeHosts() } }
    }

    func finished() async {
        // A round cut short (shutdown) may leave feeds claimed ahead and never started: due again now,
        // for any daemon, rather than held by this one until their leases run out.
        if let pending = state.withLock({ $0.claimingAhead }) { await pending.value }
        let left = state.withLock { state in
            defer { state.claimed.removeAll() }
            return state.claimed.map(\.id)
        }
        await inBackground { await self.freeHosts() }.value
        if !left.isEmpty {
            await cluster.fetched(left)
            _ = await cluster.makeDue(left)
        }
    }

    /// Runs `work` after the background work started before it.
    @discardableResult
    private func inBackground(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        background.withLock { last in
            let previous = last
            let task = Task {
                await previous?.value
                await work()
            }
            last = task
            return task
        }
    }

    private func freeHosts() async {
        let ids = freed.withLock { freed in
            defer { freed = ([], nil) }
            return freed.ids
        }
        if !ids.isEmpty { await cluster.fetched(ids) }
    }
}
