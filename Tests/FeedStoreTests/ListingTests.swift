import Foundation
@testable import FeedStore
import Testing

/// Offset-paged listings in every order (the reader-app APIs), against the same data counted by hand.
@Suite struct ListingTests {
    /// 12 entries in feed A (Science), 4 in feed B (none), one of them carried by A too; 5 read, 2 starred.
    private func populated() async throws -> (StoreFixture, science: Int64, loose: Int64) {
        let fixture = try StoreFixture()
        let science = try await fixture.feed("https://a.example/feed", category: "Science")
        let loose = try await fixture.feed("https://b.example/feed")
        let base = now.timeIntervalSince1970 - 100 * day
        try await fixture.store.ingest([
            IncomingFeed(feedID: FeedID(science), entries: (0..<12).map {
                entry("https://a.example/\($0)", title: "Science \(String(format: "%02d", $0))", published: base + Double($0) * day)
            }),
            IncomingFeed(feedID: FeedID(loose), entries: (0..<3).map {
                entry("https://b.example/\($0)", title: "Loose \($0)", published: base + Double($0) * day + 3_600)
            } + [entry("https://a.example/0", title: "Science 00", published: base)]),
        ], now: now)
        let reader = try fixture.reader()
        let ids = try reader.entryIDs(EntryListing(account: 1))
        try await fixture.store.mark(ids: Array(ids.prefix(5)), account: 1, read: true)
        try await fixture.store.mark(ids: [ids[1], ids[7]], account: 1, starred: true)
        return (fixture, science, loose)
    }

    @Test func everyOrderPagesThroughEverythingOnceWithTheRightTotal() async throws {
        let (fixture, science, _) = try await populated()
        let reader = try fixture.reader()
        for (feed, expected) in [(nil, 15), (science, 12)] as [(Int64?, Int)] {
            try pageThrough(reader, feed: feed, expected: expected)
        }
    }

    private func pageThrough(_ reader: StoreReader, feed: Int64?, expected: Int) throws {
        for order in EntryListing.Order.allCases {
            for ascending in [true, false] {
                var listing = EntryListing(account: 1)
                (listing.order, listing.ascending, listing.limit, listing.filter.feedID) = (order, ascending, 4, feed.map { SubscriptionID($0) })
                var seen: [EntryID] = []
                var total = 0
                repeat {
                    let page = try reader.entries(listing)
                    seen += page.entries.map(\.article.id)
                    total = page.total
                    listing.offset += 4
                } while listing.offset < total
                #expect(total == expected && Set(seen).count == expected, "\(order) \(ascending) \(String(describing: feed))")
                (listing.limit, listing.offset) = (1000, 0)
                let whole = try reader.entries(listing).entries
                #expect(whole.map(\.article.id) == seen, "the pages make the whole list")
                if order == .publishedAt {
                    let dates = whole.map { $0.article.published ?? $0.createdAt }
                    #expect(dates == (ascending ? dates.sorted() : dates.sorted(by: >)), "sorted by date")
                }
                #expect(try reader.entryIDs(listing) == seen, "ids in the same order: \(order) \(ascending)")
            }
        }
    }

    /// Both ways of finding a feed's entries: from its sources (small feeds), or walking the date index.
    @Test(arguments: [5000, 0] as [Int64])
    func keptTotalsEqualCountedOnes(smallFeedEntries: Int64) async throws {
        let (fixture, science, loose) = try await populated()
        let reader = try fixture.reader()
        reader.smallFeedEntries = smallFeedEntries
        func total(_ change: (inout EntryListing) -> Void) throws -> (kept: Int, counted: Int) {
            var listing = EntryListing(account: 1)
            change(&listing)
            let kept = try reader.entries(listing).total
            listing.limit = 1_000_000
            return (kept, try reader.entries(listing).entries.count)
        }
        let cases: [(String, (inout EntryListing) -> Void, Int)] = [
            ("all", { _ in }, 15), ("unread", { $0.read = false }, 10), ("read", { $0.read = true }, 5),
            ("starred", { $0.starred = true }, 2), ("feed A", { $0.filter.feedID = SubscriptionID(science) }, 12),
            ("feed B unread", { ($0.filter.feedID, $0.read) = (SubscriptionID(loose), false) }, 1),
            ("category", { $0.filter.category = "Science" }, 12), ("uncategorized", { $0.filter.uncategorized = true }, 4),
            ("after id", { $0.afterID = 10 }, 5), ("search", { $0.filter.search = "loose" }, 3),
        ]
        for (name, change, expected) in cases {
            let (kept, counted) = try total(change)
            #expect(kept == counted && counted == expected, "\(name): kept \(kept), counted \(counted), expected \(expected)")
        }
    }

