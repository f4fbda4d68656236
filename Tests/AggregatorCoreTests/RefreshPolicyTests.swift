@testable import AggregatorCore
import FeedStore
import Foundation
import Testing

@Suite struct RefreshPolicyTests {
    let policy = RefreshPolicy()

    @Test func intervalFollowsThePostingRateWithinTheBounds() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let hourly = (0..<10).map { now.addingTimeInterval(Double(-$0) * 3600) }
        #expect(policy.interval(entryDates: hourly, hints: []) == 30 * 60)
        let everyMinute = (0..<10).map { now.addingTimeInterval(Double(-$0) * 60) }
        #expect(policy.interval(entryDates: everyMinute, hints: []) == 15 * 60)  // never below the minimum
        let monthly = (0..<10).map { now.addingTimeInterval(Double(-$0) * 30 * 86_400) }
        #expect(policy.interval(entryDates: monthly, hints: []) == 24 * 3600)  // never above the maximum
    }

    @Test func publisherHintsAreLowerBounds() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let hourly = (0..<10).map { now.addingTimeInterval(Double(-$0) * 3600) }
        #expect(policy.interval(entryDates: hourly, hints: [2 * 3600]) == 2 * 3600)
        #expect(RefreshPolicy.publisherHint(timeToLiveMinutes: 90, updatePeriod: nil, updateFrequency: nil) == 5400)
        #expect(RefreshPolicy.publisherHint(timeToLiveMinutes: nil, updatePeriod: "daily", updateFrequency: 4) == 21_600)
    }

    @Test func failuresBackOffExponentiallyAndHonourRetryAfter() {
        #expect(policy.delay(afterConsecutiveFailures: 1) == 15 * 60)
        #expect(policy.delay(afterConsecutiveFailures: 3) == 60 * 60)
        #expect(policy.delay(afterConsecutiveFailures: 30) == 24 * 3600)
        #expect(policy.delay(afterConsecutiveFailures: 1, retryAfter: 7200) == 7200)
    }

    @Test func jitterStaysWithinTenPercent() {
        #expect(policy.jittered(1000, random: 0) == 900)
        #expect(policy.jittered(1000, random: 0.5) == 1000)
        #expect(policy.jittered(1000, random: 0.999_999) < 1100)
    }

    @Test func aFeedInFlightIsJoinedNotFetchedTwice() async {
        let inFlight = InFlightFeeds()
        #expect(await inFlight.join(7) == nil)  // the first caller owns the fetch
        let refresh = FeedRefresh(feedID: 7, document: nil, record: .failure("x"), checkedAt: Date(),
                                  nextCheckAt: Date(), intervalSeconds: 60)
        async let joined = inFlight.join(7)
        try? await Task.sleep(for: .milliseconds(50))
        await inFlight.finish(7, with: refresh)
        #expect(await joined?.feedID == 7)
        #expect(await inFlight.join(7) == nil)  // finished: the next caller fetches again
    }
}
