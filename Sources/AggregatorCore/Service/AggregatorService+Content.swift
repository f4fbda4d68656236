import FeedFetcher
import FeedParser
import FeedStore
import Foundation

extension AggregatorService {
    // MARK: - Full article content (docs/ARCHITECTURE.md)

    /// The main text of entry `id`'s page, as `account` asks for it: extracted once per entry (a page
    /// another account fetched is not fetched again) with our readability algorithm, sanitized. With
    /// `update`, `account` sees it instead of the feed's content from now on; other accounts do not.
    /// When the account gave the entry's feed scraper rules, they choose the article instead: that
    /// extraction is the account's alone (its own content of the entry, with `update`), never kept
    /// for others.
    public func fetchContent(entryID id: EntryID, update: Bool, for account: AccountIdentity) async throws(AggregatorError)
        -> String {
        let entry = try await self.entry(id: id, for: account)  // another account's: not found
        var feed: FeedSummary?
        if let feedID = entry.article.feedID { feed = try await self.feed(.id(feedID), for: account) }
        // A private copy's page is fetched as its feed is (docs/ARCHITECTURE.md), when it is on the feed's own
        // host: its cookie and password are never sent anywhere else. Its entries are its owner's alone.
        var credentials: FetchCredentials?
        if let feed, feed.isPrivateCopy, let url = entry.article.url {
            let settings = try await read { try $0.fetchSettings(ofSubscription: feed.id, account: account.id) }
            credentials = ArticlePages.credentials(settings?.credentials, page: url, feed: feed.url)
        }
        if let rules = feed?.scraperRules, !rules.isEmpty {
            let content = try await extractedPage(at: try Self.pageURL(of: entry.article), rules: rules,
                                                  credentials: credentials, for: account).html
            if update {
                guard try await write(for: account.id, { try await $0.editEntry(id: id, title: nil, content: content, account: account.id) }) else {
                    throw .notFound("no entry with id \(id)")
                }
            }
            return content
        }
        let content: String
        // A page kept from a non-public address is fetched again for an account that may not reach one
        // (where it is refused, or is public now and kept as such).
        if let kept = try await read({ try $0.page(entryID: id) }), !kept.nonPublic || mayBeShownNonPublic(account) {
            content = kept.content
        } else {
            let page = try await extractedPage(at: try Self.pageURL(of: entry.article), credentials: credentials, for: account)
            content = page.html
            guard try await write({ try await $0.keepPage(entryID: id, content: content, nonPublic: page.nonPublic) }) else {
                throw .notFound("no entry with id \(id)")
            }
        }
        if update { try await write(for: account.id) { try await $0.showPage(entryID: id, account: account.id) } }
        return content
    }

    /// The entry's web page, if it links to one over HTTP(S).
    private static func pageURL(of article: Article) throws(AggregatorError) -> String {
        guard let url = article.url, ["http", "https"].contains(URLComponents(string: url)?.scheme?.lowercased() ?? "") else {
            throw .failed("entry \(article.id) links to no web page to fetch")
        }
        return url
    }

    /// Fetches the page at `url` under the feeds' limits and the account's address rule, and extracts
    /// its article (the elements `rules` select, when given).
    private func extractedPage(at url: String, rules: String? = nil, credentials: FetchCredentials? = nil,
                               for account: AccountIdentity) async throws(AggregatorError) -> (html: String, nonPublic: Bool) {
        var selector: ContentSelector?
        if let rules {
            do {
                selector = try ContentSelector(rules)
            } catch {
                throw .invalidArgument("scraper rules: \(error.description)")
            }
        }
        let pages = ArticlePages(fetcher: pipeline.fetcher, limits: pipeline.limits)
        return try await pages.article(at: url, selector: selector, refusal: try await addressRefusal(for: account),
                                       credentials: credentials)
    }
}
