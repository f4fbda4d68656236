import Foundation
import Glibc
import TestSupport
import Testing

/// The address rule (docs/ARCHITECTURE.md, `private-networks`) through the CLI and the Miniflux API.
@Suite(.timeLimit(.minutes(2))) struct AddressRuleTests {
    /// With `private-networks = none` a feed on this machine is refused when it is added: the CLI exits 1
    /// and the API answers 400, both naming the rule; nothing is subscribed and no connection is made
    /// (the address is checked after DNS, before connecting).
    @Test func noneRefusesAFeedOnThisMachineWhenItIsAdded() async throws {
        let listener = try Listener()
        defer { close(listener.socket) }
        // A seeded feed (imported at first start, unchecked) to move later: on this machine's port 9,
        // refused at every fetch like the rest.
        let daemon = try await ServedDaemon(seed: [("Seeded", "http://127.0.0.1:9/seed.xml")],
                                            extraArguments: ["--private-networks", "none"])
        defer { daemon.stop() }
        let url = "http://127.0.0.1:\(listener.port)/feed.xml"

        let added = try daemon.ctl(["add", url])
        #expect(added.status == 1 && added.error.contains("refused: private-networks = none"), "\(added.error)")
        let token = try daemon.createAccount(name: "alice")
        let api = try daemon.curl("/v1/feeds", ["-H", "X-Auth-Token: \(token)", "-X", "POST", "-d", #"{"feed_url":"\#(url)"}"#])
        #expect(api.status == 400 && api.body.contains("private-networks = none"), "\(api.status) \(api.body)")
        #expect(try !daemon.ctl(["--json", "feeds"]).output.contains(url), "nothing was subscribed")
        #expect(listener.pendingConnections() == 0, "no connection reached the feed's server")

        // Nor can a feed be moved there: the rule applies to a new feed_url too. (No name is looked up
        // in this test: a DNS query would leave this machine.)
        let moved = try daemon.curl("/v1/feeds/1", ["-H", "X-Auth-Token: \(token)", "-X", "PUT", "-d", #"{"feed_url":"\#(url)"}"#])
        #expect(moved.status == 400 && moved.body.contains("private-networks = none"), "\(moved.status) \(moved.body)")
        #expect(listener.pendingConnections() == 0)
    }

    /// With the default `private-networks = admins`, an admin may subscribe to a feed on this machine
    /// and a regular account may not (CLI and API, naming the rule, no connection made); a feed only
    /// regular accounts follow is refused private addresses at every fetch.
    @Test func adminsMayReachPrivateAddressesAndRegularAccountsMayNot() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let listener = try Listener()
        defer { close(listener.socket) }
        let daemon = try await ServedDaemon()  // the default rule: admins
        defer { daemon.stop() }
        try await offThePool { try refuseRegularAccounts(daemon, server, listener) }
    }

    /// The test's body, on a thread of its own (`offThePool`).
    private func refuseRegularAccounts(_ daemon: ServedDaemon, _ server: FeedTestServer, _ listener: Listener) throws {
        _ = try daemon.createAccount(name: "alice")
        #expect(try daemon.ctl(["user", "add", "bob"], input: "bobs password\n").status == 0)
        let bob = try daemon.ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines)
        let url = "http://127.0.0.1:\(listener.port)/feed.xml"

        let added = try daemon.ctl(["--user", "bob", "add", url])
        #expect(added.status == 1 && added.error.contains("private-networks = admins"), "\(added.error)")
        let api = try daemon.curl("/v1/feeds", ["-H", "X-Auth-Token: \(bob)", "-X", "POST", "-d", #"{"feed_url":"\#(url)"}"#])
        #expect(api.status == 400 && api.body.contains("private-networks = admins"), "\(api.status) \(api.body)")
        #expect(listener.pendingConnections() == 0, "no connection reached the feed's server")

        // Alice, an admin, may; once she leaves a feed Bob also follows, its fetches are refused.
        let feed = server.url("/many.xml")
        #expect(try daemon.ctl(["add", feed]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).output.contains("1 ok"))
        #expect(try daemon.ctl(["--user", "bob", "add", feed]).status == 1, "Bob may not subscribe to it himself")
        // Bob subscribed while an admin, then is made a regular account, and Alice leaves the feed.
        #expect(try daemon.ctl(["user", "admin", "bob", "on"]).status == 0)
        #expect(try daemon.ctl(["--user", "bob", "add", feed]).status == 0)
        #expect(try daemon.ctl(["user", "admin", "bob", "off"]).status == 0)
        #expect(try daemon.ctl(["remove", feed]).status == 0)
        let refreshed = try daemon.ctl(["refresh", "--wait"])
        #expect(refreshed.output.contains("1 failed"), "\(refreshed.output)")
        let feeds = try daemon.ctl(["--user", "bob", "feeds"]).output
        #expect(feeds.contains("private-networks = admins"), "\(feeds)")
    }

    /// A proxy named by the environment (`http_proxy`, `https_proxy`, `ALL_PROXY`) is not used: the
    /// address check would see the proxy instead of the feed's host (docs/SECURITY.md). The feed is fetched
    /// directly and the "proxy" gets no connection.
    @Test func proxyVariablesAreIgnored() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let proxy = try Listener()
        defer { close(proxy.socket) }
        let address = "http://127.0.0.1:\(proxy.port)"
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"], environment: [
            "http_proxy": address, "HTTP_PROXY": address, "https_proxy": address, "ALL_PROXY": address, "all_proxy": address,
        ])
        defer { daemon.stop() }
        try await offThePool {
            #expect(try daemon.ctl(["add", server.url("/many.xml")]).status == 0)
            let refreshed = try daemon.ctl(["refresh", "--wait"])
            #expect(refreshed.output.contains("1 ok"), "\(refreshed.output) \(refreshed.error)")
        }
        #expect(proxy.pendingConnections() == 0, "nothing went through the proxy")
    }

    /// With `proxy = URL` every fetch goes through the admin's proxy, and the address rule still holds:
    /// the daemon resolves each target and checks it before the request, and follows redirects itself
    /// to check each hop (docs/SECURITY.md). A feed only a regular account follows, on this machine, never
    /// reaches the proxy.
    @Test func throughTheProxyTheAddressRuleStillHolds() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let proxy = try FeedTestServer(script: "test_proxy")
        defer { proxy.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--proxy", "http://127.0.0.1:\(proxy.port)"])  // admins
        defer { daemon.stop() }
        try await offThePool {
            _ = try daemon.createAccount(name: "alice")
            #expect(try daemon.ctl(["user", "add", "bob"], input: "bobs password\n").status == 0)
            // Alice's feed moved for good: both hops go through the proxy, and the subscription follows.
            #expect(try daemon.ctl(["add", server.url("/moved")]).status == 0)
            // Bob's (added while he was an admin, fetched then): refused at every fetch now, before the proxy.
            #expect(try daemon.ctl(["user", "admin", "bob", "on"]).status == 0)
            #expect(try daemon.ctl(["--user", "bob", "add", server.url("/other.xml")]).status == 0)
            #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
            #expect(try daemon.ctl(["user", "admin", "bob", "off"]).status == 0)
            func forwarded() throws -> [String] {
                try Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-s", proxy.url("/requests")]).output
                    .split(separator: "\n").map(String.init)
            }
            let before = try forwarded().filter { $0.hasSuffix("/other.xml") }.count
            let refreshed = try daemon.ctl(["refresh", "--wait"])
            #expect(refreshed.output.contains("1 failed"), "\(refreshed.output)")
            let seen = try forwarded()
            #expect(seen.contains(server.url("/moved")) && seen.contains(server.url("/feed.xml")), "\(seen)")
            #expect(seen.filter { $0.hasSuffix("/other.xml") }.count == before, "the refused feed never reached the proxy: \(seen)")
            let feeds = try daemon.ctl(["--user", "bob", "feeds"]).output
            #expect(feeds.contains("private-networks = admins"), "\(feeds)")
            #expect(try daemon.ctl(["--json", "feeds"]).output.contains(server.url("/feed.xml")), "the 301 moved it")
        }
    }

    /// A listening socket that never accepts: connections made to it wait in its queue, to be counted.
    private struct Listener {
        let socket: Int32
        let port: UInt16

        init() throws {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { general in
                    bind(socket, general, length) == 0 && listen(socket, 16) == 0
                        && getsockname(socket, general, &length) == 0
                }
            }
            guard bound else { throw TestSupportError("cannot listen on 127.0.0.1") }
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            (self.socket, port) = (socket, UInt16(bigEndian: address.sin_port))
        }

        /// Accepts (and closes) every connection waiting; how many there were.
        func pendingConnections() -> Int {
            var count = 0
            while case let connection = accept(socket, nil, nil), connection >= 0 {
                close(connection)
                count += 1
            }
            return count
        }
    }
}
