@testable import AggregatorCore
import Foundation
import Testing

@Suite struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func failuresPastTheFreeOnesDoubleTheWaitUntilASuccess() {
        let throttle = LoginThrottle(freeFailures: 3, longestWait: 60)
        for _ in 1...2 { throttle.failed("10.0.0.1", now: start) }
        #expect(throttle.wait(for: "10.0.0.1", now: start) == 0)
        throttle.failed("10.0.0.1", now: start)
        #expect(throttle.wait(for: "10.0.0.1", now: start) == 1)
        #expect(throttle.wait(for: "10.0.0.1", now: start + 1) == 0)
        throttle.failed("10.0.0.1", now: start + 1)
        #expect(throttle.wait(for: "10.0.0.1", now: start + 1) == 2)
        for _ in 1...10 { throttle.failed("10.0.0.1", now: start + 2) }
        #expect(throttle.wait(for: "10.0.0.1", now: start + 2) == 60, "capped")
        #expect(throttle.wait(for: "10.0.0.2", now: start + 2) == 0, "per address")
        throttle.succeeded("10.0.0.1")
        #expect(throttle.wait(for: "10.0.0.1", now: start + 2) == 0)
    }

    @Test func aFloodOfAddressesNeverGrowsTheTablePastItsCapacity() {
        let throttle = LoginThrottle(freeFailures: 1, longestWait: 60, capacity: 100)
        for number in 0..<1000 { throttle.failed("10.0.\(number / 256).\(number % 256)", now: start + Double(number)) }
        #expect(throttle.wait(for: "10.0.3.231", now: start + 999) == 1, "the newest is kept")
        #expect(throttle.wait(for: "10.0.0.0", now: start + 999) == 0, "the oldest went")
    }
}
