import FeedFetcher
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct FeedFetcherTests {
    let server: FeedTestServer
    let fetcher = FeedFetcher(userAgent: UserAgent.header(version: "test"))

    init() throws {
        server = try FeedTestServer()
    }

    private func quick(_ path: String, _ adjust: (inout FetchLimits) -> Void = { _ in }) -> FetchRequest {
        var limits = FetchLimits()
        limits.connectTimeout = .seconds(2)
        limits.totalTimeout = .seconds(5)
        adjust(&limits)
        return FetchRequest(url: server.url(path), limits: limits)
    }

    @Test func conditionalGetGivesNotModified() async throws {
        let first = try await fetcher.fetch(quick("/feed.xml"))
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self).contains("Test feed"))
        #expect(first.etag == "\"v1\"")
        #expect(first.lastModified == "Sat, 01 Jun 2024 12:00:00 GMT")
        #expect(first.freshFor == 900)
        var again = quick("/feed.xml")
        again.etag = first.etag
        let second = try await fetcher.fetch(again)
        #expect(second.isNotModified)
        #expect(second.body.isEmpty)
    }

    /// Every option is checked as it is set: curl refuses strings over 8,000,000 bytes, and a transfer
    /// missing an option (here its URL; elsewhere a limit or an address check) does not run.
    @Test func anOptionCurlRefusesStopsTheFetch() async throws {
        let url = server.url("/feed.xml?") + String(repeating: "a", count: 8_100_000)
        await #expect(throws: FetchError.transport(
            "curl refused an option (URL: A libcurl function was given a bad argument); not fetched")) {
            try await fetcher.fetch(FetchRequest(url: url))
        }
        #expect(try await fetcher.fetch(quick("/feed.xml")).status == 200, "the fetcher goes on")
    }

    @Test func gzipIsDecodedTransparently() async throws {
        let response = try await fetcher.fetch(quick("/gzip.xml"))
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("<?xml"))
    }

    @Test func errorStatusesAndRetryAfter() async throws {
        await #expect(throws: FetchError.httpStatus(404, retryAfter: nil)) { try await fetcher.fetch(quick("/status/404")) }
        await #expect(throws: FetchError.httpStatus(429, retryAfter: 120)) { try await fetcher.fetch(quick("/status/429")) }
        await #expect(throws: FetchError.httpStatus(410, retryAfter: nil)) { try await fetcher.fetch(quick("/status/410")) }
    }

    @Test func permanentRedirectsReportTheNewAddress() async throws {
        let response = try await fetcher.fetch(quick("/moved"))
        #expect(response.finalURL == server.url("/feed.xml"))
        #expect(response.permanentRedirect == server.url("/feed.xml"))
    }

    @Test func redirectLoopsAndOtherSchemesAreRefused() async throws {
        let loop = await #expect(throws: FetchError.self) { try await fetcher.fetch(quick("/redirect-loop")) }
        #expect(loop?.description.contains("more than 5 redirects") == true)
        let file = await #expect(throws: FetchError.self) { try await fetcher.fetch(quick("/redirect-file")) }
        #expect(file == .unsupportedURL("file:///etc/passwd"))
        await #expect(throws: FetchError.unsupportedURL("file:///etc/passwd")) {
            try await fetcher.fetch(FetchRequest(url: "file:///etc/passwd"))
        }
    }

    @Test func bodiesOverTheCapStopEarly() async throws {
        let cap: (inout FetchLimits) -> Void = { $0.maximumBodyBytes = 1 << 20 }
        await #expect(throws: FetchError.tooLarge(limit: 1 << 20)) { try await fetcher.fetch(quick("/big-length", cap)) }
        await #expect(throws: FetchError.tooLarge(limit: 1 << 20)) { try await fetcher.fetch(quick("/endless", cap)) }
        await #expect(throws: FetchError.tooLarge(limit: 1 << 20)) { try await fetcher.fetch(quick("/gzip-bomb", cap)) }
    }

    @Test func slowAndSilentServersTimeOut() async throws {
        let started = Date()
        await #expect(throws: FetchError.self) {
            try await fetcher.fetch(quick("/slow") { $0.lowSpeedBytesPerSecond = 100; $0.lowSpeedTime = .seconds(1) })
        }
        await #expect(throws: FetchError.self) {
            try await fetcher.fetch(quick("/hang") { $0.totalTimeout = .milliseconds(800) })
        }
        #expect(Date().timeIntervalSince(started) < 6 * testTimeScale)
    }

    @Test func linkLocalAndOptionallyPrivateAddressesAreRefusedAfterResolution() async throws {
        let metadata = await #expect(throws: FetchError.self) {
            try await fetcher.fetch(FetchRequest(url: "http://169.254.169.254/latest/meta-data/"))
        }
        #expect(metadata?.description.contains("link-local") == true)
        let strict = FeedFetcher(userAgent: "test", addressPolicy: AddressPolicy(denyPrivateNetworks: true))
        let local = await #expect(throws: FetchError.self) { try await strict.fetch(quick("/feed.xml")) }
        #expect(local?.description.contains("private-networks = none") == true)
    }

    @Test func aStricterPolicyAppliesToConnectionsKeptAlive() async throws {
        let fetcher = FeedFetcher(userAgent: "test")
        #expect(try await fetcher.fetch(quick("/feed.xml")).status == 200)  // leaves a kept-alive connection
        fetcher.setAddressPolicy(AddressPolicy(denyPrivateNetworks: true))
        let refused = await #expect(throws: FetchError.self) { try await fetcher.fetch(quick("/feed.xml")) }
        #expect(refused?.description.contains("private-networks = none") == true)
        fetcher.setAddressPolicy(AddressPolicy())
        #expect(try await fetcher.fetch(quick("/feed.xml")).status == 200)
    }

    @Test func cancellingTheCallerStopsTheTransfer() async throws {
        let started = Date()
        let request = quick("/hang") { $0.totalTimeout = .seconds(20) }
        let fetcher = self.fetcher
        let task = Task { try await fetcher.fetch(request) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        #expect(throws: FetchError.cancelled) { try result.get() }
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test func manyTransfersRunAtOnce() async throws {
        let request = quick("/feed.xml")
        let fetcher = self.fetcher
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 { group.addTask { try await fetcher.fetch(request).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 40 && statuses.allSatisfy { $0 == 200 })
    }

    @Test func aHostsExtraTransfersWaitWithoutTheirTimeLimitsRunning() async throws {
        let fetcher = self.fetcher
        // Each answer takes 400 ms and may take 1 s: six, two at a time, take 1.2 s, so the last two
        // would time out if their clocks ran while they waited.
        let requests = (0..<6).map { _ in
            var request = quick("/concurrent/400") { $0.totalTimeout = .seconds(1) }
            request.perHostLimit = 2
            return request
        }
        let started = Date()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in requests { group.addTask { try await fetcher.fetch(request).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 6))
        #expect(Date().timeIntervalSince(started) >= 1.15)
        let most = try await fetcher.fetch(quick("/most-concurrent")).body
        #expect(String(decoding: most, as: UTF8.self) == "2")
    }

    @Test func cancellingATransferHeldBackForItsHostEndsIt() async throws {
        let fetcher = self.fetcher
        var running = quick("/concurrent/1500")
        running.perHostLimit = 1
        var waiting = quick("/feed.xml")
        waiting.perHostLimit = 1
        let first = Task { try await fetcher.fetch(running) }
        try await Task.sleep(for: .milliseconds(200))
        let started = Date()
        let second = Task { [waiting] in try await fetcher.fetch(waiting) }
        try await Task.sleep(for: .milliseconds(200))
        second.cancel()
        let result = await second.result
        #expect(throws: FetchError.cancelled) { try result.get() }
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(try await first.value.status == 200)
        // The host's slot is free again.
        #expect(try await fetcher.fetch(waiting).status == 200)
    }
}
