import Foundation
import Testing
@testable import FeedStore

/// The claims several daemons agree through (docs/ARCHITECTURE.md), on the PostgreSQL test cluster.
@Suite(.enabled(if: TestDatabase.isPostgres, "needs the PostgreSQL test cluster (make test-postgres)"))
struct ClusterStoreTests {
    private static func host(_ url: String) -> String { URL(string: url)?.host ?? url }

    @Test func aHostWithManyDueFeedsDoesNotHideTheOthers() async throws {
        let fixture = try StoreFixture()
        // An import of 300 feeds from one site, then 5 from another: all due, the big site first.
        try await fixture.store.addFeeds((1...300).map { .init(url: "https://big.example/feed/\($0)") }, account: 1)
        try await fixture.store.addFeeds((1...5).map { .init(url: "https://small.example/feed/\($0)") }, account: 1)
        let cluster = try ClusterStore(uri: fixture.path, node: "one")
        let claim = try await cluster.claim(limit: 10, perTurn: 4, lease: 60, host: Self.host)
        let hosts = claim.feeds.map { Self.host($0.url) }
        #expect(hosts.prefix(4).allSatisfy { $0 == "big.example" }, "a turn of the big site")
        #expect(hosts.dropFirst(4).prefix(4).allSatisfy { $0 == "small.example" }, "then a turn of the small one: \(hosts)")
        #expect(hosts.count == 10, "then more of either: the daemon runs alone")
        // Another daemon finds both sites taken: nothing for it, everything held back.
        let other = try await ClusterStore(uri: fixture.path, node: "two").claim(limit: 10, perTurn: 4, lease: 60, host: Self.host)
        #expect(other.feeds.isEmpty && other.heldBack > 0)
    }

    /// A daemon tops up its turn on a host as its feeds finish, while nobody waits for the host: a
    /// whole claim alone, a turn's worth in flight once other daemons run; a daemon waiting for the
    /// host ends the top-ups, and its turn comes when the last of the holder's feeds is done.
    @Test func aTurnIsToppedUpUntilAnotherDaemonWaitsForTheHost() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addFeeds((1...40).map { .init(url: "https://big.example/feed/\($0)") }, account: 1)
        // One moment for every call: heartbeats count as recent by the time given, not the clock's
        // (a slow run must not make "one" look gone).
        let now = Date()
        let one = try ClusterStore(uri: fixture.path, node: "one")
        try await one.register(started: now, lease: 60)
        let alone = try await one.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host)
        #expect(alone.feeds.count == 10, "a whole claim of the one host: it runs alone")
        #expect(try await one.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host).feeds.isEmpty, "a claim's worth in flight")
        let two = try ClusterStore(uri: fixture.path, node: "two")
        try await two.register(started: now, lease: 60)
        try await one.fetched(Array(alone.feeds.map(\.id).prefix(7)))
        let beside = try await one.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host)
        #expect(beside.feeds.count == 1, "topped up to a turn's four in flight, now that another daemon runs")
        // The other daemon finds the host taken and waits for it: no more top-ups for the holder.
        let waiting = try await two.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host)
        #expect(waiting.feeds.isEmpty && waiting.heldBack > 0)
        let inFlight = Array(alone.feeds.map(\.id).dropFirst(7)) + beside.feeds.map(\.id)
        try await one.fetched(Array(inFlight.dropLast()))
        #expect(try await one.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host).feeds.isEmpty,
                "another daemon waits for the host")
        try await one.fetched([inFlight.last!])
        let turn = try await two.claim(limit: 10, perTurn: 4, lease: 60, now: now, host: Self.host)
        #expect(turn.feeds.count == 4, "the waiting daemon's turn")
    }

    @Test func onlyTheClaimsADaemonWorksOnAreRenewedAndARestartGivesTheRestBack() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addFeeds((1...3).map { .init(url: "https://site\($0).example/feed") }, account: 1)
        let cluster = try ClusterStore(uri: fixture.path, node: "one")
        let start = Date()
        let claim = try await cluster.claim(limit: 10, perTurn: 4, lease: 60, now: start, host: Self.host)
        #expect(claim.feeds.count == 3)
        let (working, lost) = (claim.feeds[0].id, claim.feeds[1].id)
        try await cluster.renewClaims([working], lease: 60, now: start.addingTimeInterval(30))
        let database = try Database(path: fixture.path)
        func lease(_ id: Int64) throws -> Int64? {
            try database.integer("SELECT next_check_at FROM feeds WHERE id = ?1", [.integer(id)])
        }
        #expect(try lease(working.rawValue) == Int64(start.timeIntervalSince1970) + 90)
        #expect(try lease(lost.rawValue) == Int64(start.timeIntervalSince1970) + 60, "not renewed: it runs out")
        // The same name starting again: its earlier life's claims are due at once, for anyone.
        try await cluster.register(started: start.addingTimeInterval(40), lease: 60)
        let two = try ClusterStore(uri: fixture.path, node: "two")
        let again = try await two.claim(limit: 10, perTurn: 4, lease: 60, now: start.addingTimeInterval(41), host: Self.host)
        #expect(again.feeds.count == 3)
        // A daemon registering after its first claims (the two run side by side) keeps them.
        try await two.register(started: start.addingTimeInterval(41), lease: 60)
        #expect(try database.integer("SELECT count(*) FROM feeds WHERE claimed_by = 'two'", []) == 3)
        // Freed hosts and empty lists are no errors.
        try await cluster.fetched([])
        #expect(try await cluster.makeDue([]) == 0)
        #expect(try await cluster.checks([]).isEmpty)
    }

    /// `refresh --wait` knows a new check from the one before its ask even in the same second: by the
    /// feed's count of checks, which every recorded fetch raises (the several-feeds statement too).
    @Test func everyRecordedFetchCountsAsACheckEvenInOneSecond() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.addFeeds((1...3).map { .init(url: "https://site\($0).example/feed") }, account: 1)
        let cluster = try ClusterStore(uri: fixture.path, node: "one")
        let ids = try await fixture.store.feedsToFetch().map(\.id)
        let second = Date(timeIntervalSince1970: 1_800_000_000)
        func refresh(_ id: FeedID, _ record: FetchRecord) -> FeedRefresh {
            FeedRefresh(feedID: FeedID(id.rawValue), document: nil, record: record, checkedAt: second,
                        nextCheckAt: second.addingTimeInterval(600), intervalSeconds: 600)
        }
        let ok = FetchRecord.success(etag: "\"e\"", lastModified: nil, newURL: nil, title: nil, siteURL: nil)
        // One group: two successes (one feed twice: its last fetch is recorded) and a failure.
        try await fixture.store.commit([refresh(ids[0], ok), refresh(ids[1], ok), refresh(ids[0], ok),
                                        refresh(ids[2], .failure("timed out"))])
        let first = try await cluster.checks(ids)
        #expect(ids.map { first[$0]?.count } == [1, 1, 1], "a feed twice in one group is one check")
        #expect(ids.map { first[$0]?.succeeded } == [true, true, false])
        try await fixture.store.commit([refresh(ids[0], ok), refresh(ids[2], ok)])
        let then = try await cluster.checks(ids)
        #expect(ids.map { then[$0]?.count } == [2, 1, 2], "the same second, a later check")
        #expect(ids.map { then[$0]?.at } == ids.map { first[$0]?.at })
        #expect(then[ids[2]]?.succeeded == true)
    }
}
