import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - An account's own edits of entries (DESIGN §12)

    /// The longest title and content an edit keeps.
    static let maximumEditedTitle = 4096
    static let maximumEditedContent = 4 << 20

    /// Gives entry `id` `account`'s own title and/or content (nil leaves that one as it was); others
    /// still see what the feed wrote. The content is sanitized whenever it is shown, as any entry's.
    /// - Returns: the entry as `account` now sees it.
    public func editEntry(id: Int64, title: String?, content: String?, for account: AccountIdentity)
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
        guard try await write({ try await $0.editEntry(id: id, title: title, content: content, account: account.id) }) else {
            throw .notFound("no entry with id \(id)")
        }
        return try await entry(id: id, for: account)
    }

    /// `entries` as `account` sees them: its edits, and where it stopped in their enclosures.
    func seen(by account: AccountIdentity, _ entries: [ListedEntry]) async throws(AggregatorError) -> [ListedEntry] {
        let edited = try await seen(by: account, entries.map(\.article))
        let withEdits = zip(entries, edited).map { entry, article in
            var entry = entry
            entry.article = article
            return entry
        }
        return try await withMediaProgressions(withEdits, for: account)
    }

    /// `articles` with `account`'s own titles and contents.
    func seen(by account: AccountIdentity, _ articles: [Article]) async throws(AggregatorError) -> [Article] {
        guard !articles.isEmpty else { return articles }
        let ids = articles.map(\.id)
        let edits = try await read { try $0.entryEdits(account: account.id, entryIDs: ids) }
        guard !edits.isEmpty else { return articles }
        return articles.map { article in
            guard let edit = edits[article.id] else { return article }
            var article = article
            if let title = edit.title { article.title = title }
            if let content = edit.content { article.content = content }
            return article
        }
    }
}
