import ControlProtocol
import Foundation
@testable import HTTPAPI
import TestSupport
import Testing

/// Accounts are walls (docs/ARCHITECTURE.md): a second account walks every route of the Miniflux API, the
/// Google Reader API and the web page, every Fever call and every JSON-RPC method, with the first
/// account's ids (feed, category, entry, enclosure, icon, token, session, user). Each is not found
/// (admin routes: forbidden), nothing of the first account's shows in any answer, and afterwards the
/// first account's feeds (with their fetch settings), categories, marks, edits and tokens are as they were.
@Suite(.timeLimit(.minutes(3))) struct IsolationTests {
    let password = "correct horse battery"

    /// Ann's ids, and text only Ann's answers may hold.
    struct Owned {
        var feed = 0, category = 0, entry = 0, token = 0, session = 0
        let markers = ["Ann private feed", "AnnTech", "Ann edited title", "ann-phone"]
    }

    @Test func anotherAccountsIdsAreNotFoundEverywhereAndChangeNothing() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        try await offThePool { try walkEverything(daemon, server) }
    }

    /// The test's body, on a thread of its own (`offThePool`): some 200 child processes in a row.
    private func walkEverything(_ daemon: ServedDaemon, _ server: FeedTestServer) throws {
        let annToken = try daemon.createAccount(name: "ann", password: password)
        // Bea: a regular account following one of Ann's feeds (shared: its entries are both's), stored.
        #expect(try daemon.ctl(["user", "add", "bea"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["--user", "bea", "add", server.url("/crosspost.xml")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        let beas = try json(daemon.ctl(["--user", "bea", "--json", "articles", "--limit", "1000"]).output)["articles"] as? [[String: Any]]
        let shared = Set((beas ?? []).compactMap { $0["id"] as? Int })
        #expect(!shared.isEmpty, "Bea sees the shared feed's entries")
        var ann = try annSetup(daemon, token: annToken, notIn: shared)
        let before = try snapshot(daemon)
        let bea = try daemon.ctl(["--user", "bea", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let jar = daemon.directory.appendingPathComponent("bea-cookies").path
        let csrf = try daemon.webLogIn(name: "bea", password: password, jar: jar)
        ann.session = try annSession(daemon)

        try walkMiniflux(daemon, as: bea, ann)
        try walkGoogleReader(daemon, as: bea, ann)
        try walkFever(daemon, ann)
        try walkWeb(daemon, jar: jar, csrf: csrf, ann)
        try walkControlSocket(daemon, ann)

        #expect(try snapshot(daemon) == before, "Ann's feeds, categories, marks, edits and tokens are unchanged")
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(annToken)"]).status == 200, "Ann's token still works")
    }

    // MARK: - Ann

    /// Ann's feed renamed, its category renamed, an entry only her feed carries (none of `shared`) read,
    /// starred and edited, a token labelled.
    private func annSetup(_ daemon: ServedDaemon, token: String, notIn shared: Set<Int>) throws -> Owned {
        var owned = Owned()
        let feeds = try json(daemon.ctl(["--json", "feeds"]).output)["feeds"] as? [[String: Any]] ?? []
        let many = try #require(feeds.first { ($0["url"] as? String)?.hasSuffix("/many.xml") == true })
        owned.feed = try #require(many["id"] as? Int)
        #expect(try daemon.ctl(["rename", String(owned.feed), "Ann private feed"]).status == 0)
        #expect(try daemon.ctl(["rename-category", "News", "AnnTech"]).status == 0)
        let categories = try json(daemon.ctl(["--json", "categories"]).output)["categories"] as? [[String: Any]] ?? []
        owned.category = try #require(categories.first { $0["name"] as? String == "AnnTech" }?["id"] as? Int)
        let articles = try json(daemon.ctl(["--json", "articles", "--feed", String(owned.feed), "--limit", "1000"]).output)
        let own = (articles["articles"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }.filter { !shared.contains($0) }
        owned.entry = try #require(own.first)
        #expect(try daemon.ctl(["read", String(owned.entry)]).status == 0)
        #expect(try daemon.ctl(["star", String(owned.entry)]).status == 0)
        let edit = try daemon.curl("/v1/entries/\(owned.entry)", ["-H", "X-Auth-Token: \(token)", "-X", "PUT", "-d",
                                                                    #"{"title": "Ann edited title"}"#])
        #expect(edit.status == 201)
        #expect(try daemon.ctl(["token", "create", "ann-phone"]).status == 0)
        let tokens = try json(daemon.ctl(["--json", "token", "list"]).output)["tokens"] as? [[String: Any]] ?? []
        owned.token = try #require(tokens.first { $0["label"] as? String == "ann-phone" }?["id"] as? Int)
        return owned
    }

    /// Ann signs in on the web: the id of her session, from her settings page.
    private func annSession(_ daemon: ServedDaemon) throws -> Int {
        let jar = daemon.directory.appendingPathComponent("ann-cookies").path
        _ = try daemon.webLogIn(name: "ann", password: password, jar: jar)
        let settings = try daemon.curl("/settings", ["-b", jar]).body
        let id = try #require(settings.firstMatch(of: /\/settings\/sessions\/([0-9]+)\/revoke/)?.1)
        return try #require(Int(id))
    }

    /// What Ann sees of her own things (not the fetch times, which a refresh moves).
    private func snapshot(_ daemon: ServedDaemon) throws -> [String] {
        let feeds = (try json(daemon.ctl(["--json", "feeds"]).output)["feeds"] as? [[String: Any]] ?? []).map {
            "\($0["id"]!) \($0["title"]!) \($0["category"] ?? "-") \($0["unread"]!)/\($0["total"]!) "
                + "\($0["private"] ?? "-") \($0["user_agent"] ?? "-") \($0["ignore_http_cache"] ?? "-") \($0["crawler"] ?? "-")"
        }
        let categories = (try json(daemon.ctl(["--json", "categories"]).output)["categories"] as? [[String: Any]] ?? []).map {
            "\($0["id"]!) \($0["name"]!) \($0["unread"]!)"
        }
        let articles = (try json(daemon.ctl(["--json", "articles", "--limit", "1000"]).output)["articles"] as? [[String: Any]] ?? [])
            .map { "\($0["id"]!) \($0["title"] ?? "") \($0["read"]!) \($0["starred"]!)" }
        let tokens = (try json(daemon.ctl(["--json", "token", "list"]).output)["tokens"] as? [[String: Any]] ?? []).map {
            "\($0["id"]!) \($0["label"]!)"
        }
        return feeds + categories + articles + tokens
    }

    // MARK: - The walks

    private func walkMiniflux(_ daemon: ServedDaemon, as token: String, _ ann: Owned) throws {
        let auth = ["-H", "X-Auth-Token: \(token)"]
        let ids = ["{feedID}": ann.feed, "{categoryID}": ann.category, "{entryID}": ann.entry,
                   "{enclosureID}": ann.entry * 1000, "{iconID}": 1, "{apiKeyID}": ann.token, "{userID}": 1]
        // A body that would change Ann's thing if it were let through.
        let body = #"{"title": "Bea was here", "feed_url": "http://127.0.0.1:1/x", "category_id": \#(ann.category), "#
            + #""entry_ids": [\#(ann.entry)], "status": "unread", "starred": false, "username": "bea2", "#
            + #""password": "another password", "is_admin": true, "description": "bea", "url": "http://127.0.0.1:1/", "#
            + #""media_progression": 5, "content": "x", "hide_globally": true, "user_agent": "Bea/1", "crawler": true}"#
        for (method, pattern, _) in MinifluxAPI.routes {
            var path = pattern
            for (placeholder, id) in ids { path = path.replacingOccurrences(of: placeholder, with: String(id)) }
            #expect(!path.contains("{"), "a placeholder the walk does not know: \(pattern)")
            let answer = try daemon.curl(path, auth + ["-X", method] + (method == "GET" || method == "DELETE" ? [] : ["-d", body]))
            leaks(answer.body, ann, "\(method) \(pattern)")
            if pattern.contains("{userID}") || pattern == "/v1/users" && method == "POST" {
                #expect(answer.status == 403, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            } else if pattern.hasSuffix("/save") {
                #expect(answer.status == 400, "saving never looks at the entry: \(answer.status)")
            } else if pattern.contains("{") {
                #expect(answer.status == 404, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            } else if pattern == "/v1/users" {
                #expect(answer.status == 403, "only admins list users")
            } else {
                #expect(answer.status < 500, "\(method) \(pattern): \(answer.status)")
            }
        }
        #expect(try daemon.curl("/v1/users/ann", auth).status == 403, "by name: admins only")
    }

    private func walkGoogleReader(_ daemon: ServedDaemon, as token: String, _ ann: Owned) throws {
        let auth = ["-H", "Authorization: GoogleLogin auth=\(token)"]
        // Her entry's Reader id (docs/ARCHITECTURE.md: the entry id plus 10^15), in the long form and as a ref.
        let readerID = ann.entry + 1_000_000_000_000_000
        let item = "tag:google.com,2005:reader/item/\(String(format: "%016llx", readerID))"
        // Each route with the arguments that name Ann's things (her entry, feed and category).
        let arguments = ["i=\(item)", "i=\(readerID)", "s=feed/\(ann.feed)", "a=user/-/state/com.google/starred",
                         "r=user/-/state/com.google/read", "ac=unsubscribe", "t=Bea was here", "dest=user/-/label/Bea",
                         "quickadd=http://127.0.0.1:1/x", "n=1000"].flatMap { ["-d", $0] }
        for (_, pattern, _) in GoogleReaderAPI.routes {
            let answer = try daemon.curl(pattern, auth + arguments)
            leaks(answer.body, ann, pattern)
            #expect(answer.status < 500, "\(pattern): \(answer.status)")
        }
        for label in ["s=user/-/label/AnnTech", "s=user/-/label/AnnTech&dest=user/-/label/Bea"] {
            for route in ["/reader/api/0/rename-tag", "/reader/api/0/disable-tag", "/reader/api/0/mark-all-as-read"] {
                leaks(try daemon.curl(route, auth + ["-d", label]).body, ann, route, sent: label)
            }
        }
        for stream in ["/reader/api/0/stream/contents/feed/\(ann.feed)", "/reader/atom/feed/\(ann.feed)",
                       "/reader/api/0/stream/items/ids?s=feed/\(ann.feed)", "/reader/api/0/stream/contents/user/-/label/AnnTech"] {
            let answer = try daemon.curl(stream, auth)
            leaks(answer.body, ann, stream, sent: stream)
            // Her entry by its item id, long or short (a string in these answers): its bare digits may be
            // in any number, the answer's `updated` time too (entry 250 failed while that was 1796425xxx).
            let named = [item, "\"\(ann.entry)\""].filter { answer.body.contains($0) }
            #expect(answer.status == 404 || named.isEmpty, "\(stream): \(answer.status) names \(named): \(answer.body.prefix(300))")
        }
    }

    private func walkFever(_ daemon: ServedDaemon, _ ann: Owned) throws {
        _ = try daemon.ctl(["--user", "bea", "user", "fever", "on"], input: password + "\n")
        let key = FeverAPITests.md5("bea:\(password)")
        for query in ["api&feeds", "api&groups", "api&items&with_ids=\(ann.entry)", "api&items&since_id=0", "api&favicons",
                      "api&unread_item_ids", "api&saved_item_ids", "api&links"] {
            leaks(try daemon.curl("/fever/?\(query)", ["-d", "api_key=\(key)"]).body, ann, query)
        }
        for mark in ["mark=item&as=unread&id=\(ann.entry)", "mark=item&as=unsaved&id=\(ann.entry)",
                     "mark=feed&as=read&id=\(ann.feed)", "mark=group&as=read&id=\(ann.category)"] {
            leaks(try daemon.curl("/fever/?api", ["-d", "api_key=\(key)&\(mark)"]).body, ann, mark)
        }
    }

    private func walkWeb(_ daemon: ServedDaemon, jar: String, csrf: String, _ ann: Owned) throws {
        for (method, pattern, _) in WebUI.routes where !["/logout", "/settings/password"].contains(pattern) {
            let id = pattern.hasPrefix("/category/") ? ann.category : pattern.hasPrefix("/feed/") ? ann.feed
                : pattern.hasPrefix("/entry/") ? ann.entry : pattern.hasPrefix("/settings/tokens/") ? ann.token
                : pattern.hasPrefix("/users/") ? 1 : ann.session
            let path = pattern.replacingOccurrences(of: "{id}", with: String(id))
            let form = ["csrf=\(csrf)", "ids=\(ann.entry)", "read=0", "title=Bea was here", "name=Bea was here",
                        "category=AnnTech", "url=http://127.0.0.1:1/x"].joined(separator: "&")
            let answer = try daemon.curl(path, ["-b", jar] + (method == "POST" ? ["-d", form] : []))
            leaks(answer.body, ann, "\(method) \(pattern)", sent: form)
            if pattern.hasPrefix("/users") {
                #expect(answer.status == 403, "admins only: \(method) \(pattern): \(answer.status)")
            } else if pattern.contains("{id}") {
                #expect(answer.status == 404, "\(method) \(pattern): \(answer.status)")
            } else {
                #expect(answer.status < 500, "\(method) \(pattern): \(answer.status)")
            }
        }
    }

    /// Every control method is walked below with Ann's ids, or takes none of an account's ids: a new
    /// method fails here until it is placed in one of the two.
    static let walkedMethods: Set<ControlMethod> = [
        .feedsRemove, .feedsUpdate, .articlesGet, .articlesMark, .articlesList, .refresh, .tokenRevoke,
        .categoriesRename, .feedsList, .categoriesList, .feedsExport, .status, .tokenList, .userShow,
    ]
    static let methodsWithoutOwnedIDs: Set<ControlMethod> = [
        .feedsAdd, .feedsImport, .eventsSubscribe, .backup, .tokenCreate,
        // Accounts, by name; the control socket acts as an admin.
        .userSet, .userAdd, .userRemove, .userAdmin, .userList, .userRename, .userFever,
    ]

    private func walkControlSocket(_ daemon: ServedDaemon, _ ann: Owned) throws {
        for method in ControlMethod.allCases {
            #expect(Self.walkedMethods.contains(method) != Self.methodsWithoutOwnedIDs.contains(method),
                    "\(method.rawValue): walk it with another account's ids, or say it takes none")
        }
        let (feed, entry) = (String(ann.feed), String(ann.entry))
        for command in [["remove", feed], ["rename", feed, "Bea was here"], ["move", feed, "Bea"], ["show", entry],
                        ["edit", feed, "--user-agent", "Bea/1", "--ignore-cache", "on", "--crawler", "on"],
                        ["refresh", feed], ["articles", "--feed", feed], ["token", "revoke", String(ann.token)],
                        ["token", "revoke", "ann-phone"], ["rename-category", "AnnTech", "Bea"]] {
            let answer = try daemon.ctl(["--user", "bea"] + command)
            #expect(answer.status == 1, "\(command): \(answer.status) \(answer.output)")
            leaks(answer.output + answer.error, ann, "\(command)", sent: command.joined(separator: " "))
        }
        for command in [["read", entry], ["unread", entry], ["star", entry], ["unstar", entry]] {
            #expect(try daemon.ctl(["--user", "bea"] + command).output.contains("Marked 0 articles"), "\(command)")
        }
        for command in [["unread", "--all", "--category", "AnnTech"], ["feeds"], ["categories"], ["articles", "--limit", "1000"],
                        ["search", "Ann"], ["search", "Ann", "--category", "AnnTech"],
                        ["articles", "--category", "AnnTech", "--limit", "1000"], ["export"], ["status"], ["token", "list"], ["user", "show", "bea"]] {
            let answer = try daemon.ctl(["--user", "bea"] + command)
            leaks(answer.output + answer.error, ann, "\(command)", sent: command.joined(separator: " "))
        }
    }

    // MARK: - Helpers

    /// Records each of Ann's markers the answer holds, but those the request itself sent (echoed back
    /// in "no category named …": Bea's own words, not Ann's data).
    private func leaks(_ text: String, _ ann: Owned, _ route: String, sent: String = "",
                       sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in ann.markers where text.contains(marker) && !sent.contains(marker) {
            Issue.record("\(route) shows Ann's \"\(marker)\"", sourceLocation: sourceLocation)
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}
