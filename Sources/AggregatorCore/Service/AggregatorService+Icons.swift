import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - Feed icons (docs/ARCHITECTURE.md)

    /// The icon with this id. - Throws: not found when no feed shows it.
    /// Looks for a feed's icon now rather than after the next round (Miniflux apps show a new feed's
    /// icon as soon as it is added): once its first fetch is stored, and only if the daemon looks for
    /// icons at all.
    public func findIconNow(of feed: FeedReference, for account: AccountIdentity) async throws(AggregatorError) {
        guard await scheduler.findsIcons else { return }
        let subscription = try await feedID(feed, for: account)
        let id = try await write { try await $0.feedID(ofSubscription: subscription, account: account.id) }
        let finder = IconFinder(store: store, fetcher: pipeline.fetcher, logger: pipeline.logger, limits: pipeline.limits,
                                regularAccountsRule: pipeline.regularAccountsRule)
        await finder.lookNow(feedID: id)
    }

    public func icon(id: Int64, for account: AccountIdentity) async throws(AggregatorError) -> FeedIcon {
        let nonPublic = mayBeShownNonPublic(account)
        guard let icon = try await read({ try $0.icon(id: id, account: account.id, nonPublic: nonPublic) }) else {
            throw .notFound("no icon with id \(id)")
        }
        return icon
    }

    /// The icon kept under this digest (lower-case hex SHA-256), if any.
    public func icon(digest: String) async throws(AggregatorError) -> FeedIcon? {
        guard digest.count == 64, digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return try await read { try $0.icon(digest: digest) }
    }

    /// The icon `feed` shows. - Throws: not found when there is no such feed, or it has no icon yet.
    public func icon(ofFeed feed: FeedReference, for account: AccountIdentity) async throws(AggregatorError) -> FeedIcon {
        let id = try await self.feed(feed, for: account).id
        let nonPublic = mayBeShownNonPublic(account)
        guard let icon = try await read({ try $0.icon(ofFeed: id, account: account.id, nonPublic: nonPublic) }) else {
            throw .notFound("feed \(id) has no icon")
        }
        return icon
    }

    /// Every icon a feed shows.
    public func icons(for account: AccountIdentity) async throws(AggregatorError) -> [FeedIcon] {
        let nonPublic = mayBeShownNonPublic(account)
        return try await read { try $0.icons(account: account.id, nonPublic: nonPublic) }
    }

    /// The icon digests of `feedIDs` that have one (the web page's icons).
    public func feedIconDigests(of feedIDs: some Collection<SubscriptionID>, for account: AccountIdentity) async throws(AggregatorError)
        -> [SubscriptionID: String] {
        guard !feedIDs.isEmpty else { return [:] }
        let ids = Array(feedIDs.prefix(10_000))
        let nonPublic = mayBeShownNonPublic(account)
        return try await read { try $0.feedIconDigests(feedIDs: ids, account: account.id, nonPublic: nonPublic) }
    }

    /// Whether `account` may be shown what a fetch brought from a non-public address (an icon, a
    /// page): nobody under `none`; an admin under `admins`; anyone under `all` (docs/SECURITY.md).
    func mayBeShownNonPublic(_ account: AccountIdentity) -> Bool {
        guard !pipeline.fetcher.addressPolicy.denyPrivateNetworks else { return false }
        return account.isAdmin || pipeline.regularAccountsRule == nil
    }
}
