import FeedStore
import Foundation

/// One enclosure of an entry, as the reader APIs name it: `id` is the entry's id × 1000 plus the
/// enclosure's position in the entry (the ids Miniflux clients are given in entries' `enclosures`).
public struct EnclosureItem: Sendable, Equatable {
    public var entryID: EntryID
    public var index: Int
    /// With the asking account's `mediaProgression`.
    public var enclosure: ArticleEnclosure

    public init(entryID: EntryID, index: Int, enclosure: ArticleEnclosure) {
        (self.entryID, self.index, self.enclosure) = (entryID, index, enclosure)
    }

    public var id: Int64 { entryID.rawValue * Self.idsPerEntry + Int64(index) }
    public static let idsPerEntry: Int64 = 1000
}

extension AggregatorService {
    // MARK: - Enclosures and where each account stopped in them

    /// The enclosure with this id, with where `account` stopped in it.
    /// - Throws: not found when there is no such entry or the entry has no such enclosure.
    public func enclosure(id: Int64, for account: AccountIdentity) async throws(AggregatorError) -> EnclosureItem {
        let (entryID, index) = (EntryID(id / EnclosureItem.idsPerEntry), Int(id % EnclosureItem.idsPerEntry))
        guard id > 0, let enclosures = try? await self.entry(id: entryID, for: account).article.enclosures,
              index < enclosures.count else {
            throw .notFound("no enclosure with id \(id)")
        }
        return EnclosureItem(entryID: entryID, index: index, enclosure: enclosures[index])
    }

    /// Records where `account` stopped in an enclosure (seconds from its start; 0 forgets it).
    public func setMediaProgression(_ seconds: Int64, enclosureID: Int64, for account: AccountIdentity)
        async throws(AggregatorError) {
        guard seconds >= 0 else { throw .invalidArgument("media_progression must be a number of seconds, not negative") }
        let item = try await enclosure(id: enclosureID, for: account)
        guard try await write(for: account.id, { try await $0.setMediaProgression(seconds, account: account.id, entryID: item.entryID,
                                                                  index: item.index) }) else {
            throw .notFound("no enclosure with id \(enclosureID)")
        }
    }
}
