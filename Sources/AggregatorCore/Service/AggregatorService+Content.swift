import FeedFetcher
import FeedParser
import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - Full article content (DESIGN §15)

    /// The main text of entry `id`'s page, as `account` asks for it: extracted once per entry (a page
    /// another account fetched is not fetched again) with our readability algorithm, sanitized. With
    /// `update`, `account` sees it instead of the feed's content from now on; other accounts do not.
    public func fetchContent(entryID id: Int64, update: Bool, for account: AccountIdentity) async throws(AggregatorError)
        -> String {
        let entry = try await self.entry(id: id, for: account)  // another account's: not found
        let content: String
        if let kept = try await read({ try $0.page(entryID: id) }) {
            content = kept
        } else {
            guard let url = entry.article.url, ["http", "https"].contains(URLComponents(string: url)?.scheme?.lowercased() ?? "") else {
                throw .failed("entry \(id) links to no web page to fetch")
            }
            content = try await extractedArticle(at: url, for: account)
            guard try await write({ try await $0.keepPage(entryID: id, content: content) }) else {
                throw .notFound("no entry with id \(id)")
            }
        }
        if update { try await write { try await $0.showPage(entryID: id, account: account.id) } }
        return content
    }

    /// Fetches the page at `url` under the feeds' limits and the account's address rule, and extracts
    /// its article.
    private func extractedArticle(at url: String, for account: AccountIdentity) async throws(AggregatorError) -> String {
        let refusal = try await addressRefusal(for: account)
        let response: FetchResponse
        do {
            response = try await pipeline.fetcher.fetch(FetchRequest(url: url, limits: pipeline.limits, refusingPrivateNetworks: refusal))
        } catch {
            throw .failed("cannot fetch \(url): \(error.description)")
        }
        // Pages say their encoding in a header or a <meta>; most are UTF-8, and the extractor reads text.
        let html = String(decoding: response.body, as: UTF8.self)
        guard let article = ArticleExtractor.extract(html: html, pageURL: response.finalURL) else {
            throw .failed("no article found on \(response.finalURL)")
        }
        return article.html
    }
}
