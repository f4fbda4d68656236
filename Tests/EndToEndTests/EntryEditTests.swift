import Foundation
import TestSupport
import Testing

/// Miniflux's `PUT /v1/entries/{id}`: the account's own title and content for an entry, which every
/// front end then shows that account (Miniflux, Google Reader, Fever, the CLI, the web page).
@Suite struct EntryEditTests {
    let password = "correct horse battery"

    @Test func anEditIsShownByEveryFrontEnd() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: password)
        let auth = ["-H", "X-Auth-Token: \(token)"]
        let listed = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/entries/ids", auth).body.utf8))
        let id = try #require(((listed as? [String: Any])?["entry_ids"] as? [Int])?.first)

        let put = try daemon.curl("/v1/entries/\(id)", auth + ["-X", "PUT", "-d",
                                                              #"{"title": "My title", "content": "<p>My <b>notes</b><script>x()</script></p>"}"#])
        #expect(put.status == 201, "\(put.body)")
        #expect(put.body.contains("\"title\":\"My title\"") && put.body.contains("My <b>notes</b>"), "\(put.body)")
        #expect(!put.body.contains("<script"), "an edit is sanitized as any content")
        let shown = try daemon.curl("/v1/entries/\(id)", auth).body
        #expect(shown.contains("\"title\":\"My title\""))
        // Only the title: the content edited before stays.
        #expect(try daemon.curl("/v1/entries/\(id)", auth + ["-X", "PUT", "-d", #"{"title": "Second title"}"#]).status == 201)
        let again = try daemon.curl("/v1/entries/\(id)", auth).body
        #expect(again.contains("\"title\":\"Second title\"") && again.contains("My <b>notes</b>"), "\(again)")

        // The other front ends.
        let reader = ["-H", "Authorization: GoogleLogin auth=\(token)"]
        let contents = try daemon.curl("/reader/api/0/stream/items/contents", reader + ["-d", "i=\(id + 1_000_000_000_000_000)"]).body
        #expect(contents.contains("\"title\":\"Second title\""), "\(contents.prefix(300))")
        _ = try daemon.ctl(["user", "fever", "on"], input: password + "\n")
        let key = FeverAPITests.md5("alice:\(password)")
        #expect(try daemon.curl("/fever/?api&items&with_ids=\(id)", ["-d", "api_key=\(key)"]).body.contains("Second title"))
        #expect(try daemon.ctl(["show", String(id)]).output.contains("Second title"))
        #expect(try daemon.ctl(["--json", "articles", "--limit", "1000"]).output.contains("\"title\": \"Second title\""))

        // Bad input changes nothing: an empty title, a title that is not text, nothing to change,
        // an entry that is not there.
        for body in [#"{"title": "  "}"#, #"{"title": 5}"#, "{}", "not json"] {
            #expect(try daemon.curl("/v1/entries/\(id)", auth + ["-X", "PUT", "-d", body]).status == 400, "\(body)")
        }
        #expect(try daemon.curl("/v1/entries/999999", auth + ["-X", "PUT", "-d", #"{"title": "x"}"#]).status == 404)
        #expect(try daemon.curl("/v1/entries/\(id)", auth).body.contains("\"title\":\"Second title\""))
    }
}

/// Miniflux's `POST /v1/feeds/{id}/entries/import`: an entry an app hands over for one of its feeds is
/// the importing account's (docs/ARCHITECTURE.md), even in a feed others follow.
@Suite struct EntryImportTests {
    let password = "correct horse battery"

