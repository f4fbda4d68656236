@testable import AggregatorCore
import FeedFetcher
import FeedStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// The scheduler over a real store, pipeline and fetcher (fetching from the local test server), on a
/// test clock: hours of schedule pass in milliseconds, and nothing sleeps in real time.
/// The time limit only ends a hang: in a full parallel run on two cores a test here waits for
/// threads (tests that block them while a child process runs) and takes 15–20 s; alone, under 2 s.
@Suite(.timeLimit(.minutes(3))) struct SchedulerTests {
    /// A scheduler running in a task of its own, with what it did so far.
    final class Harness: Sendable {
        let clock = TestClock()
        let server: FeedTestServer
        let directory: URL
        let store: FeedStore
        let fetcher: FeedFetcher
        let scheduler: Scheduler
        let rounds: AsyncStream<RefreshSummary>
        private let roundSink: AsyncStream<RefreshSummary>.Continuation
        let roundCount = Atomic(0)

        init() throws {
            server = try FeedTestServer()
            directory = try temporaryDirectory()
            store = try FeedStore(path: directory.appendingPathComponent("scheduler.db").path)
            fetcher = FeedFetcher(userAgent: "aggregatord-test")
            let logger = Logger(minimumLevel: .error, component: "scheduler", journald: false) { _ in }
            let pipeline = RefreshPipeline(store: store, fetcher: fetcher, logger: logger, clock: clock)
            scheduler = Scheduler(store: store, pipeline: pipeline, logger: logger, clock: clock)
            (rounds, roundSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        }

        /// Subscribes to the server's `path`; due at `nextCheck` (nil: never checked, so due now).
        @discardableResult
        func feed(_ path: String, due nextCheck: Date?) async throws -> Int64 {
            let url = server.url(path)
            try await store.addFeeds([.init(url: url)], account: 1)
            let id = try #require(try await store.feedID(url: url, account: 1))
            if let nextCheck {
                try await store.record(.success(etag: nil, lastModified: nil, newURL: nil, title: nil, siteURL: nil),
                                       feedID: FeedID(id.rawValue), checkedAt: clock.now, nextCheckAt: nextCheck, intervalSeconds: 3600)
            }
            return id.rawValue
        }

        /// Runs the scheduler until `body` returns, then cancels it and waits for it to end.
        func running(_ body: (inout AsyncStream<Date>.Iterator, inout AsyncStream<RefreshSummary>.Iterator) async throws -> Void)
            async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await self.scheduler.run { summary in
                        self.roundCount.add(1, ordering: .relaxed)
                        self.roundSink.yield(summary)
                    }
                }
                var sleeps = clock.sleeps.makeAsyncIterator()
                var rounds = rounds.makeAsyncIterator()
                try await body(&sleeps, &rounds)
                group.cancelAll()
                try await group.waitForAll()
            }
        }

        func errorCount(_ id: Int64) async throws -> Int? {
            try await store.feedsToFetch().first { $0.id.rawValue == id }?.errorCount
        }

        deinit {
            fetcher.stop()
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func sleepsUntilTheEarliestDueFeedAndRefreshesOnlyWhatIsDue() async throws {
        let harness = try Harness()
        let start = harness.clock.now
        try await harness.feed("/numbered/0/1", due: start.addingTimeInterval(600))
        try await harness.feed("/numbered/0/2", due: start.addingTimeInterval(1200))
        try await harness.feed("/numbered/0/3", due: start.addingTimeInterval(7200))
        try await harness.running { sleeps, rounds in
            #expect(await sleeps.next() == start.addingTimeInterval(600))
            #expect(harness.roundCount.load(ordering: .relaxed) == 0)  // nothing was due before the sleep

            harness.clock.advance(to: start.addingTimeInterval(600))
            let first = try #require(await rounds.next())
            #expect((first.feeds, first.ok) == (1, 1))
            // Feed 1's next check is hours away now (its entries carry no dates): feed 2 is next.
            #expect(await sleeps.next() == start.addingTimeInterval(1200))

            harness.clock.advance(to: start.addingTimeInterval(1200))
            let round1 = try #require(await rounds.next())
            #expect(round1.feeds == 1)
            #expect(await sleeps.next() == start.addingTimeInterval(7200))
            #expect(await harness.scheduler.nextDue == start.addingTimeInterval(7200))
        }
    }

    @Test func aWakeUpReadsTheFeedsAgainAndFetchesNewOnesAtOnce() async throws {
        let harness = try Harness()
        let start = harness.clock.now
        try await harness.feed("/numbered/0/1", due: start.addingTimeInterval(3600))
        try await harness.running { sleeps, rounds in
            #expect(await sleeps.next() == start.addingTimeInterval(3600))
            try await harness.feed("/numbered/0/2", due: nil)  // as `aggregatorctl add` does
            harness.scheduler.wake()
            let round = try #require(await rounds.next())
            #expect(round.feeds == 1)  // the new feed, with the clock unmoved
            #expect(await sleeps.next() == start.addingTimeInterval(3600))
        }
    }

    @Test func feedsAskedForByNameAreFetchedThoughNotDue() async throws {
        let harness = try Harness()
        let start = harness.clock.now
        let first = try await harness.feed("/numbered/0/1", due: start.addingTimeInterval(3600))
        try await harness.feed("/numbered/0/2", due: start.addingTimeInterval(3600))
        try await harness.running { sleeps, rounds in
            #expect(await sleeps.next() == start.addingTimeInterval(3600))
            await harness.scheduler.refreshSoon([FeedID(first)])
            let round2 = try #require(await rounds.next())
            #expect(round2.feeds == 1)
            #expect(await sleeps.next() == start.addingTimeInterval(3600))  // feed 2 is still due then
            await harness.scheduler.refreshSoon(nil)
            let round3 = try #require(await rounds.next())
            #expect(round3.feeds == 2)
            #expect(harness.clock.now == start)
        }
    }

    @Test func aFailingFeedIsRetriedWithAGrowingBackoff() async throws {
        let harness = try Harness()
        let start = harness.clock.now
        let policy = RefreshPolicy()
        let feed = try await harness.feed("/status/500", due: nil)
        try await harness.running { sleeps, rounds in
            let round4 = try #require(await rounds.next())
            #expect(round4.failed == 1)
            let firstRetry = try #require(await sleeps.next())
            // The first retry after minimum-interval (±10 % jitter), the second after twice that.
            let first = firstRetry.timeIntervalSince(start)
            #expect(first >= policy.minimumInterval * 0.9 && first <= policy.minimumInterval * 1.1)
            harness.clock.advance(to: firstRetry)
            let round5 = try #require(await rounds.next())
            #expect(round5.failed == 1)
            let second = try #require(await sleeps.next()).timeIntervalSince(firstRetry)
            #expect(second >= policy.minimumInterval * 1.8 && second <= policy.minimumInterval * 2.2)
            let errors = try await harness.errorCount(feed)
            #expect(errors == 2)
        }
    }

    @Test func cancellingEndsTheSleepAtOnce() async throws {
        let harness = try Harness()
        try await harness.feed("/numbered/0/1", due: harness.clock.now.addingTimeInterval(86_400))
        try await harness.running { sleeps, _ in
            #expect(await sleeps.next() == harness.clock.now.addingTimeInterval(86_400))
        }
        // `running` cancelled the scheduler in its sleep and waited for it: it ended with the clock unmoved.
        #expect(harness.clock.waitingSleeps == 0)
        #expect(await harness.scheduler.lastRound == nil)
    }

    @Test func withoutFeedsItWaitsOnlyForAWakeUpAndStillEndsWhenCancelled() async throws {
        let harness = try Harness()
        try await harness.running { _, rounds in
            await harness.scheduler.refreshSoon(nil)  // every feed of none: no round
            try await harness.feed("/numbered/0/1", due: nil)
            harness.scheduler.wake()
            let round6 = try #require(await rounds.next())
            #expect(round6.feeds == 1)
        }
        #expect(harness.clock.waitingSleeps == 0)
    }
}
