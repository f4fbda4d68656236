import Foundation
@testable import FeedStore
import Testing

/// Two accounts on one store (docs/ARCHITECTURE.md): a feed both follow is one feed, fetched and stored once;
/// each has its own subscription (title, category, id), marks, counts and categories; neither reaches
/// the other's ids.
@Suite struct AccountViewTests {
    private let ann: AccountID = 1

    /// A store where account 1 (Ann) follows a and b, and Bea follows a and c; a and b cross-post story 2.
    private func twoReaders() async throws -> (fixture: StoreFixture, bea: AccountID, feeds: [String: Int64]) {
        let fixture = try StoreFixture()
        let store = fixture.store
        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        try await store.addFeeds([.init(url: "https://a.example/feed", title: "A", category: "Tech"),
                                  .init(url: "https://b.example/feed", title: "B", category: "Tech")], account: ann)
        try await store.addFeeds([.init(url: "https://a.example/feed", title: "Bea's A", category: "Tech"),
                                  .init(url: "https://c.example/feed", title: "C")], account: bea)
        var feeds: [String: Int64] = [:]
        try fixture.reader().database.statement("SELECT url, id FROM feeds").query { feeds[$0.text(at: 0)!] = $0.int64(at: 1) }
        func story(_ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: "Story \(n)", published: Double(n) * day) }
        try await store.ingest([
            IncomingFeed(feedID: FeedID(feeds["https://a.example/feed"]!), entries: [story(1), story(2)]),
            IncomingFeed(feedID: FeedID(feeds["https://b.example/feed"]!), entries: [story(2), story(3)]),
            IncomingFeed(feedID: FeedID(feeds["https://c.example/feed"]!), entries: [story(4)]),
        ], now: now)
        return (fixture, bea, feeds)
    }

    private func titles(_ reader: StoreReader, _ filter: ArticleFilter) throws -> [String] {
        try reader.articles(filter, sort: .oldest).articles.compactMap(\.title)
    }

    @Test func aSharedFeedIsOneFeedWithASubscriptionPerAccount() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let reader = try fixture.reader()
        #expect(try reader.database.integer("SELECT count(*) FROM feeds") == 3, "a.example is stored once")
        #expect(try reader.database.integer("SELECT count(*) FROM entries") == 4, "every story once")
        #expect(try titles(reader, ArticleFilter(account: ann)) == ["Story 1", "Story 2", "Story 3"])
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 2", "Story 4"])
        let beas = try reader.feeds(account: bea)
        #expect(beas.map(\.title) == ["C", "Bea's A"], "her titles, hers uncategorized first")
        #expect(beas.map(\.category) == [nil, "Tech"])
        #expect(try reader.categories(account: bea).map(\.name) == ["All", "Tech"], "a new account gets All")
        #expect(try reader.categories(account: ann).map(\.name) == ["Tech"])
        let beasA = try #require(beas.first { $0.url == "https://a.example/feed" })
        let annsA = try #require(try reader.feeds(account: ann).first { $0.url == "https://a.example/feed" })
        #expect(beasA.id != annsA.id, "each account has its own id for the feed")
        #expect(try titles(reader, ArticleFilter(account: bea, feedID: beasA.id)) == ["Story 1", "Story 2"])
        // An article names the reader's own subscription and category.
        let story1 = try #require(try reader.articles(ArticleFilter(account: bea), sort: .oldest).articles.first)
        #expect(story1.feedID == beasA.id && story1.feedTitle == "Bea's A" && story1.category == "Tech")
    }

    @Test func marksAndCountsAreEachAccountsOwn() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let story2 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 2\"")).articles.first?.id)
        #expect(try await store.mark(ids: [story2], account: ann, read: true, starred: true) == 1)
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 3, unread: 2), "the cross-post counts once")
        #expect(try reader.accountCounts(bea) == EntryCounts(entries: 3, unread: 3), "Ann's marks are not Bea's")
        #expect(try titles(reader, ArticleFilter(account: bea, unreadOnly: true)) == ["Story 1", "Story 2", "Story 4"])
        #expect(try titles(reader, ArticleFilter(account: bea, starredOnly: true)).isEmpty)
        #expect(try reader.article(id: story2, account: bea)?.isRead == false)
        #expect(try reader.article(id: story2, account: ann)?.isRead == true)
        let annsFeeds = try reader.feeds(account: ann).map { [$0.unread, $0.total] }
        #expect(annsFeeds == [[1, 2], [1, 2]], "read in both of Ann's feeds carrying it")
        #expect(try reader.categories(account: ann).map { [$0.unread, $0.total] } == [[2, 3]])
        var listing = EntryListing(account: bea)
        listing.read = false
        #expect(try reader.entries(listing).total == 3)
        #expect(try reader.entryIDs(listing).count == 3)
        // Bea reads everything in her Tech category: only her marks move.
        #expect(try await store.mark(ArticleFilter(account: bea, category: "Tech"), read: true) == 2)
        #expect(try reader.accountCounts(bea).unread == 1)
        #expect(try reader.accountCounts(ann).unread == 2)
        try await store.recountCounters()
        #expect(try reader.accountCounts(bea).unread == 1 && reader.accountCounts(ann).unread == 2, "kept = counted")
    }

    /// An account following a small part of the store lists its ids from its feeds' sources: the same
    /// ids as its listing, its starred orphan included.
    @Test func aSmallAccountsIdListsMatchItsListings() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        try await store.ingest([IncomingFeed(feedID: FeedID(feeds["https://b.example/feed"]!), entries: (10..<40).map {
            entry("https://news.example/\($0)", title: "Story \($0)", published: Double($0) * day)
        })], now: now)
        let reader = try fixture.reader()
        #expect(try reader.followsASmallPart(bea) && !reader.followsASmallPart(ann))
        let beas = try reader.articles(ArticleFilter(account: bea), sort: .oldest).articles.map(\.id)
        try await store.mark(ids: [beas[0]], account: bea, read: true, starred: true)
        var unread = EntryListing(account: bea)
        (unread.read, unread.order, unread.limit) = (false, .id, .max)
        #expect(try reader.entryIDs(unread) == Array(beas.dropFirst()).sorted())
        var starred = EntryListing(account: bea)
        (starred.starred, starred.order, starred.limit) = (true, .id, .max)
        #expect(try reader.entryIDs(starred) == [beas[0]])
        // Her listings come from her own entries too, in order, filters applied.
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 2", "Story 4"])
        #expect(try titles(reader, ArticleFilter(account: bea, unreadOnly: true)) == ["Story 2", "Story 4"])
        #expect(try reader.articles(ArticleFilter(account: bea), sort: .newest, limit: 2).articles.compactMap(\.title)
                == ["Story 4", "Story 2"])
        var listing = EntryListing(account: bea)
        (listing.order, listing.ascending, listing.limit) = (.publishedAt, false, 2)
        let page = try reader.entries(listing)
        #expect(page.total == 3 && page.entries.map(\.article.title) == ["Story 4", "Story 2"])
        listing.read = false
        #expect(try reader.entries(listing).total == 2)
        // Her share of the store is between 2 and 20 %: her first pages come from a walk of the date
        // index. Below 2 %, from her own entries, sorted; her account-wide mark starts from them too.
        #expect(try reader.entries(listing).entries.map(\.article.title) == ["Story 4", "Story 2"])
        try await store.ingest([IncomingFeed(feedID: FeedID(feeds["https://b.example/feed"]!), entries: (100..<300).map {
            entry("https://news.example/\($0)", title: "Story \($0)", published: Double($0) * day)
        })], now: now)
        #expect(try StoreReader.share(of: bea, in: reader.database) < 0.02)
        #expect(try reader.entries(listing).entries.map(\.article.title) == ["Story 4", "Story 2"])
        #expect(try await store.mark(ArticleFilter(account: bea), read: true) == 2)
        #expect(try reader.accountCounts(bea) == EntryCounts(entries: 3, unread: 0))
        #expect(try reader.accountCounts(ann).unread == 233, "hers only")
        #expect(try await store.mark(ArticleFilter(account: bea), read: false) == 3)
        // Unsubscribed from a, her starred story 1 stays hers.
        let beasA = try #require(try reader.feeds(account: bea).first { $0.url == "https://a.example/feed" }?.id)
        try await store.removeFeed(id: beasA, account: bea)
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 4"])
    }

    /// Flushing the history hides what the account read but did not star, from its listings and
    /// counts only; what counts as read moves to hidden, and the kept counts stay the counted.
    @Test func flushingTheHistoryHidesWhatTheAccountReadButNotStarred() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let ids = try reader.articles(ArticleFilter(account: ann), sort: .oldest).articles.map(\.id)  // stories 1, 2, 3
        try await store.mark(ids: [ids[0], ids[1]], account: ann, read: true)
        try await store.mark(ids: [ids[1]], account: ann, starred: true)
        try await store.mark(ids: [ids[0]], account: bea, read: true)
        #expect(try await store.flushHistory(account: ann) == 1)
        #expect(try titles(reader, ArticleFilter(account: ann)) == ["Story 2", "Story 3"])
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 2, unread: 1))
        #expect(try reader.feeds(account: ann).map { [$0.unread, $0.total] } == [[0, 1], [1, 2]])
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 2", "Story 4"], "Bea's are hers")
        #expect(try reader.article(id: ids[0], account: bea)?.isRead == true)
        #expect(try await store.flushHistory(account: ann) == 0)
        let kept = try reader.feeds(account: ann).map { [$0.unread, $0.total] }
        try await store.recountCounters()
        #expect(try reader.feeds(account: ann).map { [$0.unread, $0.total] } == kept, "kept = counted")
    }

    @Test func anotherAccountsIdsAreNotFoundAndChangeNothing() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let annsB = try #require(try reader.feeds(account: ann).first { $0.url == "https://b.example/feed" })
        let story3 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 3\"")).articles.first?.id)
        let annsTech = try #require(try reader.categories(account: ann).first?.id)
        #expect(try reader.article(id: story3, account: bea) == nil)
        #expect(try await store.mark(ids: [story3], account: bea, read: true, starred: true) == 0)
        #expect(try await store.editEntry(id: story3, title: "x", content: nil, account: bea) == false)
        #expect(try await store.setMediaProgression(5, account: bea, entryID: story3, index: 0) == false)
        #expect(try reader.subscriptionCounts(annsB.id, account: bea) == nil)
        #expect(try reader.feeds(account: bea, ids: [annsB.id]).isEmpty)
        await #expect(throws: StoreError.self) { try await store.removeFeed(id: annsB.id, account: bea) }
        await #expect(throws: StoreError.self) { try await store.updateFeed(id: annsB.id, account: bea, changing { $0.title = "Mine" }) }
        await #expect(throws: StoreError.self) { try await store.setCategoryHidden(id: annsTech, account: bea, true) }
        await #expect(throws: StoreError.self) { try await store.removeCategory(id: annsTech, account: bea) }
        #expect(try titles(reader, ArticleFilter(account: bea, feedID: annsB.id)).isEmpty)
        #expect(try reader.feeds(account: ann).map(\.title) == ["A", "B"], "nothing of Ann's changed")
        #expect(try reader.accountCounts(ann).unread == 3)
    }

    @Test func unsubscribingDropsReadMarksKeepsStarsAndRemovesUnfollowedFeeds() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let beasA = try #require(try reader.feeds(account: bea).first { $0.url == "https://a.example/feed" }?.id)
        let ids = try reader.articles(ArticleFilter(account: bea, feedID: beasA), sort: .oldest).articles.map(\.id)
        try await store.mark(ids: [ids[0]], account: bea, read: true)
        try await store.mark(ids: [ids[1]], account: bea, starred: true)
        try await store.removeFeed(id: beasA, account: bea)
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE id = ?1", [.integer(feeds["https://a.example/feed"]!)]) == 1,
                "Ann still follows it")
        #expect(try reader.database.integer("SELECT count(*) FROM entry_marks WHERE account_id = ?1 AND read = 1", [.account(bea)]) == 0)
        #expect(try titles(reader, ArticleFilter(account: bea, starredOnly: true)) == ["Story 2"], "her star stays")
        // Bea subscribes again: story 1 is unread for her.
        try await store.addFeeds([.init(url: "https://a.example/feed")], account: bea)
        #expect(try titles(reader, ArticleFilter(account: bea, unreadOnly: true)) == ["Story 1", "Story 2", "Story 4"])
        // Nobody follows c once Bea leaves it: the feed and its entries go.
        let beasC = try #require(try reader.feeds(account: bea).first { $0.url == "https://c.example/feed" }?.id)
        try await store.removeFeed(id: beasC, account: bea)
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE url = 'https://c.example/feed'") == 0)
        #expect(try reader.totals(account: ann).entries == 3)
    }

    /// A shared feed's URL is everyone's: one follower's new URL moves that follower alone (docs/ARCHITECTURE.md),
    /// its subscription id and title kept, and leaves the feed to the others.
    @Test func aNewURLMovesOneFollowerAndLeavesTheFeedToTheOthers() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let beasA = try #require(try reader.feeds(account: bea).first { $0.url == "https://a.example/feed" }?.id)
        let annsA = try #require(try reader.feeds(account: ann).first { $0.url == "https://a.example/feed" }?.id)
        try await store.updateFeed(id: beasA, account: bea, changing { $0.url = "https://a2.example/feed" })
        let moved = try #require(try reader.feeds(account: bea).first { $0.id == beasA })
        #expect(moved.url == "https://a2.example/feed" && moved.title == "Bea's A", "her id and title stay")
        #expect(try reader.feeds(account: ann).first { $0.id == annsA }?.url == "https://a.example/feed", "Ann's stays")
        #expect(try titles(reader, ArticleFilter(account: ann, feedID: annsA)) == ["Story 1", "Story 2"])
        #expect(try titles(reader, ArticleFilter(account: bea, feedID: beasA)).isEmpty, "nothing fetched there yet")
        #expect(try await store.feedsToFetch().contains { $0.url == "https://a2.example/feed" && $0.nextCheckAt == nil },
                "due at once")
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE id = ?1",
                                            [.integer(feeds["https://a.example/feed"]!)]) == 1)
        // Hers alone now: its site URL may change.
        try await store.updateFeed(id: beasA, account: bea, changing { $0.siteURL = "https://a2.example/" })
        // To a URL Ann follows: Bea joins that feed, sees its latest document, and a2 (nobody's) goes.
        try await store.updateFeed(id: beasA, account: bea, changing { $0.url = "https://b.example/feed" })
        #expect(try titles(reader, ArticleFilter(account: bea, feedID: beasA)) == ["Story 2", "Story 3"])
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE url = 'https://a2.example/feed'") == 0)
        // The site URL alone of a feed others follow: refused, and nothing changes.
        await #expect(throws: StoreError.self) {
            try await store.updateFeed(id: beasA, account: bea, changing { $0.siteURL = "https://elsewhere.example/" })
        }
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE site_url = 'https://elsewhere.example/'") == 0)
    }

    @Test func retentionKeepsWhatAnyAccountStarred() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let story1 = try #require(try reader.articles(ArticleFilter(account: bea), sort: .oldest).articles.first?.id)
        try await store.mark(ids: [story1], account: bea, starred: true)
        try await store.mark(ids: [story1], account: ann, read: true)
        let expired = try await store.expire(RetentionPolicy(maximumAgeDays: 1, keepNewestPerFeed: 0),
                                             now: now.addingTimeInterval(30 * day))
        #expect(expired == 3, "every story but the one Bea starred")
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1"])
        #expect(try titles(reader, ArticleFilter(account: ann)) == ["Story 1"])
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 1, unread: 0))
        // Once unstarred it may expire; Ann's read mark went with nothing else.
        try await store.mark(ids: [story1], account: bea, starred: false)
        #expect(try await store.expire(RetentionPolicy(maximumAgeDays: 1, keepNewestPerFeed: 0),
                                       now: now.addingTimeInterval(30 * day)) == 1)
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 0, unread: 0))
        try await store.recountCounters()
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 0, unread: 0))
    }

    @Test func removingAnAccountKeepsWhatOthersFollowAndTheLastAdmin() async throws {
        let (fixture, bea, _) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        await #expect(throws: StoreError.self) { try await store.setAdmin(false, account: ann) }
        await #expect(throws: StoreError.self) { try await store.removeAccount(id: ann) }
        #expect(try await store.addAccount(name: "bea", passwordHash: "", isAdmin: false) == nil, "names are unique in any case")
        try await store.removeAccount(id: bea)
        #expect(try reader.database.integer("SELECT count(*) FROM feeds") == 2, "c went, a stays for Ann")
        #expect(try reader.database.integer("SELECT count(*) FROM subscriptions WHERE account_id = ?1", [.account(bea)]) == 0)
        #expect(try reader.database.integer("SELECT count(*) FROM categories WHERE account_id = ?1", [.account(bea)]) == 0)
        #expect(try titles(reader, ArticleFilter(account: ann)) == ["Story 1", "Story 2", "Story 3"])
        await #expect(throws: StoreError.self) { try await store.removeAccount(id: bea) }
    }

    /// Following a feed already stored shows its latest document, not the backlog others gathered
    /// (docs/ARCHITECTURE.md); a later subscription whose document carries a hidden entry brings it back; an
    /// entry hidden from one account is hidden from its counts too, and the kept counts are the counted.
    @Test func aNewFollowerSeesTheLatestDocumentNotTheBacklog() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let reader = try fixture.reader()
        let (a, b) = ("https://a.example/feed", "https://b.example/feed")
        try await store.addFeeds([.init(url: a, title: "A"), .init(url: b, title: "B")], account: ann)
        var feeds: [String: Int64] = [:]
        try reader.database.statement("SELECT url, id FROM feeds").query { feeds[$0.text(at: 0)!] = $0.int64(at: 1) }
        func story(_ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: "Story \(n)", published: Double(n) * day) }
        func document(_ url: String, _ stories: [Int]) async throws {
            try await store.ingest([IncomingFeed(feedID: FeedID(feeds[url]!), entries: stories.map(story))], now: now)
        }
        try await document(a, [1, 2])
        try await document(b, [2, 3])
        try await document(a, [5, 2])  // story 1 has left a's document: backlog

        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        try await store.addFeeds([.init(url: a, title: "A")], account: bea)
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 2", "Story 5"])
        #expect(try titles(reader, ArticleFilter(account: bea, unreadOnly: true)) == ["Story 2", "Story 5"])
        #expect(try reader.accountCounts(bea) == EntryCounts(entries: 2, unread: 2))
        #expect(try reader.feeds(account: bea).map { [$0.unread, $0.total] } == [[2, 2]])
        #expect(try titles(reader, ArticleFilter(account: ann)) == ["Story 1", "Story 2", "Story 3", "Story 5"],
                "the backlog is still everyone else's")
        let story1 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 1\"")).articles.first?.id)
        #expect(try reader.article(id: story1, account: bea) == nil)
        #expect(try await store.mark(ids: [story1], account: bea, read: true) == 0, "a hidden entry cannot be marked")
        var unreadIDs = EntryListing(account: bea)
        (unreadIDs.read, unreadIDs.order, unreadIDs.limit) = (false, .id, .max)
        #expect(try reader.entryIDs(unreadIDs).count == 2)

        // b's latest document carries story 1: following b brings it back, in a's counts too.
        try await document(b, [1, 2, 3])
        try await store.addFeeds([.init(url: b, title: "B")], account: bea)
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 2", "Story 3", "Story 5"])
        #expect(try reader.feeds(account: bea).map { [$0.unread, $0.total] } == [[3, 3], [3, 3]])
        #expect(try reader.accountCounts(bea) == EntryCounts(entries: 4, unread: 4))

        // Cal follows b, then a: story 1 (now in b's document) stays; story 2 is read through b first.
        let cal = try #require(try await store.addAccount(name: "Cal", passwordHash: "", isAdmin: false, now: now))
        try await document(b, [3])
        try await store.addFeeds([.init(url: b, title: "B")], account: cal)
        let story2 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 2\"")).articles.first?.id)
        #expect(try titles(reader, ArticleFilter(account: cal)) == ["Story 3"], "b's backlog (1, 2) hidden")
        try await store.addFeeds([.init(url: a, title: "A")], account: cal)
        #expect(try titles(reader, ArticleFilter(account: cal)) == ["Story 2", "Story 3", "Story 5"])
        #expect(try await store.mark(ids: [story2], account: cal, read: true) == 1)
        #expect(try reader.accountCounts(cal) == EntryCounts(entries: 3, unread: 2))

        let kept = try [ann, bea, cal].map { account in
            [try reader.accountCounts(account).entries, try reader.accountCounts(account).unread]
                + (try reader.feeds(account: account).flatMap { [$0.unread, $0.total] })
        }
        try await store.recountCounters()
        let counted = try [ann, bea, cal].map { account in
            [try reader.accountCounts(account).entries, try reader.accountCounts(account).unread]
                + (try reader.feeds(account: account).flatMap { [$0.unread, $0.total] })
        }
        #expect(kept == counted, "kept = counted")
    }

    /// Miniflux's entry import: the entry is the importer's; the feed's other followers neither see nor
    /// count it, unless another feed they follow carries it; the counters stay equal to a count.
    @Test func anImportedEntryIsTheImportersOwn() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        func subscription(_ account: AccountID, _ url: String) throws -> SubscriptionID {
            try #require(try reader.feeds(account: account).first { $0.url == url }?.id)
        }
        let (annsA, beasA) = (try subscription(ann, "https://a.example/feed"), try subscription(bea, "https://a.example/feed"))
        let before = (try reader.accountCounts(ann), try reader.accountCounts(bea))

        let new = entry("https://pages.example/mine", title: "Ann's import")
        let imported = try await store.importEntry(new, subscription: SubscriptionID(annsA.rawValue), account: ann, read: false, starred: true)
        #expect(imported.isNew)
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: before.0.entries + 1, unread: before.0.unread + 1))
        #expect(try reader.accountCounts(bea) == before.1, "Bea follows a too, and neither sees nor counts it")
        #expect(try reader.article(id: EntryID(imported.id), account: bea) == nil)
        #expect(try reader.article(id: EntryID(imported.id), account: ann)?.isStarred == true)
        let again = try await store.importEntry(new, subscription: SubscriptionID(annsA.rawValue), account: ann, read: false, starred: true)
        #expect(again == ImportedEntry(id: imported.id, isNew: false))

        // An import at the URL of a stored entry is an entry of its own: story 3's text (b's, which Bea
        // does not follow) is not shown through it, and Bea still sees story 4 through c, once.
        let story3 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 3\"")).articles.first?.id)
        let crossed = try await store.importEntry(entry("https://news.example/3", title: "Ann's take on 3"), subscription: SubscriptionID(annsA.rawValue),
                                                  account: ann, read: true, starred: false)
        #expect(crossed.isNew && EntryID(crossed.id) != story3)
        #expect(try reader.article(id: EntryID(crossed.id), account: ann)?.title == "Ann's take on 3")
        #expect(try reader.article(id: story3, account: ann)?.title == "Story 3", "the stored entry unchanged")
        _ = try await store.importEntry(entry("https://news.example/4", title: "Ann's 4"), subscription: SubscriptionID(annsA.rawValue),
                                        account: ann, read: false, starred: false)
        #expect(try titles(reader, ArticleFilter(account: bea)) == ["Story 1", "Story 2", "Story 4"])

        // Bea imports the same page into her own subscription: an entry of hers, Ann's unchanged.
        let beas = try await store.importEntry(entry("https://pages.example/mine", title: "Bea's title"),
                                               subscription: SubscriptionID(beasA.rawValue), account: bea, read: true, starred: false)
        #expect(beas.isNew && beas.id != imported.id)
        #expect(try reader.article(id: EntryID(beas.id), account: bea)?.title == "Bea's title")
        #expect(try reader.article(id: EntryID(beas.id), account: ann) == nil && reader.article(id: EntryID(imported.id), account: bea) == nil)
        #expect(try reader.article(id: EntryID(imported.id), account: ann)?.title == "Ann's import")
        await #expect(throws: StoreError.self, "another account's subscription") {
            try await store.importEntry(new, subscription: SubscriptionID(annsA.rawValue), account: bea, read: false, starred: false)
        }

        let kept = try [ann, bea].map { account in
            [try reader.accountCounts(account).entries, try reader.accountCounts(account).unread]
                + (try reader.feeds(account: account).flatMap { [$0.unread, $0.total] })
        }
        try await store.recountCounters()
        let counted = try [ann, bea].map { account in
            [try reader.accountCounts(account).entries, try reader.accountCounts(account).unread]
                + (try reader.feeds(account: account).flatMap { [$0.unread, $0.total] })
        }
        #expect(kept == counted, "kept = counted")
    }

    /// A feed given fetch settings of its own becomes the account's private copy (docs/ARCHITECTURE.md): the
    /// subscription keeps its id, the other follower keeps the shared feed, the copy's entries are keyed
    /// apart, what the account starred stays, and the counters stay equal to a count.
    @Test func aPrivateCopyIsSplitOffAndJoinsTheSharedFeedAgain() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        let shared = try #require(feeds["https://a.example/feed"])
        let annsA = try #require(try reader.feeds(account: ann).first { $0.url == "https://a.example/feed" }?.id)
        let story1 = try #require(try reader.articles(ArticleFilter(account: ann, search: "\"Story 1\"")).articles.first?.id)
        #expect(try await store.mark(ids: [story1], account: ann, starred: true) == 1)

        try await store.updateFeed(id: annsA, account: ann, changing { $0.fetchSettings = FetchSettingsChange(cookie: "session=1") })
        let copy = try #require(try reader.feeds(account: ann).first { $0.id == annsA })
        #expect(copy.isPrivateCopy && copy.fetchSettings.cookie == "", "the cookie is never read back")
        let copyFeed = try #require(try await store.feedsToFetch().first { $0.settings?.cookie == "session=1" })
        #expect(copyFeed.id.rawValue != shared && copyFeed.url == "https://a.example/feed")
        #expect(try reader.feeds(account: bea).first { $0.url == "https://a.example/feed" }?.isPrivateCopy == false)
        #expect(try reader.article(id: story1, account: ann)?.isStarred == true, "a starred entry stays")

        // The copy's document: story 2's URL is an entry of its own there, not the shared one.
        func story(_ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: "Story \(n)", published: Double(n) * day) }
        try await store.ingest([IncomingFeed(feedID: copyFeed.id, entries: [story(2), story(9)], isPrivate: true)], now: now)
        let annsStory2 = try reader.articles(ArticleFilter(account: ann, feedID: annsA)).articles.compactMap(\.id)
        let beasStory2 = try reader.articles(ArticleFilter(account: bea, search: "\"Story 2\"")).articles.compactMap(\.id)
        #expect(annsStory2.count == 2 && Set(annsStory2).isDisjoint(with: beasStory2), "nothing shared with Bea")
        #expect(try reader.articles(ArticleFilter(account: bea, search: "\"Story 9\"")).articles.isEmpty)

        func expectCountsKept(_ step: String) async throws {
            let kept = try [ann, bea].map { [try reader.accountCounts($0).entries, try reader.accountCounts($0).unread]
                + (try reader.feeds(account: $0).flatMap { [$0.unread, $0.total] }) }
            try await store.recountCounters()
            let counted = try [ann, bea].map { [try reader.accountCounts($0).entries, try reader.accountCounts($0).unread]
                + (try reader.feeds(account: $0).flatMap { [$0.unread, $0.total] }) }
            #expect(kept == counted, "kept = counted after \(step)")
        }
        try await expectCountsKept("the split")

        // Back to the defaults: the shared feed again, its latest document shown; the copy is gone.
        try await store.updateFeed(id: annsA, account: ann, changing { $0.fetchSettings = FetchSettingsChange(cookie: "") })
        #expect(try reader.feeds(account: ann).first { $0.id == annsA }?.isPrivateCopy == false)
        #expect(try titles(reader, ArticleFilter(account: ann, feedID: annsA)) == ["Story 1", "Story 2"])
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE owner_account_id IS NOT NULL") == 0)
        #expect(try reader.database.integer("SELECT count(*) FROM entries WHERE key LIKE 'private:%'") == 0)
        try await expectCountsKept("joining the shared feed again")

        // Removing an account removes its private copies with their entries.
        try await store.addFeeds([.init(url: "https://c.example/feed", fetchSettings: FeedFetchSettings(username: "bea"))],
                                 account: bea)
        #expect(try reader.feeds(account: bea).count == 2, "Bea follows c.example already: not twice")
        try await store.addFeeds([.init(url: "https://d.example/feed", fetchSettings: FeedFetchSettings(username: "bea"))],
                                 account: bea)
        let beasCopy = try #require(try await store.feedsToFetch().first { $0.url == "https://d.example/feed" })
        try await store.ingest([IncomingFeed(feedID: beasCopy.id, entries: [story(7)], isPrivate: true)], now: now)
        try await store.removeAccount(id: bea)
        #expect(try reader.database.integer("SELECT count(*) FROM feeds WHERE owner_account_id IS NOT NULL") == 0)
        #expect(try reader.database.integer("SELECT count(*) FROM entries WHERE key LIKE 'private:%'") == 0)
    }

    /// The starred entries none of an account's feeds carries are counted in its totals from a kept
    /// count: it follows every change that moves it (stars, reads, subscriptions, a feed gaining the
    /// entry, a private copy), equal to a count of the rows after each.
    @Test func starredOrphansAreKeptThroughEveryChange() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        func id(_ title: String) throws -> EntryID {
            EntryID(try #require(try reader.database.integer("SELECT id FROM entries WHERE title = ?1", [.text(title)])))
        }
        func subscription(_ account: AccountID, _ url: String) throws -> SubscriptionID {
            try #require(try reader.feeds(account: account).first { $0.url == url }?.id)
        }
        func expectKept(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let kept = try [ann, bea].map { try reader.accountCounts($0) }
            try await store.recountCounters()
            let counted = try [ann, bea].map { try reader.accountCounts($0) }
            #expect(kept == counted, "kept = counted after \(step)", sourceLocation: sourceLocation)
        }
        func story(_ n: Int) -> IncomingEntry { entry("https://news.example/\(n)", title: "Story \(n)", published: Double(n) * day) }
        let (story1, story3) = (try id("Story 1"), try id("Story 3"))
        #expect(try await store.mark(ids: [story1, story3], account: ann, starred: true) == 2)
        try await expectKept("starring")
        try await store.removeFeed(id: try SubscriptionID(subscription(ann, "https://b.example/feed").rawValue), account: ann)
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 3, unread: 3), "story 3 is an orphan now, still counted")
        try await expectKept("unsubscribing")
        #expect(try await store.mark(ids: [story3], account: ann, read: true) == 1)
        #expect(try reader.accountCounts(ann).unread == 2)
        try await expectKept("reading an orphan")
        try await store.addFeeds([.init(url: "https://b.example/feed")], account: ann)
        try await expectKept("following its feed again")
        try await store.removeFeed(id: try SubscriptionID(subscription(ann, "https://b.example/feed").rawValue), account: ann)
        try await store.ingest([IncomingFeed(feedID: FeedID(try #require(feeds["https://a.example/feed"])), entries: [story(1), story(3)])],
                               now: now)
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 3, unread: 2), "a carries story 3 now")
        try await expectKept("a followed feed gaining the orphan")
        #expect(try await store.mark(ids: [story3], account: ann, starred: false) == 1)
        try await expectKept("unstarring")
        try await store.updateFeed(id: try SubscriptionID(subscription(ann, "https://a.example/feed").rawValue), account: ann,
                                   changing { $0.fetchSettings = FetchSettingsChange(userAgent: "Private/1") })
        #expect(try reader.accountCounts(ann) == EntryCounts(entries: 1, unread: 1), "story 1 starred, its feed now private")
        try await expectKept("a private copy")
        try await store.updateFeed(id: try SubscriptionID(subscription(ann, "https://a.example/feed").rawValue), account: ann,
                                   changing { $0.fetchSettings = FetchSettingsChange(userAgent: "") })
        try await expectKept("the shared feed again")
    }

    /// The crawler's candidates say for whom a page is fetched: a page a regular account wants is
    /// fetched under its address rule even when an admin follows the feed too (docs/ARCHITECTURE.md).
    @Test func aPageToCrawlSaysWhetherOnlyAdminsWantIt() async throws {
        let (fixture, bea, feeds) = try await twoReaders()
        let store = fixture.store
        let reader = try fixture.reader()
        func subscription(_ account: AccountID) throws -> SubscriptionID {
            try #require(try reader.feeds(account: account).first { $0.url == "https://a.example/feed" }?.id)
        }
        let since = Date(timeIntervalSince1970: 0)
        try await store.updateFeed(id: try SubscriptionID(subscription(ann).rawValue), account: ann, changing { $0.crawler = true })
        #expect(try await store.pagesToCrawl(since: since, limit: 10).isEmpty, "entries from before the subscription: none")
        // Two entries arrive after both subscriptions began.
        try await store.ingest([IncomingFeed(feedID: FeedID(try #require(feeds["https://a.example/feed"])), entries: [
            entry("https://news.example/5", title: "Story 5"), entry("https://news.example/6", title: "Story 6")])],
                               now: Date().addingTimeInterval(5))
        let forAnn = try await store.pagesToCrawl(since: since, limit: 10)
        #expect(forAnn.count == 2 && forAnn.allSatisfy { $0.isForAdminsOnly && $0.accounts == [ann] })
        try await store.updateFeed(id: try SubscriptionID(subscription(bea).rawValue), account: bea, changing { $0.crawler = true })
        let forBoth = try await store.pagesToCrawl(since: since, limit: 10)
        #expect(forBoth.count == 2 && forBoth.allSatisfy { !$0.isForAdminsOnly && Set($0.accounts) == [ann, bea] })
        try await store.showPage(entryID: forBoth[0].entryID, accounts: [ann])
        #expect(try await store.pagesToCrawl(since: since, limit: 10).first { $0.entryID == forBoth[0].entryID }?.accounts == [bea])
    }
}
