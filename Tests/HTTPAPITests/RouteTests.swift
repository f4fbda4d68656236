@testable import AggregatorCore
import FeedStore
import Foundation
@testable import HTTPAPI
import Testing

/// Every route of the Miniflux, Google Reader and Fever APIs and of the web page, called in-process
/// on the real front end (`RouteHarness`): without credentials, with another account's ids (nothing
/// of Ann's shows and nothing of hers changes), with malformed input, and by their owner. A route
/// added to a table is walked here without a line more.
@Suite(.timeLimit(.minutes(3))) struct RouteTests {
    // MARK: - Miniflux

    /// Miniflux's paths with Ann's ids in their placeholders.
    private func minifluxPath(_ pattern: String, _ h: RouteHarness) -> String {
        let ids = ["{feedID}": h.feed, "{categoryID}": h.category, "{entryID}": h.entry, "{enclosureID}": h.entry * 1000,
                   "{iconID}": 1, "{apiKeyID}": h.tokenID, "{userID}": h.ann.id.rawValue]
        return ids.reduce(pattern) { $0.replacingOccurrences(of: $1.key, with: String($1.value)) }
    }

    /// A body that would change Ann's things if it were let through.
    private func minifluxBody(_ h: RouteHarness) -> String {
        #"{"title": "Bea was here", "feed_url": "http://127.0.0.1:1/x", "category_id": \#(h.category), "#
            + #""entry_ids": [\#(h.entry)], "status": "unread", "starred": false, "username": "bea2", "#
            + #""password": "another password", "is_admin": true, "description": "bea", "url": "http://127.0.0.1:1/", "#
            + #""media_progression": 5, "content": "x", "hide_globally": true, "user_agent": "Bea/1", "crawler": true}"#
    }

    @Test func minifluxRoutesAskForCredentials() async throws {
        let h = try await RouteHarness()
        for (method, pattern, _) in MinifluxAPI.routes {
            let path = minifluxPath(pattern, h)
            let none = await h.call(method, path)
            #expect(none.status == 401, "\(method) \(pattern) without credentials: \(none.status)")
            // Wrong tokens from one address are throttled after a few (docs/SECURITY.md): 429 then.
            let wrong = await h.call(method, path, headers: ["x-auth-token": "not-a-token"])
            #expect(wrong.status == 401 || wrong.status == 429, "\(method) \(pattern) with a wrong token: \(wrong.status)")
            #expect(RouteHarness.leaked(none.body + wrong.body).isEmpty)
        }
    }

    @Test func minifluxRoutesKeepAnotherAccountsThingsOut() async throws {
        let h = try await RouteHarness()
        let before = try await snapshot(h)
        for (method, pattern, _) in MinifluxAPI.routes {
            let body = method == "GET" || method == "DELETE" ? "" : minifluxBody(h)
            let answer = await h.call(method, minifluxPath(pattern, h), headers: ["x-auth-token": h.beaToken,
                                                                                 "content-type": "application/json"], body: body)
            #expect(RouteHarness.leaked(answer.body).isEmpty, "\(method) \(pattern) shows Ann's things")
            if pattern.contains("{userID}") || pattern == "/v1/users" {
                #expect(answer.status == 403, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            } else if pattern.hasSuffix("/save") {
                #expect(answer.status == 400, "saving never looks at the entry: \(answer.status)")
            } else if pattern.contains("{") {
                #expect(answer.status == 404, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            } else {
                #expect(answer.status < 500, "\(method) \(pattern): \(answer.status)")
            }
        }
        #expect(try await snapshot(h) == before, "Ann's feed, category, entry and token are as they were")
    }

    /// Routes that read no body (a refresh, a mark of everything, a toggle).
    private static let bodiless = ["/refresh", "/mark-all-as-read", "/bookmark", "/star", "/flush-history"]

    @Test func minifluxRoutesRefuseMalformedBodiesClearly() async throws {
        let h = try await RouteHarness()
        for (method, pattern, _) in MinifluxAPI.routes where method == "POST" || method == "PUT" {
            guard !Self.bodiless.contains(where: pattern.hasSuffix) else { continue }
            for body in ["{", "[1, 2]", "\"text\"", "{\"a\": " + String(repeating: "[", count: 10_000)] {
                let answer = await h.call(method, minifluxPath(pattern, h), headers: ["x-auth-token": h.annToken,
                                                                                     "content-type": "application/json"], body: body)
                #expect((400..<500).contains(answer.status), "\(method) \(pattern) with \(body): \(answer.status)")
                #expect(answer.body.contains("error_message"), "\(method) \(pattern): says why in Miniflux's shape")
            }
        }
    }

    @Test func minifluxRoutesAnswerTheirOwner() async throws {
        let h = try await RouteHarness()
        // Reads first, then the routes that change or remove things (a removal last of all).
        let routes = MinifluxAPI.routes.sorted { rank($0.0) < rank($1.0) }
        for (method, pattern, _) in routes {
            let body = method == "GET" || method == "DELETE" ? "" : minifluxBody(h)
            let answer = await h.call(method, minifluxPath(pattern, h), headers: ["x-auth-token": h.annToken,
                                                                                 "content-type": "application/json"], body: body)
            #expect(answer.status < 500, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            // Icons: the test feed has none. An article's page: its link is on a host that is not there.
            if method == "GET", !pattern.contains("icon"), !pattern.contains("{enclosureID}"), !pattern.hasSuffix("/fetch-content") {
                #expect(answer.status == 200, "\(method) \(pattern): \(answer.status) \(answer.body.prefix(200))")
            }
        }
    }

    /// `/v1/entries/ids` pages in the database: the total is every match's, the ids the page's.
    @Test func minifluxEntryIDsArePagedWithTheirTotal() async throws {
        let h = try await RouteHarness()
        let old = try await h.service.addFeed(url: h.server.url("/old.xml"), for: h.ann)
        _ = try await h.service.refresh([.id(old.feed.id)], wait: true, for: h.ann)
        func ids(_ query: String) async throws -> (total: Int, ids: [Int]) {
            let answer = await h.call("GET", "/v1/entries/ids?" + query, headers: ["x-auth-token": h.annToken])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            return (try #require(object["total"] as? Int), try #require(object["entry_ids"] as? [Int]))
        }
        let all = try await ids("order=id&direction=asc")
        #expect(all.total == 4 && all.ids.count == 4, "\(all)")
        let page = try await ids("order=id&direction=asc&limit=2&offset=1")
        #expect(page.total == 4 && page.ids == Array(all.ids[1...2]), "\(page) of \(all)")
        let unread = try await ids("status=unread&limit=1")
        #expect(unread.ids.count == 1 && unread.total == all.total, "nothing read yet: every entry is unread")
    }

    private func rank(_ method: String) -> Int { ["GET": 0, "POST": 1, "PUT": 1, "DELETE": 2][method] ?? 1 }

    // MARK: - Google Reader

    @Test func googleReaderRoutesAskForCredentialsAndKeepOthersOut() async throws {
        let h = try await RouteHarness()
        let before = try await snapshot(h)
        let readerID = h.entry + 1_000_000_000_000_000
        let item = "tag:google.com,2005:reader/item/\(String(format: "%016llx", readerID))"
        let form = ["i=\(item)", "i=\(readerID)", "s=feed/\(h.feed)", "a=user/-/state/com.google/starred",
                    "r=user/-/state/com.google/read", "ac=unsubscribe", "t=Bea+was+here", "dest=user/-/label/Bea",
                    "quickadd=http://127.0.0.1:1/x", "n=1000"].joined(separator: "&")
        let formHeaders = ["content-type": "application/x-www-form-urlencoded"]
        for (method, pattern, _) in GoogleReaderAPI.routes {
            let none = await h.call(method, pattern, headers: formHeaders, body: form)
            #expect(none.status == 401, "\(pattern) without credentials: \(none.status)")
            let answer = await h.call(method, pattern, headers: formHeaders.merging(["authorization": "GoogleLogin auth=\(h.beaToken)"]) { $1 },
                                      body: form)
            #expect(RouteHarness.leaked(answer.body).isEmpty, "\(pattern) shows Ann's things")
            #expect(answer.status < 500, "\(pattern): \(answer.status)")
        }
        for stream in ["/reader/api/0/stream/contents/feed/\(h.feed)", "/reader/atom/feed/\(h.feed)",
                       "/reader/api/0/stream/items/ids?s=feed/\(h.feed)", "/reader/api/0/stream/contents/user/-/label/AnnTech"] {
            let answer = await h.call("GET", stream, headers: ["authorization": "GoogleLogin auth=\(h.beaToken)"])
            #expect(RouteHarness.leaked(answer.body, sent: stream).isEmpty, "\(stream) shows Ann's things")
            #expect(answer.status == 404 || !answer.body.contains(item), "\(stream): \(answer.status)")
        }
        #expect(try await snapshot(h) == before, "Ann's things are as they were")
    }

    @Test func googleReaderRoutesAnswerTheirOwner() async throws {
        let h = try await RouteHarness()
        let auth = ["authorization": "GoogleLogin auth=\(h.annToken)"]
        for (method, pattern, _) in GoogleReaderAPI.routes where method == "GET" {
            let answer = await h.call(method, pattern + (pattern.contains("stream/items") ? "?s=feed/\(h.feed)" : ""), headers: auth)
            #expect(answer.status == 200 || pattern.hasSuffix("/contents") && answer.status == 400,
                    "\(pattern): \(answer.status) \(answer.body.prefix(200))")
        }
        let login = await h.call("POST", "/accounts/ClientLogin", headers: ["content-type": "application/x-www-form-urlencoded"],
                                 body: "Email=admin&Passwd=\(RouteHarness.password.replacingOccurrences(of: " ", with: "+"))")
        #expect(login.status == 200 && login.body.contains("Auth="), "ClientLogin: \(login.status)")
        let wrong = await h.call("POST", "/accounts/ClientLogin", body: "Email=admin&Passwd=nope")
        #expect(wrong.status == 401, "a wrong password: \(wrong.status)")
    }

    // MARK: - Fever

    @Test func feverCallsNeedTheKeyAndShowOnlyTheAccountsOwn() async throws {
        let h = try await RouteHarness()
        _ = try await h.service.setFever(h.bea, enabled: true, password: RouteHarness.password)
        let key = try #require(try await h.service.read { try $0.account(id: h.bea.id)?.feverKey })
        let form = ["content-type": "application/x-www-form-urlencoded"]
        let calls = ["api&feeds", "api&groups", "api&items&with_ids=\(h.entry)", "api&items&since_id=0", "api&favicons",
                     "api&unread_item_ids", "api&saved_item_ids", "api&links"]
        for query in calls {
            let none = await h.call("POST", "/fever/?\(query)", headers: form, body: "api_key=wrong")
            #expect(none.body.contains("\"auth\":0"), "\(query) with a wrong key: \(none.body.prefix(100))")
            let answer = await h.call("POST", "/fever/?\(query)", headers: form, body: "api_key=\(key)")
            #expect(answer.status == 200 && answer.body.contains("\"auth\":1"), "\(query): \(answer.status)")
            #expect(RouteHarness.leaked(answer.body).isEmpty, "\(query) shows Ann's things")
        }
        let before = try await snapshot(h)
        for mark in ["mark=item&as=unread&id=\(h.entry)", "mark=item&as=saved&id=\(h.entry)",
                     "mark=feed&as=read&id=\(h.feed)", "mark=group&as=read&id=\(h.category)"] {
            _ = await h.call("POST", "/fever/?api", headers: form, body: "api_key=\(key)&\(mark)")
        }
        #expect(try await snapshot(h) == before, "Bea's marks reach nothing of Ann's")
    }

    // MARK: - The web page

    private func webPath(_ pattern: String, _ h: RouteHarness, session: Int64) -> String {
        let id = pattern.hasPrefix("/category/") ? h.category : pattern.hasPrefix("/feed/") ? h.feed
            : pattern.hasPrefix("/entry/") ? h.entry : pattern.hasPrefix("/settings/tokens/") ? h.tokenID
            : pattern.hasPrefix("/users/") ? h.ann.id.rawValue : session
        return pattern.replacingOccurrences(of: "{id}", with: String(id))
    }

    @Test func webRoutesNeedASessionAndAFormToken() async throws {
        let h = try await RouteHarness()
        let (cookie, _) = try await h.webLogIn("bea")
        let form = ["content-type": "application/x-www-form-urlencoded"]
        for (method, pattern, _) in WebUI.routes where !["/login", "/logout"].contains(pattern) {
            let path = webPath(pattern, h, session: 1)
            let none = await h.call(method, path, headers: form, body: "ids=\(h.entry)&read=0")
            #expect(none.status == 303 || none.status == 403 || none.status == 401, "\(method) \(pattern) without a session: \(none.status)")
            #expect(RouteHarness.leaked(none.body).isEmpty)
            if method == "POST" {
                let forged = await h.call(method, path, headers: form.merging(["cookie": cookie]) { $1 }, body: "ids=\(h.entry)&read=0")
                #expect(forged.status == 403, "\(pattern) without the form's token: \(forged.status)")
            }
        }
    }

    @Test func webRoutesKeepAnotherAccountsThingsOut() async throws {
        let h = try await RouteHarness()
        let before = try await snapshot(h)
        _ = try await h.webLogIn("admin")
        let annSession = try #require(try await h.service.sessions(for: h.ann).first?.id)
        let (cookie, csrf) = try await h.webLogIn("bea")
        let form = ["csrf=\(csrf)", "ids=\(h.entry)", "read=0", "title=Bea+was+here", "name=Bea+was+here",
                    "category=AnnTech", "url=http://127.0.0.1:1/x"].joined(separator: "&")
        let headers = ["cookie": cookie, "content-type": "application/x-www-form-urlencoded"]
        for (method, pattern, _) in WebUI.routes where !["/logout", "/settings/password", "/login"].contains(pattern) {
            let answer = await h.call(method, webPath(pattern, h, session: annSession), headers: headers, body: method == "POST" ? form : "")
            #expect(RouteHarness.leaked(answer.body, sent: form).isEmpty, "\(method) \(pattern) shows Ann's things")
            if pattern.hasPrefix("/users") {
                #expect(answer.status == 403, "admins only: \(method) \(pattern): \(answer.status)")
            } else if pattern.contains("{id}") {
                #expect(answer.status == 404, "\(method) \(pattern): \(answer.status)")
            } else {
                #expect(answer.status < 500, "\(method) \(pattern): \(answer.status)")
            }
        }
        #expect(try await snapshot(h) == before, "Ann's things are as they were")
    }

    @Test func webPagesAnswerTheirOwner() async throws {
        let h = try await RouteHarness()
        let (cookie, _) = try await h.webLogIn("admin")
        for (method, pattern, _) in WebUI.routes where method == "GET" && pattern != "/login" {
            let answer = await h.call(method, webPath(pattern, h, session: 1), headers: ["cookie": cookie])
            #expect([200, 303].contains(answer.status) || pattern.contains("/settings/sessions"),
                    "\(pattern): \(answer.status) \(answer.body.prefix(200))")
            if answer.status == 200, answer.header("Content-Type")?.hasPrefix("text/html") == true {
                #expect(!answer.body.contains("&lt;a ") && !answer.body.contains("&lt;form"), "\(pattern): markup escaped as text")
            }
        }
    }

    // MARK: - Helpers

    /// What Ann has: her feed's title and category, her entry's read and starred state and title, her token's label.
    private func snapshot(_ h: RouteHarness) async throws -> [String] {
        let feed = try await h.service.feed(.id(SubscriptionID(h.feed)), for: h.ann)
        let article = try await h.service.article(id: EntryID(h.entry), for: h.ann)
        let tokens = try await h.service.tokens(for: h.ann).map(\.label)
        return [feed.title ?? "", feed.category ?? "", feed.url, "\(article.isRead) \(article.isStarred)", article.title ?? ""]
            + tokens
    }
}
