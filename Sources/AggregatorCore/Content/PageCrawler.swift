import FeedFetcher
import FeedStore
import Foundation
import Synchronization

/// The crawler (docs/ARCHITECTURE.md): after rounds, never holding one up, extracts the article of every new entry
/// of the feeds whose followers turned `crawler` on, and shows it to them instead of the feed's
/// content. A page is fetched once however many accounts want it (the kept page is the entry's), four
/// at a time and one at a time per host; a page that cannot be had is not tried again this daemon's life.
final class PageCrawler: Sendable {
    /// Entries first seen longer ago than this are left alone: the crawler is for what arrives.
    static let window: TimeInterval = 2 * 86_400
    static let batchSize = 100

    private let store: FeedStore
    /// Its fetcher, and the limits and address rule in force (a reload may change them).
    private let pipeline: RefreshPipeline
    private let logger: Logger
    /// Pages that could not be fetched or held no article.
    private let failed = Mutex<Set<EntryID>>([])

    init(store: FeedStore, pipeline: RefreshPipeline, logger: Logger) {
        self.store = store
        self.pipeline = pipeline
        self.logger = logger
    }

    /// Crawls every page due. - Returns: how many entries got their page shown.
    @discardableResult
    func run(now: Date = Date()) async -> Int {
        var shown = 0
        while !Task.isCancelled {
            let due: [CrawlCandidate]
            do {
                due = try await store.pagesToCrawl(since: now.addingTimeInterval(-Self.window), limit: Self.batchSize,
                                                   excluding: failed.withLock { $0 })
            } catch {
                logger.warning("Cannot read the pages to crawl", ["error": error.description])
                break
            }
            guard !due.isEmpty else { break }
            let pages = ArticlePages(fetcher: pipeline.fetcher, limits: pipeline.limits)
            let rule = pipeline.regularAccountsRule
            await withTaskGroup(of: Bool.self) { group in
                for (index, candidate) in due.enumerated() {
                    if index >= 4, await group.next() == true { shown += 1 }
                    group.addTask { await self.crawl(candidate, pages: pages, rule: rule) }
                }
                for await done in group where done { shown += 1 }
            }
        }
        if shown > 0 { logger.debug("Crawled pages", ["entries": shown]) }
        return shown
    }

    /// Fetches and keeps one entry's page (unless kept already) and shows it to the accounts that want it.
    private func crawl(_ candidate: CrawlCandidate, pages: ArticlePages, rule: String?) async -> Bool {
        do {
            var accounts = candidate.accounts
            if !candidate.isKept {
                let credentials = ArticlePages.credentials(candidate.settings?.credentials, page: candidate.pageURL,
                                                           feed: candidate.feedURL)
                let page = try await pages.article(at: candidate.pageURL, refusal: candidate.isForAdminsOnly ? nil : rule,
                                                   credentials: credentials, perHostLimit: 1)
                guard try await store.keepPage(entryID: candidate.entryID, content: page.html, nonPublic: page.nonPublic)
                else { return false }
            } else if candidate.isKeptNonPublic, rule != nil {
                // Kept from a non-public address for an admin: shown only to the admins among them (docs/SECURITY.md).
                accounts = candidate.admins
                guard !accounts.isEmpty else { return false }
            }
            try await store.showPage(entryID: candidate.entryID, accounts: accounts)
            return true
        } catch {
            failed.withLock { _ = $0.insert(candidate.entryID) }
            logger.debug("Cannot crawl a page", ["entry_id": candidate.entryID, "url": candidate.pageURL,
                                                 "error": String(describing: error)])
            return false
        }
    }
}
