import FeedStore
import Foundation
import Synchronization

/// How often a regular account may have feeds fetched on demand (docs/SECURITY.md, "Quotas"): each feed at
/// most once a minute, and at most 60 fetches an hour in all. The scheduler fetches every feed when
/// it is due anyway; these only bound the extra fetches one account can make the server send (to a
/// site, for everyone who follows it). Kept in memory: a restart forgets them.
final class RefreshLimiter: Sendable {
    static let perFeed: TimeInterval = 60
    static let perHour = 60

    private struct Account {
        /// When each feed was last fetched on this account's demand.
        var lastByFeed: [SubscriptionID: Date] = [:]
        /// Every such fetch of the last hour, oldest first.
        var lastHour: [Date] = []
    }

    private let accounts = Mutex<[AccountID: Account]>([:])

    /// The feeds of `feeds` the account may have fetched now (recorded as fetched), and when the first
    /// of the others may be asked again, in whole seconds (nil when none was refused).
    func admit(_ feeds: [SubscriptionID], account: AccountID, now: Date = Date()) -> (allowed: [SubscriptionID], retryAfter: Int?) {
        accounts.withLock { accounts in
            var state = accounts[account] ?? Account()
            state.lastHour.removeAll { now.timeIntervalSince($0) >= 3_600 }
            state.lastByFeed = state.lastByFeed.filter { now.timeIntervalSince($0.value) < Self.perFeed }
            var allowed: [SubscriptionID] = []
            var wait: TimeInterval?
            for feed in feeds {
                if let last = state.lastByFeed[feed] {
                    wait = min(wait ?? .infinity, Self.perFeed - now.timeIntervalSince(last))
                } else if state.lastHour.count >= Self.perHour, let oldest = state.lastHour.first {
                    wait = min(wait ?? .infinity, 3_600 - now.timeIntervalSince(oldest))
                } else {
                    allowed.append(feed)
                    state.lastByFeed[feed] = now
                    state.lastHour.append(now)
                }
            }
            accounts[account] = state
            return (allowed, wait.map { max(1, Int($0.rounded(.up))) })
        }
    }
}
