import Foundation
@testable import FeedStore
import Testing

/// A feed never changes what another feed's followers read (docs/SECURITY.md, "Text versions"): one entry a
/// URL, but each feed's text kept (a version stored only when it differs), and every account reading
/// its own feed's text, in both orders of arrival.
@Suite struct TextVersionTests {
    private let ann: AccountID = 1

    /// Ann follows a.example, Bea follows b.example (a stranger's feed); each returns the store, Bea's
    /// id and the two feeds' ids.
    private func strangers() async throws -> (StoreFixture, AccountID, a: Int64, b: Int64) {
        let fixture = try StoreFixture()
        let bea = try #require(try await fixture.store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        try await fixture.store.addFeeds([.init(url: "https://a.example/feed")], account: ann, now: now)
        try await fixture.store.addFeeds([.init(url: "https://b.example/feed")], account: bea, now: now)
        var feeds: [String: Int64] = [:]
        try fixture.reader().database.statement("SELECT url, id FROM feeds").query { feeds[$0.text(at: 0)!] = $0.int64(at: 1) }
        return (fixture, bea, feeds["https://a.example/feed"]!, feeds["https://b.example/feed"]!)
    }

    private func story(_ title: String, _ text: String) -> IncomingEntry {
        var story = entry("https://news.example/story", title: title, text: text, published: 5 * day)
        story.content = "<p>\(text)</p>"
        return story
    }

    private func seen(_ reader: StoreReader, _ account: AccountID) throws -> (list: String?, one: String?, content: String?) {
        let listed = try reader.articles(ArticleFilter(account: account), sort: .oldest).articles.first
        let full = try listed.flatMap { try reader.article(id: $0.id, account: account) }
        let entries = try reader.entries(EntryListing(account: account)).entries.first?.article
        #expect(entries?.title == listed?.title && entries?.content == full?.content, "every listing reads the same text")
        return (listed?.title, full?.title, full?.content)
    }

    @Test(arguments: [true, false])
    func eachAccountReadsItsOwnFeedsText(annFirst: Bool) async throws {
        let (fixture, bea, a, b) = try await strangers()
        let real = IncomingFeed(feedID: FeedID(a), entries: [story("The real story", "what happened")])
        let planted = IncomingFeed(feedID: FeedID(b), entries: [story("Planted headline", "what Bea wants read")])
        for (offset, feed) in Array(annFirst ? [real, planted] : [planted, real]).enumerated() {
            for poll in 0..<2 { try await fixture.store.ingest([feed], now: now.addingTimeInterval(Double(offset * 10 + poll))) }
        }
        let reader = try fixture.reader()
        #expect(try reader.database.integer("SELECT count(*) FROM entries") == 1, "one entry for the URL")
        let anns = try seen(reader, ann), beas = try seen(reader, bea)
        #expect(anns.list == "The real story" && anns.one == "The real story" && anns.content == "<p>what happened</p>")
        #expect(beas.list == "Planted headline" && beas.content == "<p>what Bea wants read</p>")
        // The real feed polled again, unchanged: nothing moves.
        try await fixture.store.ingest([real], now: now.addingTimeInterval(100))
        #expect(try seen(reader, ann).list == "The real story" && seen(reader, bea).list == "Planted headline")
    }

