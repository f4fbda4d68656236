import Foundation
@testable import FeedStore
import Testing

/// An account's filter rules for a feed (docs/ARCHITECTURE.md) hide entries from that account only: stored ones
/// when the rules are set, arriving ones as they arrive; a change takes back what the old rules hid;
/// the kept counts stay the counted.
@Suite struct FilterRuleTests {
    /// Rules as plain words: the store does not know the pattern syntax (AggregatorCore's matcher does).
    struct WordRules: EntryRules {
        func hides(_ entry: RuledEntry, by rules: RuleSet) -> Bool {
            let fields = [entry.title, entry.url, entry.author].compactMap { $0 }
            if let blocklist = rules.blocklist, !blocklist.isEmpty, fields.contains(where: { $0.contains(blocklist) }) { return true }
            if let keeplist = rules.keeplist, !keeplist.isEmpty { return !fields.contains { $0.contains(keeplist) } }
            return false
        }
    }

    @Test func rulesHideForTheirAccountOnly() async throws {
        let fixture = try StoreFixture(entryRules: WordRules())
        let store = fixture.store
        let reader = try fixture.reader()
        let url = "https://a.example/feed"
        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        try await store.addFeeds([.init(url: url, title: "A")], account: 1)
        try await store.addFeeds([.init(url: url, title: "A")], account: bea)
        let feed = try #require(try await store.feedID(url: url, account: 1))
        let beasFeed = try #require(try await store.feedID(url: url, account: bea))
        func story(_ title: String, _ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: title, published: Double(n) * day) }
        func titles(_ account: AccountID) throws -> [String] {
            try reader.articles(ArticleFilter(account: account), sort: .oldest).articles.compactMap(\.title)
        }
        try await store.ingest([IncomingFeed(feedID: FeedID(feed.rawValue), entries: [story("News", 1), story("Sponsored: soap", 2)])], now: now)
        let ids = try reader.articles(ArticleFilter(account: bea), sort: .oldest).articles.map(\.id)
        try await store.mark(ids: [ids[1]], account: bea, read: true)

        #expect(try await store.judgedRules(subscription: beasFeed, account: bea, blocklist: "Sponsored", keeplist: nil) == 1)
        #expect(try titles(bea) == ["News"])
        #expect(try titles(1) == ["News", "Sponsored: soap"], "the other account's view is its own")
        try await store.ingest([IncomingFeed(feedID: FeedID(feed.rawValue), entries: [story("Sponsored: car", 3), story("More News", 4)])], now: now)
        #expect(try titles(bea) == ["News", "More News"], "an arriving entry is judged as it arrives")
        #expect(try reader.accountCounts(bea) == EntryCounts(entries: 2, unread: 2))
        #expect(try reader.accountCounts(1) == EntryCounts(entries: 4, unread: 4))

        // Keep only what says "News": the blocklist's hidden ones come back first, then the keeplist judges.
        #expect(try await store.judgedRules(subscription: beasFeed, account: bea, blocklist: "", keeplist: "News") == 2)
        #expect(try titles(bea) == ["News", "More News"])
        #expect(try await store.judgedRules(subscription: beasFeed, account: bea, blocklist: nil, keeplist: "") == 0)
        #expect(try titles(bea) == ["News", "Sponsored: soap", "Sponsored: car", "More News"])
        #expect(try reader.article(id: ids[1], account: bea)?.isRead == false, "a rule's hiding took the read mark")
        let kept = try [reader.accountCounts(bea), reader.accountCounts(1)]
        try await store.recountCounters()
        #expect(try [reader.accountCounts(bea), reader.accountCounts(1)] == kept, "kept = counted")
    }

    /// Rules that must not run: the writer applies verdicts made before it (docs/SECURITY.md).
    struct NoRegexInTheWriter: EntryRules {
        func hides(_ entry: RuledEntry, by rules: RuleSet) -> Bool {
            Issue.record("a rule judged \(entry.title ?? "") inside the writer")
            return false
        }
    }

    /// A document judged before it reaches the writer (`IncomingFeed.ruleVerdicts`, as the daemon's
    /// rounds make them): its new entries are hidden as the verdicts say, and no rule runs in the ingest.
    @Test func verdictsMadeBeforeTheWriterAreApplied() async throws {
        let fixture = try StoreFixture(entryRules: NoRegexInTheWriter())
        let store = fixture.store
        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        let url = "https://a.example/feed"
        try await store.addFeeds([.init(url: url)], account: 1)
        try await store.addFeeds([.init(url: url)], account: bea)
        let beasFeed = try #require(try await store.feedID(url: url, account: bea))
        _ = try await store.saveRules(subscription: beasFeed, account: bea, blocklist: "Sponsored", keeplist: nil)
        #expect(try await store.rulesByFeed().values.flatMap { $0 }.map(\.account) == [bea])
        let feed = try #require(try fixture.reader().database.integer("SELECT id FROM feeds WHERE url = ?1", [.text(url)]))
        var document = IncomingFeed(feedID: FeedID(feed), entries: [entry("https://news.example/1", title: "News"),
                                                            entry("https://news.example/2", title: "Sponsored: soap")])
        document.ruleVerdicts = [(account: bea, hidden: [1])]
        try await store.ingest([document], now: now)
        let reader = try fixture.reader()
        #expect(try reader.articles(ArticleFilter(account: bea)).articles.map(\.title) == ["News"])
        #expect(try reader.articles(ArticleFilter(account: 1), sort: .oldest).articles.map(\.title) == ["News", "Sponsored: soap"])
    }
}

extension FeedStore {
    /// New rules for the subscription, its feed's stored entries judged again as the service does
    /// (`AggregatorService+Rules`: read on a reader, judged outside the writer, verdicts applied).
    /// - Returns: how many entries the rules hide now.
    func judgedRules(subscription: SubscriptionID, account: AccountID, blocklist: String?, keeplist: String?) async throws -> Int {
        let feed = try saveRules(subscription: subscription, account: account, blocklist: blocklist, keeplist: keeplist)
        let reader = try StoreReader(path: path)
        guard let matcher = entryRules, let rules = try reader.ruleSets(account: account, subscriptions: [subscription]).first?.rules,
              !rules.isEmpty else {
            try forgetRuleHides(feed: feed, account: account)
            return 0
        }
        var verdicts = RuleVerdicts(feed: feed)
        for (id, entry) in try reader.ruledEntries(feed: feed, after: 0, limit: 1_000_000) {
            verdicts.judged.append(id)
            if matcher.hides(entry, by: rules) { verdicts.hidden.append(id) }
        }
        return try apply(verdicts, account: account)
    }
}
