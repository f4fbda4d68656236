import Foundation
@testable import FeedStore
import Testing

/// A document an admin's fetch brought from a non-public address (docs/SECURITY.md): its new entries are
/// hidden from the feed's regular followers (who followed it under a name that did not resolve), and
/// the feed is marked so that no regular account may follow it.
@Suite struct AdminsOnlyFeedTests {
    @Test func entriesFromANonPublicAddressAreTheAdminsOnly() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let bea = try #require(try await store.addAccount(name: "Bea", passwordHash: "", isAdmin: false, now: now))
        let url = "https://nas.local/feed"
        try await store.addFeeds([.init(url: url)], account: 1)  // account 1: an admin
        try await store.addFeeds([.init(url: url)], account: bea)
        let feed = try #require(try fixture.reader().database.integer("SELECT id FROM feeds WHERE url = ?1", [.text(url)]))
        var document = IncomingFeed(feedID: FeedID(feed), entries: [entry("https://nas.local/1", title: "Private note")])
        document.onlyForAdmins = true
        try await store.ingest([document], now: now)
        let reader = try fixture.reader()
        #expect(try reader.articles(ArticleFilter(account: 1)).articles.map(\.title) == ["Private note"])
        #expect(try reader.articles(ArticleFilter(account: bea)).articles.isEmpty)
        #expect(try reader.feeds(account: bea).first?.unread == 0, "and not counted")
        #expect(try reader.feedsOnlyForAdmins(among: [url, "https://other.example/feed"]) == [url])
        // A later document from a public address: new entries are everyone's, the mark is lifted.
        try await store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [entry("https://nas.local/2", title: "Public note")])],
                               now: now + 60)
        #expect(try reader.articles(ArticleFilter(account: bea)).articles.map(\.title) == ["Public note"])
        #expect(try reader.feedsOnlyForAdmins(among: [url]).isEmpty)
    }
}