    @Test func equalTextsKeepNoVersionAndAReaderOfBothSeesItsOldestSubscriptions() async throws {
        let (fixture, bea, a, b) = try await strangers()
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(a), entries: [story("Same", "same words")]),
                                        IncomingFeed(feedID: FeedID(b), entries: [story("Same", "same words")])], now: now)
        let reader = try fixture.reader()
        #expect(try reader.database.integer("SELECT count(*) FROM entry_versions") == 0, "cross-posts with equal text cost nothing")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(b), entries: [story("B's edit", "other words")])], now: now + 60)
        #expect(try reader.database.integer("SELECT count(*) FROM entry_versions") == 1)
        // Bea follows a.example too, later: her oldest subscription (b) decides mixed lists; each feed's list is its own.
        try await fixture.store.addFeeds([.init(url: "https://a.example/feed")], account: bea, now: now + 120)
        let beas = try reader.feeds(account: bea)
        let beaA = try #require(beas.first { $0.url == "https://a.example/feed" }).id
        let beaB = try #require(beas.first { $0.url == "https://b.example/feed" }).id
        #expect(try seen(reader, bea).list == "B's edit")
        #expect(try reader.articles(ArticleFilter(account: bea, feedID: beaA)).articles.first?.title == "Same")
        #expect(try reader.articles(ArticleFilter(account: bea, feedID: beaB)).articles.first?.title == "B's edit")
        var listing = EntryListing(account: bea)
        listing.filter.feedID = beaA
        #expect(try reader.entries(listing).entries.first?.article.content == "<p>same words</p>")
        // b.example goes back to the same text: its version goes.
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(b), entries: [story("Same", "same words")])], now: now + 180)
        #expect(try reader.database.integer("SELECT count(*) FROM entry_versions") == 0)
    }

    /// Texts that differ only in an enclosure (a podcast's audio) are versions too.
    @Test func anEnclosureAloneMakesAVersion() async throws {
        let (fixture, bea, a, b) = try await strangers()
        var real = story("Episode 1", "notes"), planted = real
        real.enclosures = [ArticleEnclosure(url: "https://podcast.example/1.mp3", type: "audio/mpeg", length: 1)]
        planted.enclosures = [ArticleEnclosure(url: "https://attacker.example/1.mp3", type: "audio/mpeg", length: 1)]
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(b), entries: [planted]), IncomingFeed(feedID: FeedID(a), entries: [real])], now: now)
        let reader = try fixture.reader()
        func audio(_ account: AccountID) throws -> String? {
            try reader.entries(EntryListing(account: account)).entries.first?.article.enclosures.first?.url
        }
        #expect(try audio(ann) == "https://podcast.example/1.mp3")
        #expect(try audio(bea) == "https://attacker.example/1.mp3")
    }

    /// The primary feed (whose text the entry's row holds) changing its text leaves the others' text
    /// as they last delivered it; when it is gone, the next feed carries on with its own text.
    @Test func thePrimaryFeedsEditsAndDepartureChangeNobodyElsesText() async throws {
        let (fixture, bea, a, b) = try await strangers()
        let store = fixture.store
        try await store.ingest([IncomingFeed(feedID: FeedID(a), entries: [story("First", "v1")]),
                                IncomingFeed(feedID: FeedID(b), entries: [story("First", "v1")])], now: now)
        try await store.ingest([IncomingFeed(feedID: FeedID(a), entries: [story("Edited by A", "v2")])], now: now + 60)
        let reader = try fixture.reader()
        #expect(try seen(reader, ann).list == "Edited by A")
        #expect(try seen(reader, bea).list == "First", "b.example still says what it said")
        try await store.removeFeed(id: try #require(try await store.feedID(url: "https://a.example/feed", account: ann)), account: ann)
        #expect(try seen(reader, bea).list == "First")
        try await store.ingest([IncomingFeed(feedID: FeedID(b), entries: [story("B's own", "v3")])], now: now + 120)
        #expect(try seen(reader, bea).list == "B's own" && seen(reader, bea).content == "<p>v3</p>")
        #expect(try reader.database.integer("SELECT count(*) FROM entry_versions") == 0, "b.example's text is the row's now")
    }

    /// Every search shape matches the text the account reads (issue 46): a planted word is found by the
    /// planter only, the real words by the real feed's readers only, and a snippet shows the text read.
    @Test(arguments: [true, false])
    func searchesMatchTheTextEachAccountReads(annFirst: Bool) async throws {
        let (fixture, bea, a, b) = try await strangers()
        let real = IncomingFeed(feedID: FeedID(a), entries: [story("The real story", "what quietly happened")])
        let planted = IncomingFeed(feedID: FeedID(b), entries: [story("Planted headline", "zebra bargains")])
        for (offset, feed) in Array(annFirst ? [real, planted] : [planted, real]).enumerated() {
            try await fixture.store.ingest([feed], now: now.addingTimeInterval(Double(offset)))
        }
        let reader = try fixture.reader()
        for (account, own, other) in [(ann, "happened", "zebra"), (bea, "zebra", "happened")] {
            for (word, found) in [(own, 1), (other, 0), ("story OR headline", 1), ("quietly OR bargains", 1)] {
                let what = "account \(account) searching \(word)"
                var filter = ArticleFilter(account: account, search: word)
                for sort in ArticleSort.allCases {
                    #expect(try reader.articles(filter, sort: sort).articles.count == found, "\(what) by \(sort)")
                }
                #expect(try reader.count(filter) == found, "\(what)")
                var listing = EntryListing(account: account)
                listing.filter = filter
                #expect(try reader.entries(listing).entries.count == found, "\(what) through the APIs' listing")
                filter.storedAfterID = 0
                #expect(try reader.articles(filter).articles.count == found, "\(what) as watch does")
            }
            let snippet = try reader.articles(ArticleFilter(account: account, search: own), sort: .relevance).articles.first?.snippet
            #expect(snippet?.contains(own) == true, "account \(account)'s snippet: \(snippet ?? "none")")
        }
        // Marking what a search finds: Ann's search for the planted word marks nothing.
        #expect(try await fixture.store.mark(ArticleFilter(account: ann, search: "zebra"), read: true) == 0)
        #expect(try await fixture.store.mark(ArticleFilter(account: bea, search: "zebra"), read: true) == 1)
    }

    /// A reader of both feeds searches, in each feed's list, that feed's text; elsewhere its oldest
    /// subscription's.
    @Test func aFeedsListSearchesThatFeedsText() async throws {
        let (fixture, bea, a, b) = try await strangers()
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(a), entries: [story("The real story", "what quietly happened")]),
                                        IncomingFeed(feedID: FeedID(b), entries: [story("Planted headline", "zebra bargains")])], now: now)
        try await fixture.store.addFeeds([.init(url: "https://a.example/feed")], account: bea, now: now + 120)
        let reader = try fixture.reader()
        let beas = try reader.feeds(account: bea)
        let beaA = try #require(beas.first { $0.url == "https://a.example/feed" }).id
        let beaB = try #require(beas.first { $0.url == "https://b.example/feed" }).id
        func found(_ word: String, in feed: Int64?) throws -> Int {
            let filter = ArticleFilter(account: bea, feedID: feed.map { SubscriptionID($0) }, search: word)
            let counts = try ArticleSort.allCases.map { try reader.articles(filter, sort: $0).articles.count } + [reader.count(filter)]
            #expect(Set(counts).count == 1, "every shape agrees on \(word) in \(feed.map { String($0) } ?? "all"): \(counts)")
            return counts[0]
        }
        #expect(try found("happened", in: beaA.rawValue) == 1 && found("zebra", in: beaA.rawValue) == 0)
        #expect(try found("zebra", in: beaB.rawValue) == 1 && found("happened", in: beaB.rawValue) == 0)
        #expect(try found("zebra", in: nil) == 1 && found("happened", in: nil) == 0, "mixed lists read b.example, followed first")
        #expect(try await fixture.store.mark(ArticleFilter(account: bea, feedID: beaA, search: "zebra"), read: true) == 0)
        #expect(try await fixture.store.mark(ArticleFilter(account: bea, feedID: beaA, search: "happened"), read: true) == 1)
    }

    /// A version's index follows it: replaced when its feed's text changes, gone with its feed.
    @Test func aVersionsIndexFollowsItsText() async throws {
        let (fixture, bea, a, b) = try await strangers()
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(a), entries: [story("The real story", "what quietly happened")]),
                                        IncomingFeed(feedID: FeedID(b), entries: [story("Planted headline", "zebra bargains")])], now: now)
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(b), entries: [story("Second plant", "giraffe offers")])], now: now + 60)
        let reader = try fixture.reader()
        func count(_ word: String) throws -> Int { try reader.count(ArticleFilter(account: bea, search: word)) }
        #expect(try count("giraffe") == 1 && count("zebra") == 0 && count("plant*") == 1)
        try await fixture.store.removeFeed(id: try #require(try await fixture.store.feedID(url: "https://b.example/feed", account: bea)),
                                           account: bea)
        #expect(try reader.database.integer("SELECT count(*) FROM entry_versions") == 0)
        let indexed = reader.database.dialect == .sqlite
            ? "SELECT count(*) FROM entry_versions_fts WHERE entry_versions_fts MATCH 'giraffe'"
            : "SELECT count(*) FROM entry_version_search"
        #expect(try reader.database.integer(indexed) == 0, "the version's index went with it")
        #expect(try reader.count(ArticleFilter(account: ann, search: "happened")) == 1)
    }
}