    /// The state-rows-only path for read and starred ids gives what the full listing gives.
    @Test func unreadAndStarredIdsMatchTheFullListing() async throws {
        let (fixture, _, _) = try await populated()
        let reader = try fixture.reader()
        for (read, starred) in [(false, nil), (nil, true), (true, false)] as [(Bool?, Bool?)] {
            var listing = EntryListing(account: 1)
            (listing.order, listing.read, listing.starred, listing.limit) = (.id, read, starred, 1000)
            let full = try reader.entries(listing).entries.map(\.article.id)
            #expect(try reader.entryIDs(listing) == full && !full.isEmpty)
        }
    }

    @Test func aListingOfIdsGivesThoseThatExist() async throws {
        let (fixture, _, _) = try await populated()
        var listing = EntryListing(account: 1)
        (listing.ids, listing.order) = ([3, 1, 999, 2], .id)
        #expect(try fixture.reader().entries(listing).entries.map(\.article.id) == [1, 2, 3])
        listing.ids = []
        #expect(try fixture.reader().entries(listing).entries.isEmpty)
    }

    @Test func marksSetChangedAtAndListingsFilterOnIt() async throws {
        let (fixture, _, _) = try await populated()
        let reader = try fixture.reader()
        var listing = EntryListing(account: 1)
        listing.changedAfter = Date().addingTimeInterval(-60)
        #expect(try reader.entries(listing).total == 6, "5 read and 1 more starred, all marked just now")
        listing.changedAfter = nil
        listing.changedBefore = Date().addingTimeInterval(-60)
        #expect(try reader.entries(listing).total == 9, "never marked: their first-seen time, long ago")
    }