    @Test func anImportedEntryIsSeenByItsImporterOnly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let alice = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: password))"]
        #expect(try daemon.ctl(["user", "add", "bea"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["--user", "bea", "add", server.url("/many.xml")]).status == 0)
        let bea = ["-H", "X-Auth-Token: \(try daemon.ctl(["--user", "bea", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        func object(_ response: ServedDaemon.Response) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any], "\(response.body)")
        }
        func manyFeed(_ auth: [String]) throws -> Int {
            let feeds = try JSONSerialization.jsonObject(with: Data(try daemon.curl("/v1/feeds", auth).body.utf8)) as? [[String: Any]]
            return try #require(feeds?.first { ($0["feed_url"] as? String)?.hasSuffix("/many.xml") == true }?["id"] as? Int)
        }
        func unread(_ auth: [String], _ feed: Int) throws -> Int {
            (try object(try daemon.curl("/v1/feeds/counters", auth))["unreads"] as? [String: Int])?[String(feed)] ?? 0
        }
        func importing(_ auth: [String], _ feed: Int, _ body: String) throws -> ServedDaemon.Response {
            try daemon.curl("/v1/feeds/\(feed)/entries/import", auth + ["-X", "POST", "-d", body])
        }
        let (aliceFeed, beaFeed) = (try manyFeed(alice), try manyFeed(bea))
        let (aliceUnread, beaUnread) = (try unread(alice, aliceFeed), try unread(bea, beaFeed))
        #expect(beaUnread > 0, "Bea follows the shared feed and has its entries unread")

        let payload = #"{"url": "https://example.org/imported", "title": "Alice's import", "external_id": "e-1", "#
            + #""content": "<p>Kept <b>here</b><script>x()</script></p>", "status": "unread", "starred": true, "published_at": 0}"#
        let first = try importing(alice, aliceFeed, payload)
        #expect(first.status == 201, "\(first.body)")
        let id = try #require(try object(first)["id"] as? Int)
        let again = try importing(alice, aliceFeed, payload)
        let againID = try object(again)["id"] as? Int
        #expect(again.status == 200 && againID == id, "a re-import answers the same entry")
        let shown = try daemon.curl("/v1/entries/\(id)", alice).body
        #expect(shown.contains("\"title\":\"Alice's import\"") && shown.contains("Kept <b>here</b>"), "\(shown)")
        #expect(shown.contains("\"starred\":true") && shown.contains("\"status\":\"unread\""), "\(shown)")
        #expect(!shown.contains("<script"), "imported content is sanitized as any")
        #expect(try unread(alice, aliceFeed) == aliceUnread + 1)

        // Bea follows the same feed: she neither sees the entry nor counts it.
        #expect(try daemon.curl("/v1/entries/\(id)", bea).status == 404)
        #expect(try unread(bea, beaFeed) == beaUnread)
        #expect(!(try daemon.ctl(["--user", "bea", "--json", "articles", "--limit", "1000"]).output.contains("Alice's import")))

        // Bea imports the same page with a title of her own: an entry of hers; Alice's is unchanged.
        let beas = try importing(bea, beaFeed, #"{"url": "https://example.org/imported", "title": "Bea's copy", "status": "read"}"#)
        let beasID = try object(beas)["id"] as? Int
        #expect(beas.status == 201 && beasID != nil && beasID != id, "\(beas.body)")
        let beaSees = try daemon.curl("/v1/entries/\(beasID ?? 0)", bea).body
        #expect(beaSees.contains("\"title\":\"Bea's copy\"") && beaSees.contains("\"status\":\"read\""), "\(beaSees)")
        #expect(try daemon.curl("/v1/entries/\(id)", alice).body.contains("\"title\":\"Alice's import\""))
        #expect(try daemon.curl("/v1/entries/\(beasID ?? 0)", alice).status == 404, "Bea's import is hers alone")
        #expect(try unread(bea, beaFeed) == beaUnread, "read as she imported it")

        // Refused, changing nothing: no url, a status it cannot take, a date that is not one, and
        // Alice's feed id as Bea (not found).
        for body in [#"{"title": "no url"}"#, #"{"url": "https://example.org/2", "status": "removed"}"#,
                     #"{"url": "https://example.org/2", "published_at": "yesterday"}"#, "not json"] {
            #expect(try importing(alice, aliceFeed, body).status == 400, "\(body)")
        }
        #expect(try importing(bea, aliceFeed, #"{"url": "https://example.org/3"}"#).status == 404)
        #expect(try unread(alice, aliceFeed) == aliceUnread + 1)
        #expect(try unread(bea, beaFeed) == beaUnread)
    }
}
