import Credentials
import FeedFetcher
import FeedParser
import FeedStore
import Foundation

/// Finds feeds' icons (docs/ARCHITECTURE.md) between rounds, never during one: where its icon was found last
/// time (one request a fortnight once found), else the image the feed's document names, else the
/// icons its site's home page links to, else the site's `/favicon.ico`. The first that is an image
/// of an allowed type and size wins. Each feed is looked at again after `recheckInterval`; a feed
/// whose site has no icon keeps the one it had.
struct IconFinder: Sendable {
    static let recheckInterval: TimeInterval = 14 * 86_400
    /// Feeds read from the store at a time; a pass goes on until none is due.
    static let batchSize = 200
    /// A home page is read up to this size for its `<link rel="icon">`.
    static let maximumPageBytes = 2 << 20

    let store: FeedStore
    let fetcher: FeedFetcher
    let logger: Logger
    let limits: FetchLimits
    /// Added to the fetches for a feed no admin follows (`RefreshPipeline.regularAccountsRule`).
    var regularAccountsRule: String?

    /// Looks for the icons of every feed due for it, four at a time and one per host. - Returns: how many got one.
    @discardableResult
    func run(now: Date = Date()) async -> Int {
        var found = 0, looked = 0
        var seen: Set<Int64> = []  // a feed whose result could not be stored stays due: not twice a pass
        while !Task.isCancelled {
            var due: [IconCandidate]
            do {
                due = try await store.feedsNeedingIcons(checkedBefore: now.addingTimeInterval(-Self.recheckInterval),
                                                         limit: Self.batchSize)
            } catch {
                logger.warning("Cannot read the feeds whose icons are due", ["error": error.description])
                break
            }
            due.removeAll { !seen.insert($0.feedID).inserted }
            guard !due.isEmpty else { break }
            await withTaskGroup(of: Bool.self) { group in
                for (index, feed) in due.enumerated() {
                    if index >= 4, await group.next() == true { found += 1 }
                    group.addTask { await look(for: feed, now: now) }
                }
                for await got in group where got { found += 1 }
            }
            looked += due.count
        }
        if looked > 0 { logger.debug("Looked for feed icons", ["feeds": looked, "found": found]) }
        return found
    }

    /// Looks for the icon of one feed (just added) now, when it is due for one.
    func lookNow(feedID: FeedID, now: Date = Date()) async {
        guard let feed = try? await store.feedsNeedingIcons(checkedBefore: now.addingTimeInterval(-Self.recheckInterval),
                                                            limit: 1, only: feedID.rawValue).first else { return }
        _ = await look(for: feed, now: now)
    }

    /// Finds and records one feed's icon. - Returns: whether one was found.
    private func look(for feed: IconCandidate, now: Date) async -> Bool {
        let image = await find(feed)
        do {
            // Marked looked-at as of the pass's start: a feed is never taken twice in one pass.
            try await store.setIcon(feedID: feed.feedID,
                                    image: image.map { ($0.data, $0.mimeType, SecretToken.hexDigest($0.data), $0.url) },
                                    nonPublic: image?.nonPublic ?? false, now: now)
        } catch {
            logger.warning("Cannot store a feed's icon", ["feed_id": feed.feedID, "error": error.description])
        }
        return image != nil
    }

    func find(_ feed: IconCandidate) async -> (data: Data, mimeType: String, url: String, nonPublic: Bool)? {
        let refusal = feed.hasAdminFollower ? nil : regularAccountsRule
        if let known = feed.iconURL, let image = await image(at: known, refusal) { return image }
        if let imageURL = feed.imageURL, imageURL != feed.iconURL, let image = await image(at: imageURL, refusal) { return image }
        let site = feed.siteURL.flatMap { Self.isWeb($0) ? $0 : nil } ?? feed.feedURL
        var tried: Set<String> = Set([feed.iconURL, feed.imageURL].compactMap { $0 })
        if let page = try? await fetch(site, maximumBytes: Self.maximumPageBytes, refusal) {
            for link in FeedDiscovery.iconLinks(in: page.body, pageURL: page.finalURL).prefix(4) where tried.insert(link).inserted {
                if let image = await image(at: link, refusal) { return image }
            }
        }
        guard let root = Self.root(of: site), tried.insert(root + "/favicon.ico").inserted else { return nil }
        return await image(at: root + "/favicon.ico", refusal)
    }

    private func image(at url: String, _ refusal: String?) async -> (data: Data, mimeType: String, url: String, nonPublic: Bool)? {
        guard Self.isWeb(url), let response = try? await fetch(url, maximumBytes: IconImage.maximumBytes, refusal),
              let type = IconImage.mimeType(of: response.body) else { return nil }
        return (response.body, type, url, response.reachedNonPublicAddress)
    }

    /// A plain GET under the feeds' limits and the address rule (the fetcher's, and `refusal` for a
    /// feed only regular accounts follow), one at a time per host.
    private func fetch(_ url: String, maximumBytes: Int, _ refusal: String?) async throws(FetchError) -> FetchResponse {
        var limits = self.limits
        limits.maximumBodyBytes = min(limits.maximumBodyBytes, maximumBytes)
        return try await fetcher.fetch(FetchRequest(url: url, limits: limits, perHostLimit: 1, refusingPrivateNetworks: refusal))
    }

    static func isWeb(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// `scheme://host[:port]` of an http(s) URL.
    static func root(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
