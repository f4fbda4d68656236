import AggregatorCore
import FeedStore
import Foundation
@testable import HTTPAPI
import Testing

@Suite struct MetricsTests {
    @Test(arguments: [("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("::ffff:127.0.0.1", true),
                      ("192.168.1.20", false), ("10.0.0.1", false), ("fe80::1", false), ("", false)])
    func metricsAreForLoopbackOnly(address: String, isLoopback: Bool) {
        #expect(Metrics.isLoopback(address) == isLoopback)
    }

    @Test func thePageIsPrometheusText() {
        var totals = RefreshTotals()
        totals.rounds = 2
        totals.sum.ok = 5
        totals.sum.failed = 1
        totals.sum.seconds = 1.5
        let status = ServiceStatus(version: "9.9", uptime: 61.7, databasePath: "/x.db", databaseBytes: 4096,
                                   totals: StoreTotals(feedsByStatus: [.ok: 5, .failing: 1], entries: 40, unread: 12))
        let page = Metrics.page(status: status, totals: totals,
                                requests: [RequestKey(route: "/healthcheck", status: 200): 3], shed: 7)
        for line in page.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.wholeMatch(of: /[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.]+/) != nil, "\(line)")
        }
        #expect(page.contains("aggregatord_feeds{status=\"ok\"} 5\naggregatord_feeds{status=\"failing\"} 1\n"))
        #expect(page.contains("aggregatord_feeds{status=\"disabled\"} 0\n"))
        #expect(page.contains("aggregatord_unread_entries 12\n"))
        #expect(page.contains("aggregatord_fetches_total{result=\"failed\"} 1\n"))
        #expect(page.contains("aggregatord_round_duration_seconds_sum 1.500\naggregatord_round_duration_seconds_count 2\n"))
        #expect(page.contains("aggregatord_http_requests_total{route=\"/healthcheck\",status=\"200\"} 3\n"))
        #expect(page.contains("aggregatord_build_info{version=\"9.9\"} 1\n"))
        #expect(page.contains("aggregatord_http_requests_shed_total 7\n"))
    }
}
