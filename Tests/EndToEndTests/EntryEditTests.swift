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
        let contents = try daemon.curl("/reader/api/0/stream/items/contents", reader + ["-d", "i=\(id)"]).body
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
