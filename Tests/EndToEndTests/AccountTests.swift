import Foundation
import TestSupport
import Testing

/// The owner account and API tokens, made with `aggregatorctl` and used over HTTP (curl), as a
/// user sets up an app.
@Suite struct AccountTests {
    let password = "correct horse battery"

    @Test func theAccountIsMadeFromStandardInputAndShownWithoutItsPassword() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        // A new server's first account is an admin without a password: it cannot log in yet.
        #expect(try daemon.ctl(["user", "show"]).output.contains("User admin (admin): created"))
        #expect(try daemon.ctl(["user", "show"]).output.contains("no password yet (set one with 'aggregatorctl user set NAME')"))
        #expect(try daemon.curl("/v1/me", ["-u", "admin:"]).status == 401)

        let short = try daemon.ctl(["user", "set", "alice"], input: "short\n")
        #expect(short.status == 1 && short.error.contains("at least 8 characters"))
        let colon = try daemon.ctl(["user", "set", "a:b"], input: password + "\n")
        #expect(colon.status == 1 && colon.error.contains("cannot contain ':'"))
        let empty = try daemon.ctl(["user", "set", "alice"], input: "")
        #expect(empty.status == 2 && empty.error.contains("No password on standard input"))

        let set = try daemon.ctl(["--json", "user", "set", "alice"], input: password + "\r\n")
        #expect(set.status == 0)
        let user = try #require(try JSONSerialization.jsonObject(with: Data(set.output.utf8)) as? [String: Any])["user"]
            as? [String: Any]
        #expect(user?["name"] as? String == "alice" && user?["fever"] as? Bool == false && user?["tokens"] as? Int == 0)
        // The first `user set` names the first account.
        #expect(try daemon.ctl(["user", "show"]).output.hasPrefix("User alice (admin): created"))