    /// Issue 29: an entry first stored without a date (sorted by when it was seen), then updated by its
    /// feed with a date, showed that date but kept its place in date order. An update moves it, in
    /// `entries` and in the state the searches sort by. A second feed carrying it with its own date and
    /// text changes neither (docs/SECURITY.md, "Text versions"): its version is read in that feed's list only.
    @Test func dateOrderFollowsTheDateShownAfterUpdatesAndCrossPosts() async throws {
        let fixture = try StoreFixture()
        let first = try await fixture.feed("https://a.example/feed")
        let second = try await fixture.feed("https://b.example/feed")
        let base = now.timeIntervalSince1970 - 10 * day
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(first), entries: [
            entry("https://a.example/old", title: "Old", published: base),
            entry("https://shared.example/post", title: "Shared"),  // no date: sorted by now
            entry("https://a.example/mid", title: "Mid", published: base + 2 * day),
        ])], now: now)
        // The second feed's polls make it a source with a version of its own; the first feed's next poll
        // updates the entry with a date.
        for poll in 1...2 {
            try await fixture.store.ingest([IncomingFeed(feedID: FeedID(second), entries: [
                entry("https://shared.example/post", title: "Shared, edited", published: base + day),
            ])], now: now.addingTimeInterval(Double(poll) * 60))
        }
        let reader = try fixture.reader()
        var listing = EntryListing(account: 1)
        (listing.order, listing.ascending) = (.publishedAt, true)
        #expect(try reader.entries(listing).entries.map { $0.article.title ?? "" } == ["Old", "Mid", "Shared"],
                "the first feed's text and place: the second feed changes neither")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(first), entries: [
            entry("https://shared.example/post", title: "Shared, dated", published: base + day),
        ])], now: now.addingTimeInterval(180))
        let listed = try reader.entries(listing).entries
        #expect(listed.map { $0.article.title ?? "" } == ["Old", "Shared, dated", "Mid"])
        let dates = listed.map { $0.article.published ?? $0.createdAt }
        #expect(dates == dates.sorted())
        listing.filter.search = "shared OR old OR mid"
        #expect(try reader.entries(listing).entries.map { $0.article.title ?? "" } == ["Old", "Shared, dated", "Mid"],
                "searches sort by the same date")
    }

    /// Paging by id (`after_entry_id`, `before_entry_id`) reports the exact total from the kept counters
    /// minus the smaller side of the id: the same as counting, for every id, filter and edge.
    @Test func totalsPastAnIDAreExactOnEitherSide() async throws {
        let (fixture, science, loose) = try await populated()
        let reader = try fixture.reader()
        let ids = try reader.entryIDs(EntryListing(account: 1)).map(\.rawValue).sorted()
        let probes: [Int64] = ids + [0, -1, ids.last! + 1, Int64.max, Int64.min, ids[ids.count / 2] + 1]
        for (feed, category, unread) in [(nil, nil, false), (science, nil, false), (loose, nil, true), (nil, "Science", true),
                                         (nil, nil, true)] as [(Int64?, String?, Bool)] {
            var base = EntryListing(account: 1)
            (base.filter.feedID, base.filter.category, base.read, base.limit, base.order) =
                (feed.map { SubscriptionID($0) }, category, unread ? false : nil, 1000, .id)
            let members = try reader.entryIDs(base).map(\.rawValue)
            for probe in probes {
                var after = base
                after.afterID = probe
                #expect(try reader.entries(after).total == members.filter { $0 > probe }.count, "after \(probe)")
                var before = base
                before.beforeID = probe
                #expect(try reader.entries(before).total == members.filter { $0 < probe }.count, "before \(probe)")
            }
        }
    }

    /// A deep page in date order walks the state rows' date index: the same entries, in the same order,
    /// as the general query (forced here by a filter that selects everything), for each state and
    /// direction, with ties in date broken by id.
    @Test func deepPagesInDateOrderMatchTheGeneralQuery() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        let base = now.timeIntervalSince1970 - 2000 * 3600
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: (0..<4000).map {
            entry("https://a.example/\($0)", title: "E\($0)", published: base + Double($0 / 3) * 3600)  // 3 per date
        })], now: now)
        let reader = try fixture.reader()
        var all = EntryListing(account: 1)
        all.limit = 5000
        let ids = try reader.entryIDs(all)
        #expect(ids.count == 4000)
        // Every state selects well over 1,070 entries, so each comparison is of a real page.
        try await fixture.store.mark(ids: Array(ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)), account: 1, read: true)
        try await fixture.store.mark(ids: Array(ids.prefix(2500)), account: 1, starred: true)
        for (read, starred) in [(nil, nil), (false, nil), (true, nil), (nil, true), (false, true), (true, true),
                                (nil, false)] as [(Bool?, Bool?)] {
            for ascending in [true, false] {
                var walked = EntryListing(account: 1)
                (walked.read, walked.starred, walked.ascending, walked.limit, walked.offset) = (read, starred, ascending, 70, 1000)
                var general = walked
                general.createdAfter = Date(timeIntervalSince1970: 0)
                let (page, total) = try reader.entries(walked)
                let expected = try reader.entries(general)
                #expect(page.map(\.article.id) == expected.entries.map(\.article.id) && total == expected.total,
                        "\(String(describing: read)) \(String(describing: starred)) \(ascending)")
                #expect(page.count == 70, "a page to compare")
            }
        }
        var past = EntryListing(account: 1)
        past.offset = 9000
        #expect(try reader.entries(past).entries.isEmpty)
    }
}
