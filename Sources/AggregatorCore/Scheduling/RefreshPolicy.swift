import Foundation

/// When to check a feed next (docs/ARCHITECTURE.md, "Scheduling"): a pure value the scheduler asks, so it can be tested alone.
public struct RefreshPolicy: Sendable, Equatable {
    public var minimumInterval: TimeInterval = 15 * 60
    public var maximumInterval: TimeInterval = 24 * 3600
    /// ±this fraction of random spread, so feeds added together do not stay in lockstep.
    public var jitter: Double = 0.1

    public init() {}

    /// The interval after a successful fetch.
    /// - Parameters:
    ///   - entryDates: publication dates of the feed's entries (any order).
    ///   - hints: what the publisher or server asked for (`<ttl>`, `sy:updatePeriod`, Cache-Control).
    public func interval(entryDates: [Date], hints: [TimeInterval]) -> TimeInterval {
        // Half the typical gap between the newest posts: a feed posting daily is checked twice a day.
        let newest = entryDates.sorted(by: >).prefix(10)
        var interval = maximumInterval / 4
        if newest.count >= 2 {
            let gaps = zip(newest, newest.dropFirst()).map { $0.timeIntervalSince($1) }.sorted()
            interval = gaps[gaps.count / 2] / 2
        }
        // Publishers' hints are lower bounds: never poll faster than they ask.
        interval = ([interval] + hints).max() ?? interval
        return clamp(interval)
    }

    /// The interval after `consecutiveFailures` failures in a row (1 for the first), at least `retryAfter`.
    public func delay(afterConsecutiveFailures consecutiveFailures: Int, retryAfter: TimeInterval? = nil) -> TimeInterval {
        let exponent = Double(max(0, min(consecutiveFailures - 1, 16)))
        let backoff = minimumInterval * pow(2, exponent)
        return clamp(max(backoff, retryAfter ?? 0))
    }

    /// `interval` spread by up to ±`jitter`, using `random` in 0..<1.
    public func jittered(_ interval: TimeInterval, random: Double) -> TimeInterval {
        interval * (1 + jitter * (2 * random - 1))
    }

    private func clamp(_ interval: TimeInterval) -> TimeInterval {
        min(max(interval, minimumInterval), maximumInterval)
    }

    /// The polling interval a feed itself asks for with RSS `<ttl>` or `sy:updatePeriod`/`sy:updateFrequency`.
    public static func publisherHint(timeToLiveMinutes: Int?, updatePeriod: String?, updateFrequency: Int?) -> TimeInterval? {
        if let minutes = timeToLiveMinutes, minutes > 0 { return TimeInterval(minutes) * 60 }
        let period: TimeInterval? = switch updatePeriod {
        case "hourly": 3600
        case "daily": 86_400
        case "weekly": 7 * 86_400
        case "monthly": 30 * 86_400
        case "yearly": 365 * 86_400
        default: nil
        }
        return period.map { $0 / TimeInterval(max(1, updateFrequency ?? 1)) }
    }
}