        // Logging in works with exactly that password (the trailing CR of the line was dropped) …
        #expect(try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).status == 200)
        // … and the password is nowhere in clear: not in the log, not in the database.
        let log = try String(contentsOf: daemon.log, encoding: .utf8)
        #expect(!log.contains(password))
        let database = try daemon.databaseContents()
        #expect(database.range(of: Data(password.utf8)) == nil)
        #expect(database.range(of: Data("$argon2id$".utf8)) != nil)
    }

    /// `user list`, `show NAME`, `rename`, and whom commands act for: `--user`, else `$AGGREGATOR_USER`,
    /// else the first admin; a name no account has is refused (exit 1) before anything is done.
    @Test func accountsAreListedRenamedAndNamedByUserOrTheEnvironment() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        _ = try daemon.createAccount(name: "alice", password: password)

        let listed = try daemon.ctl(["--json", "user", "list"])
        let users = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])["users"]
            as? [[String: Any]]
        #expect(users?.count == 1)
        let alice = try #require(users?.first)
        #expect(alice["id"] as? Int == 1 && alice["name"] as? String == "alice" && alice["admin"] as? Bool == true)
        #expect(alice["created"] is String && alice["feeds"] as? Int == 0 && alice["unread"] as? Int == 0)
        #expect(Set(alice.keys).isSuperset(of: ["id", "name", "admin", "created", "last_login", "feeds", "unread"]))
        let table = try daemon.ctl(["user", "list"]).output
        #expect(table.hasPrefix("ID") && table.contains("LAST LOGIN") && table.contains("alice"))

        // A password login is recorded as the account's last login (an API token's use is not).
        #expect(alice["last_login"] is NSNull)
        #expect(try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).status == 200)
        let me = try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).body
        #expect(me.contains("\"is_admin\":true") && me.contains("\"id\":1"))
        var lastLogin: Any?
        for _ in 0..<100 where !(lastLogin is String) {
            let shown = try daemon.ctl(["--json", "user", "show"]).output
            lastLogin = (try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])?["user"]
                .flatMap { ($0 as? [String: Any])?["last_login"] }
            if !(lastLogin is String) { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(lastLogin is String, "the login was not recorded")

        let renamed = try daemon.ctl(["user", "rename", "alice", "Alicia"])
        #expect(renamed.status == 0 && renamed.output.hasPrefix("User Alicia (admin)"), "\(renamed.error)")
        #expect(try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).status == 401)
        #expect(try daemon.curl("/v1/me", ["-u", "Alicia:\(password)"]).status == 200)
        #expect(try daemon.ctl(["user", "show", "alicia"]).output.hasPrefix("User Alicia"), "names ignore letter case")

        // Whom a command acts for.
        #expect(try daemon.ctl(["--user", "Alicia", "token", "list"]).status == 0)
        #expect(try daemon.ctl(["token", "list"], environment: ["AGGREGATOR_USER": "alicia"]).status == 0)
        for unknown in [try daemon.ctl(["--user", "bob", "token", "create"]),
                        try daemon.ctl(["token", "create"], environment: ["AGGREGATOR_USER": "bob"]),
                        try daemon.ctl(["--user", "bob", "feeds"]),
                        try daemon.ctl(["user", "show", "bob"]),
                        try daemon.ctl(["user", "rename", "bob", "carol"])] {
            #expect(unknown.status == 1 && unknown.error.contains("no user named bob"), "\(unknown.error)")
        }
        #expect(try daemon.ctl(["token", "list"]).output.contains("token-1"), "the refused commands made no token")
        // `user set` with a new name creates a regular account; `user add`, `admin` and `remove` manage them.
        #expect(try daemon.ctl(["user", "set", "bob"], input: password + "\n").status == 0)
        #expect(try daemon.ctl(["user", "add", "carol", "--admin"], input: password + "\n").output.hasPrefix("User carol (admin)"))
        let taken = try daemon.ctl(["user", "add", "BOB"], input: password + "\n")
        #expect(taken.status == 1 && taken.error.contains("a user named BOB exists already"), "\(taken.error)")
        let everyone = try daemon.ctl(["--json", "user", "list"]).output
        let accounts = try #require(try JSONSerialization.jsonObject(with: Data(everyone.utf8)) as? [String: Any])["users"] as? [[String: Any]]
        #expect(accounts?.map { "\($0["name"]!):\($0["admin"]!)" } == ["Alicia:1", "bob:0", "carol:1"])
        #expect(try daemon.ctl(["user", "admin", "bob", "on"]).output.hasPrefix("User bob (admin)"))
        #expect(try daemon.ctl(["user", "admin", "bob", "off"]).status == 0)
        #expect(try daemon.ctl(["user", "remove", "carol"]).output == "Removed user carol and its 0 subscriptions\n")
        let last = try daemon.ctl(["user", "admin", "Alicia", "off"])
        #expect(last.status == 1 && last.error.contains("the last admin cannot be demoted or removed"), "\(last.error)")
        #expect(try daemon.ctl(["user", "remove", "Alicia"]).status == 1)
        #expect(try daemon.ctl(["user", "remove", "carol"]).error.contains("no user named carol"))
    }

    @Test func tokensArePrintedOnceListedAndRevokedByIdOrLabel() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        let created = try daemon.ctl(["token", "create", "phone"])
        #expect(created.status == 0 && created.error.contains("Shown only this once"))
        let phone = created.output.trimmingCharacters(in: .newlines)
        #expect(phone.count == 64 && phone.allSatisfy(\.isHexDigit) && created.output.filter { $0 == "\n" }.count == 1)
        let json = try daemon.ctl(["--json", "token", "create"])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(Set(second.keys) == ["id", "label", "token"] && second["label"] as? String == "token-2")
        #expect(try daemon.ctl(["token", "create", "phone"]).error.contains("a token labelled phone exists already"))
        #expect(try daemon.ctl(["token", "create", "42"]).error.contains("cannot be a number"))

        let list = try daemon.ctl(["token", "list"])
        #expect(list.output.contains("phone") && list.output.contains("token-2") && !list.output.contains(phone))

        // The tokens log in even before an account exists; the next request after a revoke is refused.
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(phone)"]).status == 200)
        #expect(try daemon.ctl(["token", "revoke", "phone"]).output == "Revoked token 1 (phone)\n")
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(phone)"]).status == 401)
        #expect(try daemon.ctl(["token", "revoke", "2"]).status == 0)
        let unknown = try daemon.ctl(["token", "revoke", "phone"])
        #expect(unknown.status == 1 && unknown.error.contains("no token with id or label phone"))
        #expect(try daemon.ctl(["token", "list"]).output.contains("No API tokens"))
    }

    @Test func theAPIsAnswer401AsMinifluxDoesAndSayHowToMakeAnAccount() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        let none = try daemon.curl("/v1/me")
        #expect(none.status == 401 && none.body.contains("aggregatorctl user set NAME"))
        #expect(none.headers["www-authenticate"] == nil, "no browser prompt (docs/SECURITY.md)")
        #expect(none.headers["content-type"] == "application/json")

        let token = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).body.contains("\"username\":\"alice\""))
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 200)
        // A token that is present decides alone: a wrong one is refused even with good Basic credentials.
        let wrongToken = try daemon.curl("/v1/me", ["-H", "X-Auth-Token: nope", "-u", "alice:\(password)"])
        #expect(wrongToken.status == 401 && wrongToken.body == #"{"error_message":"Access Unauthorized"}"#)
        #expect(try daemon.curl("/v1/me", ["-u", "bob:\(password)"]).status == 401)
        #expect(try daemon.curl("/v1/me", ["-H", "Authorization: Basic !!!"]).status == 401)
        let version = try daemon.curl("/v1/version", ["-H", "X-Auth-Token: \(token)"])
        #expect(version.status == 200 && version.body.contains("\"version\":\"2.2.0\""))
        // CORS as Miniflux: a preflight needs no login.
        let preflight = try daemon.curl("/v1/feeds", ["-X", "OPTIONS"])
        #expect(preflight.status == 204 && preflight.headers["access-control-allow-origin"] == "*")
    }

    @Test func passwordGuessingIsThrottledPerAddressAndLogged() async throws {
        let daemon = try await ServedDaemon()
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: password)
        // Five failures are free, then each attempt must wait (1 s, 2 s, … doubling); one that comes
        // after its wait (a slow machine: each is an Argon2id hash) is checked and the wait doubles,
        // so a 429 comes within a few attempts whatever the machine's speed.
        var statuses: [Int] = []
        for guess in 1...10 where !statuses.contains(429) {
            statuses.append(try daemon.curl("/v1/me", ["-u", "alice:guess\(guess)"]).status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429
                && statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
        // Throttled means no password is checked: the right one waits too, then goes through. A valid
        // API token is still let in (guessing one is hopeless; the wait is for passwords), a bad one is not.
        let throttled = try daemon.curl("/v1/me", ["-u", "alice:\(password)"])
        let retryAfter = try #require(Int(throttled.headers["retry-after"] ?? ""))
        #expect(throttled.status == 429)
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 200)
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)x"]).status == 429)
        #expect(try daemon.curl("/reader/api/0/user-info", ["-H", "Authorization: GoogleLogin auth=\(token)"]).status == 200)
        try await Task.sleep(for: .seconds(Double(retryAfter) + 0.2))
        #expect(try daemon.curl("/v1/me", ["-u", "alice:\(password)"]).status == 200)
        let log = try String(contentsOf: daemon.log, encoding: .utf8)
        #expect(log.contains(#"msg="Login refused" client=127.0.0.1 failures=5 with=password user=alice"#))
        #expect(!log.contains("guess1"))
    }

    /// Behind a reverse proxy on this machine: served under its sub-path, and each client throttled by
    /// the address the proxy names (not the proxy's own, which would lock everyone out at once).
    @Test func behindAProxyTheSubPathAndTheForwardedAddressAreUsed() async throws {
        let daemon = try await ServedDaemon(extraArguments: ["--http-base-path", "/rss"])
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: password)
        #expect(try daemon.curl("/rss/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 200)
        #expect(try daemon.curl("/rss/healthcheck").body == "OK")
        #expect(try daemon.curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 404)

        func guess(from client: String) throws -> Int {
            try daemon.curl("/rss/v1/me", ["-u", "alice:wrong", "-H", "X-Forwarded-For: \(client)"]).status
        }
        func login(from client: String) throws -> Int {
            try daemon.curl("/rss/v1/me", ["-u", "alice:\(password)", "-H", "X-Forwarded-For: \(client)"]).status
        }
        // A reader app behind the NAT at 203.0.113.5 logs in with its password (as Miniflux apps do on
        // every request); then another client there guesses.
        #expect(try login(from: "203.0.113.5") == 200)
        for _ in 1...5 { #expect(try guess(from: "203.0.113.5") == 401) }
        var status = 401
        for _ in 1...5 where status != 429 { status = try guess(from: "203.0.113.5") }  // as above: within a few
        #expect(status == 429)
        // Even a password verified a moment ago waits: answering it would let the guesser test
        // passwords against that memory at the cost of a digest each.
        #expect(try login(from: "203.0.113.5") == 429, "no password is checked while the address waits")
        #expect(try daemon.curl("/rss/v1/me", ["-H", "X-Auth-Token: \(token)", "-H", "X-Forwarded-For: 203.0.113.5"]).status
                == 200, "an app using a token there is not locked out")
        #expect(try guess(from: "203.0.113.6") == 401, "another client behind the same proxy is not throttled")
        #expect(try daemon.curl("/rss/v1/me", ["-u", "alice:\(password)"]).status == 200, "nor the proxy's own address")
        #expect(try String(contentsOf: daemon.log, encoding: .utf8).contains("client=203.0.113.5 failures=5"))

        // /metrics: free to this machine, to anyone else only with a token (as Prometheus sends it).
        let outside = ["-H", "X-Forwarded-For: 198.51.100.7"]
        #expect(try daemon.curl("/rss/metrics").body.contains("aggregatord_entries"))
        #expect(try daemon.curl("/rss/metrics", outside).status == 403)
        #expect(try daemon.curl("/rss/metrics", outside + ["-H", "Authorization: Bearer nope"]).status == 401)
        let allowed = try daemon.curl("/rss/metrics", outside + ["-H", "Authorization: Bearer \(token)"])
        #expect(allowed.status == 200 && allowed.body.contains("aggregatord_entries"))
    }
}
