import FeedFetcher
import FeedParser
import Foundation

/// Fetches an entry's web page and extracts its article (docs/ARCHITECTURE.md), under the feeds' limits and
/// address rule: for `fetch-content` and for the crawler.
struct ArticlePages: Sendable {
    let fetcher: FeedFetcher
    let limits: FetchLimits

    /// The article at `url`: the elements `selector` picks when given, else what our readability
    /// algorithm finds; and whether the fetch reached a non-public address. `refusal` names the address
    /// rule a regular account's request obeys; `credentials` are a private copy's, for a page on its
    /// feed's host.
    func article(at url: String, selector: ContentSelector? = nil, refusal: String?, credentials: FetchCredentials? = nil,
                 perHostLimit: Int? = nil) async throws(AggregatorError) -> (html: String, nonPublic: Bool) {
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(FetchRequest(url: url, limits: limits, perHostLimit: perHostLimit,
                                                            refusingPrivateNetworks: refusal, credentials: credentials))
        } catch {
            throw .failed("cannot fetch \(url): \(error.description)")
        }
        // Pages say their encoding in a header or a <meta>; most are UTF-8, and the extractor reads text.
        let html = String(decoding: response.body, as: UTF8.self)
        guard let article = ArticleExtractor.extract(html: html, pageURL: response.finalURL, selector: selector) else {
            throw .failed(selector.map { _ in "the scraper rules select nothing on \(response.finalURL)" }
                ?? "no article found on \(response.finalURL)")
        }
        return (article.html, response.reachedNonPublicAddress)
    }

    /// A private copy's credentials for a page, when the page is on the feed's own host: its cookie and
    /// password are never sent anywhere else.
    static func credentials(_ credentials: FetchCredentials?, page: String, feed: String) -> FetchCredentials? {
        FetchRequest.host(of: page) == FetchRequest.host(of: feed) ? credentials : nil
    }
}
