import FeedParser
import FeedStore
import Foundation

/// Subscribes a new, empty database to the feeds of the seed OPML (`--seed-opml`).
public enum SeedImport {
    /// Imports `opmlPath` when the store has no feed yet; does nothing otherwise.
    /// - Returns: how many feeds were added (0 when the store already had feeds or there is no seed).
    /// - Throws: when the seed cannot be read or is not OPML, or the store fails.
    @discardableResult
    public static func runIfEmpty(store: FeedStore, opmlPath: String?, logger: Logger) async throws -> Int {
        guard let opmlPath, try await store.feedCount() == 0 else { return 0 }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: opmlPath))
        } catch {
            throw SeedImportError(path: opmlPath, reason: "cannot read the file")
        }
        let outlines: [OPMLFeed]
        do {
            outlines = try OPMLReader.feeds(in: data)
        } catch {
            throw SeedImportError(path: opmlPath, reason: error.description)
        }
        // The first admin's, as everything the control socket does without `--user`.
        guard let admin = try StoreReader(path: store.path).accounts().first(where: \.isAdmin) else {
            throw SeedImportError(path: opmlPath, reason: "the database has no admin account")
        }
        let added = try await store.addFeeds(outlines.map(\.newFeed), account: admin.id)
        logger.info("Imported seed feeds", ["file": opmlPath, "feeds": added])
        return added
    }
}

/// The seed list could not be used.
public struct SeedImportError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "seed OPML \(path): \(reason)" }
}

extension OPMLFeed {
    /// The subscription as the store takes it (seed import and `feeds.import` alike).
    var newFeed: FeedStore.NewFeed {
        FeedStore.NewFeed(url: url, title: title, siteURL: siteURL, category: category)
    }
}
