import Foundation
import Synchronization

/// Slows password guessing per client address: the first `freeFailures` failures cost nothing;
/// after them, each attempt must wait twice as long as the one before (1 s, 2 s, 4 s … up to
/// `longestWait`) since the last failure, and is refused without being checked until then. A success
/// clears the address. Addresses idle for an hour are forgotten, and at most `capacity` are kept.
/// Several daemons on one database also count failures there (`ClusterStore.loginFailed`): a
/// guesser spreading attempts over the daemons behind a load balancer waits as if it met one.
public final class LoginThrottle: Sendable {
    public let freeFailures: Int
    public let longestWait: TimeInterval
    let capacity: Int

    private struct Record {
        var failures: Int
        var last: Date
    }

    private let records = Mutex<[String: Record]>([:])

    public init(freeFailures: Int = 5, longestWait: TimeInterval = 900, capacity: Int = 10_000) {
        (self.freeFailures, self.longestWait, self.capacity) = (freeFailures, longestWait, capacity)
    }

    /// Seconds `address` must still wait before its next attempt is checked; 0 when it may try now.
    public func wait(for address: String, now: Date = Date()) -> Int {
        records.withLock { records in
            guard let record = records[address] else { return 0 }
            return wait(after: record.failures, lastAt: record.last, now: now)
        }
    }

    /// Seconds to wait after `failures` in a row, the last at `last`; 0 when the next may be checked now.
    public func wait(after failures: Int, lastAt last: Date, now: Date = Date()) -> Int {
        let remaining = delay(after: failures) - now.timeIntervalSince(last)
        return remaining > 0 ? Int(remaining.rounded(.up)) : 0
    }

    /// Counts a failed attempt. - Returns: how many failures in a row the address has made.
    @discardableResult
    public func failed(_ address: String, now: Date = Date()) -> Int {
        records.withLock { records in
            if records.count >= capacity, records[address] == nil {
                // Forget the idle first; a flood of addresses then evicts the oldest, never grows the table.
                records = records.filter { now.timeIntervalSince($0.value.last) < 3600 }
                if records.count >= capacity, let oldest = records.min(by: { $0.value.last < $1.value.last }) {
                    records[oldest.key] = nil
                }
            }
            var record = records[address] ?? Record(failures: 0, last: now)
            record.failures += 1
            record.last = now
            records[address] = record
            return record.failures
        }
    }

    public func succeeded(_ address: String) {
        _ = records.withLock { $0.removeValue(forKey: address) }
    }

    private func delay(after failures: Int) -> TimeInterval {
        guard failures >= freeFailures else { return 0 }
        return min(longestWait, pow(2, Double(min(failures - freeFailures, 30))))
    }
}
