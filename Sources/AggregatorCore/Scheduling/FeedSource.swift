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
    func fetched(_ feedID: Int64) async
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

    func fetched(_ feedID: Int64) async {}

    func finished() async {}
}

/// Due feeds claimed on the shared database, a batch at a time, as a round needs them (DESIGN §14).
/// A host is one daemon's at a time, so feeds whose hosts others hold are held back: while fetches
/// are in flight the round asks again when one ends; when none are, this waits until a daemon says
/// it is done with a host (or a quarter second) and claims again.
final class ClaimedFeeds: FeedSource {
    private let cluster: ClusterNode
    /// Claim only among these feeds (a refresh asked for by name), due ones only otherwise.
    private let only: [Int64]?
    private let batch: Int
    private let state = Mutex<(claimed: [FeedFetchState], isDone: Bool)>(([], false))
    /// Feeds fetched whose hosts are not yet freed in the database: freed together, one statement
    /// for up to 25 (or every 100 ms), not one commit each (docs/BENCHMARKS.md, "Several daemons").
    private let freed = Mutex<(ids: [Int64], since: ContinuousClock.Instant?)>(([], nil))

    init(cluster: ClusterNode, only: [Int64]? = nil, batch: Int = 100) {
        self.cluster = cluster
        self.only = only
        self.batch = batch
    }

    func next(busy: Bool) async -> FeedSourceStep {
        while !Task.isCancelled {
            if let step = state.withLock({ state -> FeedSourceStep? in
                if !state.claimed.isEmpty { return .feed(state.claimed.removeFirst()) }
                return state.isDone ? .end : nil
            }) {
                return step
            }
            await freeHosts()  // before claiming: this daemon's finished turns are not in its way
            guard let claim = await cluster.claim(limit: batch, only: only) else {
                // The database is away: the round ends; the scheduler tries again after its pause.
                state.withLock { $0.isDone = true }
                return .end
            }
            if !claim.feeds.isEmpty {
                state.withLock { $0.claimed += claim.feeds }
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

    func fetched(_ feedID: Int64) async {
        let isDue = freed.withLock { freed -> Bool in
            freed.ids.append(feedID)
            let since = freed.since ?? .now
            freed.since = since
            return freed.ids.count >= 25 || ContinuousClock.now - since >= .milliseconds(100)
        }
        if isDue { await freeHosts() }
    }

    func finished() async {
        await freeHosts()
    }

    private func freeHosts() async {
        let ids = freed.withLock { freed in
            defer { freed = ([], nil) }
            return freed.ids
        }
        if !ids.isEmpty { await cluster.fetched(ids) }
    }
}
