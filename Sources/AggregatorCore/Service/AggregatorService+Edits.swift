import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - An account's own edits of entries (docs/ARCHITECTURE.md)

    /// The longest title and content an edit keeps.
    static let maximumEditedTitle = 4096
    static let maximumEditedContent = 4 << 20

    /// Gives entry `id` `account`'s own title and/or content (nil leaves that one as it was); others
    /// still see what the feed wrote. The content is sanitized whenever it is shown, as any entry's.
    /// - Returns: the entry as `account` now sees it.
    public func editEntry(id: EntryID, title: String?, content: String?, for account: AccountIdentity)
        async throws(AggregatorError) -> ListedEntry {
        guard title != nil || content != nil else { throw .invalidArgument("give a title and/or a content") }
        if let title {
            guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .invalidArgument("the entry title cannot be empty")
            }
            guard title.utf8.count <= Self.maximumEditedTitle else {
                throw .invalidArgument("the entry title can be at most \(Self.maximumEditedTitle) bytes")
            }
        }
        guard (content?.utf8.count ?? 0) <= Self.maximumEditedContent else {
            throw .invalidArgument("the entry content can be at most \(Self.maximumEditedContent >> 20) MiB")
        }
        _ = try await entry(id: id, for: account)  // not found: 404, nothing written
        guard try await write(for: account.id, { try await $0.editEntry(id: id, title: title, content: content, account: account.id) }) else {
            throw .notFound("no entry with id \(id)")
        }
        return try await entry(id: id, for: account)
    }

    /// `entries` as `account` sees them: its edits, the pages it asked for, and where it stopped in their
    /// enclosures (one read).
    func seen(by account: AccountIdentity, _ entries: [ListedEntry]) async throws(AggregatorError) -> [ListedEntry] {
        guard !entries.isEmpty else { return entries }
        let ids = entries.map(\.article.id)
        let withEnclosures = entries.filter { !$0.article.enclosures.isEmpty }.map(\.article.id)
        let nonPublic = mayBeShownNonPublic(account)
        let (edits, positions, pages) = try await read { reader in
            (try reader.entryEdits(account: account.id, entryIDs: ids),
             try reader.mediaProgressions(account: account.id, entryIDs: withEnclosures),
             try reader.pages(account: account.id, entryIDs: ids, nonPublic: nonPublic))
        }
        guard !edits.isEmpty || !positions.isEmpty || !pages.isEmpty else { return entries }
        return entries.map { entry in
            var entry = entry
            // The page the account asked for replaces the feed's content; its own edit wins over both.
            if let page = pages[entry.article.id] { entry.article.content = page }
            entry.article = Self.edited(entry.article, edits[entry.article.id])
            for index in entry.article.enclosures.indices {
                entry.article.enclosures[index].mediaProgression = positions[entry.article.id]?[index] ?? 0
            }
            return entry
        }
    }

    /// `articles` with `account`'s own titles and contents, and the pages it asked for.
    func seen(by account: AccountIdentity, _ articles: [Article]) async throws(AggregatorError) -> [Article] {
        guard !articles.isEmpty else { return articles }
        let ids = articles.map(\.id)
        let nonPublic = mayBeShownNonPublic(account)
        let (edits, pages) = try await read { reader in
            (try reader.entryEdits(account: account.id, entryIDs: ids), try reader.pages(account: account.id, entryIDs: ids, nonPublic: nonPublic))
        }
        guard !edits.isEmpty || !pages.isEmpty else { return articles }
        return articles.map { article in
            var article = article
            if let page = pages[article.id] { article.content = page }
            return Self.edited(article, edits[article.id])
        }
    }

    private static func edited(_ article: Article, _ edit: (title: String?, content: String?)?) -> Article {
        guard let edit else { return article }
        var article = article
        if let title = edit.title { article.title = title }
        if let content = edit.content { article.content = content }
        return article
    }
}
