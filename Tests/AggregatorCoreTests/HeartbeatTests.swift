import AggregatorCore
import Foundation
import Testing

/// The watchdog's view of the scheduler: alive while it beats, and while it sleeps until a deadline
/// that has not passed by more than the watchdog's interval.
@Suite struct HeartbeatTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aBeatIsFreshForTheInterval() {
        let heartbeat = Heartbeat()
        heartbeat.beat(at: start)
        #expect(heartbeat.isFresh(within: 10, now: start.addingTimeInterval(9)))
        #expect(!heartbeat.isFresh(within: 10, now: start.addingTimeInterval(11)))
    }

    @Test func aSleepIsAliveUntilItsDeadlineIsOverdue() {
        let heartbeat = Heartbeat()
        heartbeat.sleeping(until: start.addingTimeInterval(3600), at: start)
        #expect(heartbeat.isFresh(within: 10, now: start.addingTimeInterval(1800)))
        #expect(heartbeat.isFresh(within: 10, now: start.addingTimeInterval(3609)))
        #expect(!heartbeat.isFresh(within: 10, now: start.addingTimeInterval(3611)), "stuck past its deadline")
        heartbeat.beat(at: start.addingTimeInterval(3605))  // woke and works
        #expect(!heartbeat.isFresh(within: 10, now: start.addingTimeInterval(3620)))
    }

    @Test func aSleepWithoutDeadlineWaitsForAWakeUpAlive() {
        let heartbeat = Heartbeat()
        heartbeat.sleeping(until: nil, at: start)
        #expect(heartbeat.isFresh(within: 10, now: start.addingTimeInterval(86_400 * 30)))
    }
}
