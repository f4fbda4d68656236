import Foundation
import TestSupport
import Testing

/// The small walls between accounts and against other sites (DESIGN §17, "Browsers" and "Counts"),
/// tried as a regular account would: Bob follows one feed of the several the admin, Alice, follows.
@Suite(.timeLimit(.minutes(3))) struct WallsTests {
    let password = "correct horse battery"

    @Test func browsersAreRefusedAndCountsAreTheAccountsOwn() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        try await offThePool { try walls(daemon, server) }
    }

    private func walls(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        let alice = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.ctl(["user", "add", "bob"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", server.url("/crosspost.xml")]).status == 0)
        let bob = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let asBob = ["-H", "X-Auth-Token: \(bob)"]

        // What a cross-site form or a simple fetch can send is refused before anything is read; JSON,
        // any other type, or none is accepted.
        for type in ["text/plain", "Text/Plain; charset=utf-8", "application/x-www-form-urlencoded",
                     "multipart/form-data; boundary=x"] {
            let planted = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: \(type)", "-d", #"{"title":"Planted"}"#])
            #expect(planted.status == 415 && planted.body.contains("send JSON"), "\(type): \(planted.status) \(planted.body)")
        }
        #expect(try daemon.curl("/v1/categories", ["-H", "Content-Type: text/plain", "-d", "{}"]).status == 415,
                "refused before the login is looked at")
        #expect(try !daemon.ctl(["--user", "bob", "categories"]).output.contains("Planted"))
        let json = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: application/json", "-d", #"{"title":"Typed"}"#])
        #expect(json.status == 201, "\(json.body)")
        let other = try daemon.curl("/v1/categories", asBob + ["-H", "Content-Type: application/vnd.example+json",
                                                               "-d", #"{"title":"Other"}"#])
        #expect(other.status == 201, "\(other.body)")
        let opml = #"<opml version="2.0"><body><outline xmlUrl="\#(server.url("/other.xml"))"/></body></opml>"#
        let untyped = try daemon.curl("/v1/import", asBob + ["-H", "Content-Type:", "--data-binary", opml])
        #expect(untyped.status == 201, "an OPML import with no type, as the PyPI client sends it: \(untyped.body)")

        // A 401 does not make a browser ask for (and then keep sending) a password.
        let refused = try daemon.curl("/v1/me", ["-u", "bob:wrong"])
        #expect(refused.status == 401 && refused.headers["www-authenticate"] == nil)

        // /metrics from another host: an admin's token only.
        let outside = ["-H", "X-Forwarded-For: 198.51.100.7"]
        #expect(try daemon.curl("/metrics", outside + asBob).status == 403)
        #expect(try daemon.curl("/metrics", outside + ["-H", "X-Auth-Token: \(alice)"]).status == 200)

        // Fever's total_items is Bob's own entries, not the server's.
        #expect(try daemon.ctl(["--user", "bob", "user", "fever", "on"], input: password + "\n").status == 0)
        let bobs = try JSONSerialization.jsonObject(with: Data(daemon.ctl(["--user", "bob", "--json", "articles", "--limit", "1000"])
            .output.utf8)) as? [String: Any]
        let bobCount = (bobs?["articles"] as? [Any])?.count ?? -1
        let fever = try daemon.curl("/fever/?api&items", ["-d", "api_key=\(FeverAPITests.md5("bob:\(password)"))"])
        let answer = try JSONSerialization.jsonObject(with: Data(fever.body.utf8)) as? [String: Any]
        let serverTotal = try JSONSerialization.jsonObject(with: Data(daemon.ctl(["--json", "status"]).output.utf8)) as? [String: Any]
        #expect(answer?["total_items"] as? Int == bobCount, "\(fever.body.prefix(300))")
        #expect((serverTotal?["entries"] as? Int ?? 0) > bobCount, "the server holds more than Bob reads")
    }
}
