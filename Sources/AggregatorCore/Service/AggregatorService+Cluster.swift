import FeedStore
import Foundation

extension AggregatorService {
    /// This daemon among several on a shared PostgreSQL database; nil on SQLite.
    public var cluster: ClusterNode? { scheduler.cluster }

    /// A refresh waited for, among several daemons (DESIGN §14): `feeds` are made due for the
    /// whole cluster, this daemon fetches those it can claim, and a feed another daemon is fetching
    /// is waited for rather than fetched again (up to a lease and a fetch's time).
    func refreshAcrossCluster(_ cluster: ClusterNode, feeds: [FeedFetchState], everything: Bool,
                              progress: (Int, FeedRefresh) -> Void) async throws(AggregatorError) -> RefreshSummary {
        let asked = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let ids = feeds.map(\.id)
        guard await cluster.makeDue(everything ? nil : ids) != nil else {
            throw .unavailable("the database does not answer: \(cluster.unavailableReason ?? "unknown reason")")
        }
        let source = ClaimedFeeds(cluster: cluster, only: everything ? nil : ids)
        let summary = await pipeline.refresh(from: source, progress: progress)
        let timeout = pipeline.limits.totalTimeout.components.seconds
        let deadline = Date().addingTimeInterval(cluster.lease + TimeInterval(timeout) + 5)
        var waiting = Set(ids.count <= 10_000 ? ids : [])
        while !waiting.isEmpty, Date() < deadline, !Task.isCancelled {
            let checked = await cluster.checkedAt(Array(waiting))
            waiting = waiting.filter { (checked[$0] ?? .distantPast) < asked }
            if !waiting.isEmpty { try? await Task.sleep(for: .milliseconds(200)) }
        }
        return summary
    }
}
