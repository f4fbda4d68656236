import FeedStore
import Foundation
import Synchronization

extension AggregatorService {
    /// This daemon among several on a shared PostgreSQL database; nil on SQLite.
    public var cluster: ClusterNode? { scheduler.cluster }

    /// Makes `feedIDs` (every feed when nil) due for whichever daemon claims them first.
    /// - Returns: how many were made due.
    /// - Throws: `.unavailable` when the database does not answer.
    @discardableResult
    func makeDue(_ feedIDs: [FeedID]?, on cluster: ClusterNode) async throws(AggregatorError) -> Int {
        guard let count = await cluster.makeDue(feedIDs) else {
            throw .unavailable("the database does not answer: \(cluster.unavailableReason ?? "unknown reason")")
        }
        return count
    }

    /// A refresh waited for, among several daemons (docs/ARCHITECTURE.md): `feeds` are made due for the
    /// whole cluster, this daemon fetches those it can claim, and a feed another daemon is fetching
    /// is waited for rather than fetched again (up to a lease and a fetch's time). The summary
    /// counts those too, as ok or failed by what their check left (new entries: this daemon's only).
    func refreshAcrossCluster(_ cluster: ClusterNode, feeds: [FeedFetchState], everything: Bool,
                              progress: (Int, FeedRefresh) -> Void) async throws(AggregatorError) -> RefreshSummary {
        let ids = feeds.map(\.id)
        let watched = ids.count <= 10_000 ? ids : []  // beyond that, those fetched here are counted alone
        // A feed another daemon is fetching at the ask may have started before it: its new check is
        // one more than the checks it had.
        let before = await cluster.checks(watched)
        try await makeDue(everything ? nil : ids, on: cluster)
        let source = ClaimedFeeds(cluster: cluster, only: everything ? nil : ids)
        // `--once` has no scheduler renewing leases: a long refresh renews its own.
        let renewal = Task { await cluster.keepRenewingClaims() }
        defer { renewal.cancel() }
        let fetchedHere = Mutex<Set<FeedID>>([])
        var summary = await pipeline.refresh(from: source) { done, refresh in
            fetchedHere.withLock { _ = $0.insert(refresh.feedID) }
            progress(done, refresh)
        }
        let timeout = pipeline.limits.totalTimeout.components.seconds
        let deadline = Date().addingTimeInterval(cluster.lease + TimeInterval(timeout) + 5)
        let here = fetchedHere.withLock { $0 }
        var waiting = Set(watched).subtracting(here)
        while !waiting.isEmpty, Date() < deadline, !Task.isCancelled {
            let checks = await cluster.checks(Array(waiting))
            // Checked since the ask: a check the feed had not had then (by its count: two checks can
            // fall in one second).
            for (id, check) in checks where waiting.contains(id) && check.count > before[id]?.count ?? 0 {
                waiting.remove(id)
                summary.feeds += 1
                if check.succeeded { summary.ok += 1 } else { summary.failed += 1 }
            }
            if !waiting.isEmpty { try? await Task.sleep(for: .milliseconds(200)) }
        }
        return summary
    }
}
