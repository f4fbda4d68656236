import AggregatorCore
import FeedStore
import Foundation
import HTTPServer
import Synchronization

/// `/metrics` in Prometheus' text format: the store's counts, what refresh rounds did since the
/// start, and the HTTP requests answered.
enum Metrics {
    /// The page, from the service's status and totals and the front end's request counts. With
    /// `node` (daemons sharing a database), every sample carries `node="NAME"`: each daemon counts
    /// its own fetches and requests, and a monitor sums them.
    static func page(status: ServiceStatus, totals: RefreshTotals, requests: [RequestKey: Int], shed: Int = 0,
                     node: String? = nil) -> String {
        var text = ""
        let nodeLabel = node.map { "node=\"" + $0.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        func labelled(_ labels: String) -> String {
            guard let nodeLabel else { return labels }
            if labels.hasPrefix("{") { return "{" + nodeLabel + "," + labels.dropFirst() }
            return labels + "{" + nodeLabel + "}"  // none, or a summary's `_sum`/`_count`
        }
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { text += "\(name)\(labelled(sample.labels)) \(sample.value)\n" }
        }
        metric("aggregatord_build_info", "gauge", "The running version.", [("{version=\"\(status.version)\"}", "1")])
        metric("aggregatord_uptime_seconds", "gauge", "Seconds since the daemon started.",
               [("", String(Int(status.uptime)))])
        metric("aggregatord_feeds", "gauge", "Subscribed feeds by status.", FeedStatus.allCases.map {
            ("{status=\"\($0.rawValue)\"}", String(status.totals.feedsByStatus[$0, default: 0]))
        })
        metric("aggregatord_entries", "gauge", "Entries stored.", [("", String(status.totals.entries))])
        metric("aggregatord_unread_entries", "gauge", "Entries not read yet.", [("", String(status.totals.unread))])
        metric("aggregatord_fetches_total", "counter", "Feed fetches since the start, by result.", [
            ("{result=\"ok\"}", String(totals.sum.ok)), ("{result=\"not_modified\"}", String(totals.sum.notModified)),
            ("{result=\"failed\"}", String(totals.sum.failed)),
        ])
        metric("aggregatord_new_entries_total", "counter", "Entries stored new since the start.",
               [("", String(totals.sum.newEntries))])
        metric("aggregatord_round_duration_seconds", "summary", "Refresh rounds since the start and their time.",
               [("_sum", String(format: "%.3f", totals.sum.seconds)), ("_count", String(totals.rounds))])
        metric("aggregatord_http_requests_total", "counter", "HTTP requests answered, by route and status.",
               requests.sorted { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }.map {
                   ("{route=\"\($0.key.route)\",status=\"\($0.key.status)\"}", String($0.value))
               })
        metric("aggregatord_http_requests_shed_total", "counter",
               "HTTP requests answered 503 under load before any route (connection caps, pending bound, queue wait).",
               [("", String(shed))])
        return text
    }

    /// Whether `address` (numeric) is this machine's loopback: metrics are served there only.
    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }
}

/// What a request is counted by: a route (a fixed name, never the path a client sent, so the
/// number of series stays bounded) and the status answered.
struct RequestKey: Hashable, Sendable {
    let route: String
    let status: Int
}

/// The HTTP requests answered so far.
final class RequestCounts: Sendable {
    private let counts = Mutex<[RequestKey: Int]>([:])

    func count(route: String, status: Int) {
        counts.withLock { $0[RequestKey(route: route, status: status), default: 0] += 1 }
    }

    var current: [RequestKey: Int] { counts.withLock { $0 } }
}
