import Foundation
import TestSupport
import Testing

/// Miniflux's enclosures: each has an id in its entry; `GET|PUT /v1/enclosures/{id}` reads and keeps
/// where the account stopped in it (`media_progression`, seconds), shown in the entries too.
@Suite struct EnclosureTests {
    @Test func wherePlaybackStoppedIsKeptPerEnclosure() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(seed: [("Podcast", server.url("/podcast.xml"))])
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount())"]
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        func json(_ path: String, _ arguments: [String] = []) throws -> [String: Any] {
            let body = try daemon.curl(path, auth + arguments).body
            return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(body)")
        }
        func enclosures() throws -> [[String: Any]] {
            let entries = try #require(try json("/v1/entries?order=id&direction=asc")["entries"] as? [[String: Any]])
            return try #require(entries.first?["enclosures"] as? [[String: Any]])
        }
        let listed = try enclosures()
        #expect(listed.count == 2 && listed.allSatisfy { $0["media_progression"] as? Int == 0 })
        let (first, second) = (try #require(listed[0]["id"] as? Int), try #require(listed[1]["id"] as? Int))
        let shown = try json("/v1/enclosures/\(first)")
        #expect(shown["url"] as? String == "http://example.org/pod/1.mp3" && shown["mime_type"] as? String == "audio/mpeg")
        #expect(shown["size"] as? Int == 1_234_567 && shown["entry_id"] as? Int == listed[0]["entry_id"] as? Int)

        let put = try daemon.curl("/v1/enclosures/\(first)", auth + ["-X", "PUT", "-d", #"{"media_progression": 20}"#])
        #expect(put.status == 204, "\(put.body)")
        #expect(try json("/v1/enclosures/\(first)")["media_progression"] as? Int == 20)
        #expect(try json("/v1/enclosures/\(second)")["media_progression"] as? Int == 0, "only that enclosure")
        #expect(try enclosures().map { $0["media_progression"] as? Int } == [20, 0], "the entry shows it too")
        let entryID = try #require(listed[0]["entry_id"] as? Int)
        let entry = try json("/v1/entries/\(entryID)")
        #expect((entry["enclosures"] as? [[String: Any]])?.first?["media_progression"] as? Int == 20)

        // Bad input: a negative or non-numeric position is a 400; an unknown enclosure a 404.
        for body in [#"{"media_progression": -1}"#, #"{"media_progression": "x"}"#, #"{}"#, "not json"] {
            #expect(try daemon.curl("/v1/enclosures/\(first)", auth + ["-X", "PUT", "-d", body]).status == 400, "\(body)")
        }
        #expect(try daemon.curl("/v1/enclosures/99999", auth).status == 404)
        #expect(try daemon.curl("/v1/enclosures/\(entryID * 1000 + 2)", auth).status == 404, "past the entry's last file")
        #expect(try daemon.curl("/v1/enclosures/99999", auth + ["-X", "PUT", "-d", #"{"media_progression": 5}"#]).status == 404)
        // Back to the start forgets it.
        #expect(try daemon.curl("/v1/enclosures/\(first)", auth + ["-X", "PUT", "-d", #"{"media_progression": 0}"#]).status == 204)
        #expect(try json("/v1/enclosures/\(first)")["media_progression"] as? Int == 0)
    }
}
