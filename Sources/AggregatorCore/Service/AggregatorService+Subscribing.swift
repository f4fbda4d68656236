import FeedFetcher
import FeedParser
import FeedStore
import Foundation

/// Who may follow what (docs/SECURITY.md, "One gate for subscriptions"). Every route that creates a subscription or
/// changes a feed's URL (CLI, Miniflux, Google Reader, web: add, import, discover, edit) comes through
/// `admit`, `admissions` and `subscribe` here, so that the address rule and the quotas hold on all of them.
extension AggregatorService {
    /// Refuses what is not an http(s) URL with a host, naming it.
    static func checkFeedURL(_ url: String) throws(AggregatorError) {
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false else {
            throw .invalidArgument("not an http(s) URL: \(url) (feeds are fetched over HTTP or HTTPS only)")
        }
    }

    /// Refuses `url` to `account` when its host stands for an address the rule keeps from the
    /// account's fetches (`private-networks`, docs/ARCHITECTURE.md). Only DNS is asked: no request is sent.
    func admit(_ url: String, for account: AccountIdentity) async throws(AggregatorError) {
        try Self.checkFeedURL(url)
        if let refusal = try await admissions([url], for: account)[url] { throw .invalidArgument(refusal) }
    }

    /// Each URL of `urls` the account may not follow, with why; those left out may be followed. A
    /// name that does not resolve now is let through: the fetch checks every address it connects to.
    func admissions(_ urls: [String], for account: AccountIdentity) async throws(AggregatorError) -> [String: String] {
        guard let rule = try await stricterAddressRule(for: account) else { return [:] }
        let policy = AddressPolicy(denyPrivateNetworks: true, reason: rule)
        let refusedHosts = await Self.refusedHosts(Set(urls.map(FetchRequest.host(of:))), policy: policy)
        // A feed an admin's fetches reach at a non-public address, whatever its name resolves to here.
        let adminsOnly = try await read { try $0.feedsOnlyForAdmins(among: urls) }
        var refused: [String: String] = [:]
        for url in urls {
            if let reason = refusedHosts[FetchRequest.host(of: url)] {
                refused[url] = "cannot subscribe to \(url): \(reason)"
            } else if adminsOnly.contains(url) {
                refused[url] = "cannot subscribe to \(url): it is fetched from a non-public address (refused: \(rule))"
            }
        }
        return refused
    }

    /// What a regular account may hold, as the configuration last said.
    public var quotas: Quotas { quotaSettings.withLock { $0 } }

    /// Subscribes `account` to `feeds`, up to its `max-subscriptions` (docs/SECURITY.md, "Quotas").
    func subscribe(_ feeds: [FeedStore.NewFeed], for account: AccountIdentity) async throws(AggregatorError) -> FeedStore.Subscribed {
        let limit = try await isAdmin(account) ? nil : quotaSettings.withLock { $0.subscriptions }
        return try await write(for: account.id) { try await $0.subscribe(feeds, account: account.id, maximumSubscriptions: limit) }
    }

    /// Why a subscription past the quota is refused.
    func quotaRefusal() -> String {
        "max-subscriptions = \(quotaSettings.withLock { $0.subscriptions ?? 0 }) reached: "
            + "an account may follow at most that many feeds (ask an admin)"
    }

    /// How long one subscription or import may spend looking names up.
    static let lookupTime: Duration = .seconds(30)

    /// The rule that keeps `account`'s fetches from non-public addresses, worded as refusals name it
    /// (`private-networks = none` for everyone, `admins` for a regular account); nil when none does.
    private func stricterAddressRule(for account: AccountIdentity) async throws(AggregatorError) -> String? {
        let policy = pipeline.fetcher.addressPolicy
        if policy.denyPrivateNetworks { return policy.reason }
        return try await addressRefusal(for: account)
    }

    /// The hosts `policy` refuses, with the refusal of the first address refused; looked up 16 at a
    /// time, none started after `lookupTime` (the rest are let through as names that did not resolve:
    /// their fetches check every address).
    private static func refusedHosts(_ hosts: Set<String>, policy: AddressPolicy) async -> [String: String] {
        var refused: [String: String] = [:]
        var waiting = hosts.makeIterator()
        let deadline = ContinuousClock.now + lookupTime
        await withTaskGroup(of: (String, String?).self) { group in
            func startNext() {
                guard ContinuousClock.now < deadline, let host = waiting.next() else { return }
                group.addTask {
                    let addresses = await HostResolver.addresses(of: host) ?? []
                    return (host, addresses.lazy.compactMap { policy.refusal(forAddress: $0) }.first)
                }
            }
            for _ in 0..<16 { startNext() }
            for await (host, refusal) in group {
                if let refusal { refused[host] = refusal }
                startNext()
            }
        }
        return refused
    }
}
