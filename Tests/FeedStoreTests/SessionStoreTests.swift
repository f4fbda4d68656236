import Foundation
@testable import FeedStore
import Testing

/// The web page's sessions as stored: found by digest while used, gone once unused too long.
@Suite struct SessionStoreTests {
    @Test func sessionsAreFoundByDigestExpireAndEnd() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        let first = try await store.addSession(digest: "d1", account: 1, userAgent: "Firefox/1", address: "10.0.0.1",
                                               expiredBefore: now.addingTimeInterval(-30 * day), now: now)
        let second = try await store.addSession(digest: "d2", account: 1, userAgent: "Chrome/2", address: "10.0.0.2",
                                                expiredBefore: now.addingTimeInterval(-30 * day), now: now.addingTimeInterval(60))
        let reader = try fixture.reader()
        #expect(try reader.session(digest: "d1", expiredBefore: now.addingTimeInterval(-day))?.id == first.id)
        #expect(try reader.session(digest: "nope", expiredBefore: now.addingTimeInterval(-day)) == nil)
        #expect(try reader.sessions(account: 1, expiredBefore: now.addingTimeInterval(-day)).map(\.id) == [second.id, first.id])

        // Unused since before the limit: not found, and forgotten when the next session is made.
        #expect(try reader.session(digest: "d1", expiredBefore: now.addingTimeInterval(1)) == nil)
        try await store.touchSession(id: first.id, now: now.addingTimeInterval(40 * day))
        _ = try await store.addSession(digest: "d3", account: 1, userAgent: "", address: "", expiredBefore: now.addingTimeInterval(day),
                                       now: now.addingTimeInterval(40 * day))
        #expect(try reader.session(digest: "d2", expiredBefore: .distantPast) == nil, "an expired session was kept")
        #expect(try reader.session(digest: "d1", expiredBefore: now.addingTimeInterval(39 * day))?.id == first.id)

        // Another account's session is not found, and ends nothing.
        #expect(try await store.removeSession(id: first.id, account: 2) == false)
        try await store.removeSessions(account: 2, keeping: nil)
        #expect(try reader.sessions(account: 2, expiredBefore: .distantPast).isEmpty)
        #expect(try reader.session(digest: "d1", expiredBefore: .distantPast)?.accountID == 1)

        #expect(try await store.removeSession(id: first.id, account: 1))
        #expect(try await store.removeSession(id: first.id, account: 1) == false)
        try await store.removeSessions(account: 1, keeping: nil)
        #expect(try reader.sessions(account: 1, expiredBefore: .distantPast).isEmpty)
    }
}
