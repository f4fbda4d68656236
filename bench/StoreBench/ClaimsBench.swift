import FeedStore
import Foundation
import Synchronization

/// The claim step of several daemons sharing one PostgreSQL database (docs/ARCHITECTURE.md), without fetching
/// (bench/cluster_claims.sh fills the feeds table first).
///
/// `storebench claims URI NODES SECONDS`: NODES stand-in daemons, each with its own connections,
/// claim batches of 100 due feeds as the scheduler does (per-host turns, a 60 s lease), answer each
/// feed at once (a 304), free their hosts 25 at a time as the daemon does, and record the batch's results and
/// next due times in one commit. Prints feeds claimed and completed per second.
///
/// `storebench claim-cost URI REPEATS`: the claim transaction alone, on one connection: claim 100,
/// give them back, REPEATS times; prints the median and 95th percentile in milliseconds.
enum ClaimsBench {
    static let batch = 100
    static let perTurn = 25
    static let lease: TimeInterval = 60

    static func host(_ url: String) -> String {
        let afterScheme = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        return afterScheme.count > 2 ? String(afterScheme[2]) : url
    }

    static func run(uri: String, nodes: Int, seconds: Double) async throws {
        let everyone = try ClusterStore(uri: uri, node: "bench-reset")
        try await everyone.makeDue(nil)
        let deadline = Date().addingTimeInterval(seconds)
        let start = Date()
        let perNode = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<nodes {
                let cluster = try ClusterStore(uri: uri, node: "bench-\(index)")
                let store = try FeedStore(path: uri)
                group.addTask { (index, try await work(cluster: cluster, store: store, until: deadline)) }
            }
            var counts = Array(repeating: 0, count: nodes)
            for try await (index, count) in group { counts[index] = count }
            return counts
        }
        let wall = Date().timeIntervalSince(start)
        let total = perNode.reduce(0, +)
        print(#"RESULT {"nodes": \#(nodes), "feeds_completed": \#(total), "seconds": \#(String(format: "%.2f", wall)), "#
            + #""feeds_per_s": \#(Int((Double(total) / wall).rounded())), "per_node": \#(perNode)}"#)
    }

    /// One stand-in daemon's loop: claim, "fetch", free, record; until `deadline`.
    static func work(cluster: ClusterStore, store: FeedStore, until deadline: Date) async throws -> Int {
        try await cluster.register(started: Date(), lease: lease)
        var completed = 0
        while Date() < deadline {
            let claim = try await cluster.claim(limit: batch, perTurn: perTurn, lease: lease, host: host)
            if claim.feeds.isEmpty {
                try await Task.sleep(for: .milliseconds(5))
                continue
            }
            let now = Date()
            var refreshes: [FeedRefresh] = []
            for (index, feed) in claim.feeds.enumerated() {
                if index % 25 == 24 || index == claim.feeds.count - 1 {  // hosts freed 25 at a time, as the daemon does
                    try await cluster.fetched(claim.feeds[(index - index % 25)...index].map(\.id))
                }
                refreshes.append(FeedRefresh(feedID: feed.id, document: nil,
                                             record: .success(etag: "\"e\"", lastModified: nil, newURL: nil, title: nil, siteURL: nil),
                                             checkedAt: now, nextCheckAt: now.addingTimeInterval(1800), intervalSeconds: 1800))
            }
            try await store.commit(refreshes)
            completed += claim.feeds.count
        }
        return completed
    }

    static func cost(uri: String, repeats: Int) async throws {
        let cluster = try ClusterStore(uri: uri, node: "bench-cost")
        try await cluster.register(started: Date(), lease: lease)
        try await cluster.makeDue(nil)
        var samples: [Double] = []
        for _ in 0..<repeats {
            let began = DispatchTime.now().uptimeNanoseconds
            let claim = try await cluster.claim(limit: batch, perTurn: perTurn, lease: lease, host: host)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
            guard claim.feeds.count == batch else { throw CocoaError(.featureUnsupported) }
            try await cluster.releaseClaims()
        }
        samples.sort()
        let median = samples[samples.count / 2], p95 = samples[samples.count * 95 / 100]
        print(#"RESULT {"repeats": \#(repeats), "claim_median_ms": \#(String(format: "%.3f", median)), "#
            + #""claim_p95_ms": \#(String(format: "%.3f", p95))}"#)
    }
}
