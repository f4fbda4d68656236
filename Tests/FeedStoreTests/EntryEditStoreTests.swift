import Foundation
@testable import FeedStore
import Testing

/// An account's own edits of an entry are its own: another account reads none, and a field left
/// out keeps what was edited before.
@Suite struct EntryEditStoreTests {
    @Test func editsBelongToTheirAccount() async throws {
        let fixture = try StoreFixture()
        let feed = try await fixture.feed("https://a.example/feed")
        try await fixture.store.ingest([IncomingFeed(feedID: FeedID(feed), entries: [entry("https://a.example/1", title: "One")])], now: now)
        let reader = try fixture.reader()
        let id = try #require(try reader.articles().articles.first?.id)
        #expect(try await fixture.store.editEntry(id: id, title: "Mine", content: "<p>notes</p>", account: 1))
        #expect(try await fixture.store.editEntry(id: id, title: nil, content: "<p>more</p>", account: 1))
        #expect(try await fixture.store.editEntry(id: 999, title: "x", content: nil, account: 1) == false)
        let mine = try reader.entryEdits(account: 1, entryIDs: [id])
        #expect(mine[id]?.title == "Mine" && mine[id]?.content == "<p>more</p>")
        #expect(try reader.entryEdits(account: 2, entryIDs: [id]).isEmpty, "another account sees the feed's entry")
        #expect(try reader.articles().articles.first?.title == "One", "the stored entry is unchanged")
    }
}
