import Foundation
import Glibc
import TestSupport
import Testing

/// Several daemons on one PostgreSQL database (docs/ARCHITECTURE.md), as real processes over the test feed
/// server: they split a round so that each feed is fetched once, the per-host bound holds across
/// them, a killed daemon's feeds are fetched by the others once its lease runs out, what one stores
/// is printed by `watch` on another, and they live through their database going away.
@Suite(.enabled(if: TestPostgres.isOn, "needs the PostgreSQL test cluster (make test-postgres)"), .serialized)
struct ClusterTests {
    /// `SQL`'s one value on `database`, by psql.
    private func query(_ database: String, _ sql: String) throws -> String {
        let result = try Binary(url: URL(fileURLWithPath: "/usr/bin/psql")).run(["-qXAt", database, "-c", sql])
        guard result.status == 0 else { throw TestSupportError("psql: \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many times the test server was asked for each path.
    private func hits(_ server: FeedTestServer) throws -> [String: Int] {
        let listing = try runPython("import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                                    [server.url("/hits")]).output
        var hits: [String: Int] = [:]
        for line in listing.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let count = Int(parts[0]) { hits[String(parts[1]), default: 0] += count }
        }
        return hits
    }

    private func mostAtOnce(_ server: FeedTestServer) throws -> Int {
        Int(try runPython("import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                          [server.url("/most-concurrent")]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Waits until `condition` holds, checking every 200 ms, for at most `timeout` seconds.
    private func eventually(_ timeout: TimeInterval, _ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestSupportError("not within \(Int(timeout)) s: \(what)")
    }

    /// Runs Tests/postgres-cluster.sh with `arguments` (clusters of a test's own, in `directory`);
    /// its output. Through a shell writing to a file: the server must not hold this process's pipes.
    private func clusterScript(_ arguments: String, in directory: URL) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("postgres-cluster.sh").path
        let out = directory.appendingPathComponent("cluster.out").path
        let result = try Binary(url: URL(fileURLWithPath: "/bin/sh")).run(["-c", "'\(script)' \(arguments) > '\(out)' 2>&1"])
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard result.status == 0 else { throw TestSupportError("postgres-cluster.sh \(arguments): \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func nodes(_ daemon: ServedDaemon) throws -> [[String: Any]] {
        let status = try daemon.ctl(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        return object?["nodes"] as? [[String: Any]] ?? []
    }

    @Test func threeDaemonsSplitARoundFetchingEachFeedOnceWithinThePerHostBound() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let database = try TestPostgres.freshDatabase()
        var daemons: [ServedDaemon] = []
        defer { for daemon in daemons { daemon.stop() } }
        for name in ["node-a", "node-b", "node-c"] {
            daemons.append(try await ServedDaemon(extraArguments: ["--node-name", name, "--feed-icons", "false"],
                                                  database: database))
        }
        let feeds = (1...45).map { ("Feed \($0)", server.url("/numbered/40/\($0)")) }
        let opml = try writeSeedOPML(feeds, in: daemons[0].directory)
        let imported = try daemons[0].ctl(["import", opml.path])
        #expect(imported.status == 0, "\(imported.error)")

        try await eventually(60, "every feed checked") {
            try query(database, "SELECT count(*) FROM feeds WHERE checked_at IS NULL OR claimed_by IS NOT NULL") == "0"
        }
        let asked = try hits(server).filter { $0.key.hasPrefix("/numbered/") }
        #expect(asked.count == 45)
        #expect(asked.values.allSatisfy { $0 == 1 }, "fetched more than once: \(asked.filter { $0.value > 1 })")
        #expect(try query(database, "SELECT count(*) FROM entries") == "900")
        #expect(try mostAtOnce(server) <= 2, "the per-host bound (2) holds across the daemons")
        // Every daemon took part, and `status` lists all three.
        try await eventually(20, "heartbeats with the round") {
            try nodes(daemons[0]).compactMap { $0["last_round_fetches"] as? Int }.reduce(0, +) == 45
        }
        let listed = try nodes(daemons[1])
        #expect(listed.compactMap { $0["name"] as? String } == ["node-a", "node-b", "node-c"])
        for node in listed {
            #expect((node["feeds_claimed"] as? Int ?? 0) > 0, "\(node)")
        }

        // A refresh asked of one daemon is fetched once by the cluster, and waited for.
        let refresh = try daemons[2].ctl(["refresh", "--wait"])
        #expect(refresh.status == 0, "\(refresh.error)")
        try await eventually(20, "the refresh fetched") {
            try hits(server).filter { $0.key.hasPrefix("/numbered/") }.values.allSatisfy { $0 == 2 }
        }
        #expect(try hits(server).filter { $0.key.hasPrefix("/numbered/") }.values.allSatisfy { $0 == 2 })
    }

    @Test func feedsAKilledDaemonHeldAreFetchedByOthersOnceItsLeaseRunsOut() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let database = try TestPostgres.freshDatabase()
        let lease = 3.0
        let arguments = ["--claim-lease", "3s", "--feed-icons", "false", "--per-host-connections", "4"]
        let victim = try await ServedDaemon(extraArguments: arguments + ["--node-name", "victim"], database: database)
        defer { victim.stop() }
        // The victim alone first, so that it holds claims when it dies.
        let feeds = (1...24).map { ("Slow \($0)", server.url("/numbered/700/\($0)")) }
        let opml = try writeSeedOPML(feeds, in: victim.directory)
        #expect(try victim.ctl(["import", opml.path]).status == 0)
        try await eventually(20, "the victim holds claims") {
            Int(try query(database, "SELECT count(*) FROM feeds WHERE claimed_by = 'victim'")) ?? 0 > 0
        }
        kill(victim.process.processIdentifier, SIGKILL)
        let killed = Date()
        let survivors = [try await ServedDaemon(extraArguments: arguments + ["--node-name", "survivor-1"], database: database),
                         try await ServedDaemon(extraArguments: arguments + ["--node-name", "survivor-2"], database: database)]
        defer { for daemon in survivors { daemon.stop() } }
        try await eventually(lease + 30, "every feed fetched after the kill") {
            try query(database, "SELECT count(*) FROM feeds WHERE checked_at IS NULL") == "0"
        }
        let seconds = Date().timeIntervalSince(killed)
        #expect(seconds <= lease + 30)
        #expect(try query(database, "SELECT count(*) FROM entries") == "480", "nothing stored twice")
        #expect(try query(database, "SELECT count(*) FROM entry_sources") == "480")
        #expect(try query(database, "SELECT count(DISTINCT url) FROM entries") == "480")
    }

    @Test func watchOnOneDaemonPrintsWhatAnotherStored() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let database = try TestPostgres.freshDatabase()
        let daemons = [try await ServedDaemon(extraArguments: ["--node-name", "one", "--feed-icons", "false"], database: database),
                       try await ServedDaemon(extraArguments: ["--node-name", "two", "--feed-icons", "false"], database: database)]
        defer { for daemon in daemons { daemon.stop() } }
        // A watcher on each: between them the two daemons fetch every feed once, so each watcher
        // prints the other's entries only if they crossed over.
        var watchers: [(Process, URL)] = []
        defer { for (process, _) in watchers where process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        for daemon in daemons {
            let output = daemon.directory.appendingPathComponent("watch.out")
            let errors = daemon.directory.appendingPathComponent("watch.err")
            watchers.append((try Binary("aggregatorctl").start(["--socket", daemon.socketPath, "watch", "--json"], logFile: errors,
                                                               standardOutput: output), output))
        }
        for daemon in daemons {
            let errors = daemon.directory.appendingPathComponent("watch.err")
            try await eventually(30, "\(errors.path) says it is watching") {
                ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("Watching for new articles")
            }
        }
        let feeds = (1...30).map { ("Feed \($0)", server.url("/numbered/30/\($0)")) }
        #expect(try daemons[0].ctl(["import", try writeSeedOPML(feeds, in: daemons[0].directory).path]).status == 0)
        for (_, output) in watchers {
            try await eventually(60, "600 lines from \(output.path)") {
                Set(((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")).count >= 600
            }
        }
        for daemon in daemons {
            #expect(try nodes(daemon).allSatisfy { ($0["feeds_claimed"] as? Int ?? 0) > 0 }, "both fetched some")
        }
    }

    @Test func passwordGuessesSpreadOverDaemonsAreThrottledAsOnOne() async throws {
        let database = try TestPostgres.freshDatabase()
        let daemons = [try await ServedDaemon(extraArguments: ["--node-name", "one"], database: database),
                       try await ServedDaemon(extraArguments: ["--node-name", "two"], database: database)]
        defer { for daemon in daemons { daemon.stop() } }
        let token = try daemons[0].createAccount(name: "alice", password: "correct horse battery staple")
        // Tokens (and sessions, counters) live in the database: a token made on one daemon works on another.
        #expect(try daemons[1].curl("/v1/me", ["-H", "X-Auth-Token: \(token)"]).status == 200)
        // Five failures are free wherever they happen; the sixth attempt, on either daemon, waits.
        // Counted per daemon, the first 429 would come only at the twelfth guess (six on each).
        var statuses: [Int] = []
        for guess in 1...12 where !statuses.contains(429) {
            statuses.append(try daemons[guess % 2].curl("/v1/me", ["-u", "alice:guess\(guess)"]).status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.last == 429 && statuses.count <= 8, "throttled across the daemons: \(statuses)")
        #expect(try query(database, "SELECT failures >= 5 FROM login_failures") == "t")
    }

    @Test func aBrowserSignedInOnOneDaemonIsSignedInOnEvery() async throws {
        let database = try TestPostgres.freshDatabase()
        let daemons = [try await ServedDaemon(extraArguments: ["--node-name", "one"], database: database),
                       try await ServedDaemon(extraArguments: ["--node-name", "two"], database: database)]
        defer { for daemon in daemons { daemon.stop() } }
        _ = try daemons[0].createAccount(name: "alice", password: "correct horse battery staple")
        // Behind a load balancer without sticky sessions: the form from one daemon, posted to the other.
        let jar = daemons[0].directory.appendingPathComponent("cookies").path
        let form = try daemons[0].curl("/login", ["-c", jar])
        let token = try #require(form.body.firstMatch(of: /name="login_token" value="([0-9a-f]{64})"/)?.1)
        let login = try daemons[1].curl("/login", ["-b", jar, "-c", jar,
                                                   "-d", "login_token=\(token)&name=alice&password=correct+horse+battery+staple"])
        #expect(login.status == 303, "\(login.status) \(login.body)")
        for daemon in daemons {
            #expect(try daemon.curl("/unread", ["-b", jar]).status == 200)
        }
        // A form of one daemon's page is taken by the other (its CSRF token is the session's), and
        // signing out on one signs out on every.
        let page = try daemons[0].curl("/unread", ["-b", jar])
        let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1)
        let logout = try daemons[1].curl("/logout", ["-b", jar, "-d", "csrf=\(csrf)"])
        #expect(logout.status == 303, "\(logout.status) \(logout.body)")
        #expect(try daemons[0].curl("/unread", ["-b", jar]).status == 303, "signed out")
    }

    @Test func daemonsSayTheDatabaseIsAwayAndCarryOnWhenItIsBack() async throws {
        // A cluster of its own: stopping the shared one would stop every other test.
        let directory = try temporaryDirectory()
        chmod(directory.path, 0o755)
        let clusterDirectory = directory.appendingPathComponent("pg").path
        func cluster(_ command: String) throws -> String { try clusterScript("\(command) '\(clusterDirectory)'", in: directory) }
        let base = try cluster("start")
        defer {
            _ = try? cluster("stop")
            try? FileManager.default.removeItem(at: directory)
        }
        let server = try FeedTestServer()
        defer { server.stop() }
        let database = base
        let daemon = try await ServedDaemon(extraArguments: ["--node-name", "survivor", "--feed-icons", "false"], database: database)
        defer { daemon.stop() }
        #expect(try daemon.curl("/healthcheck").status == 200)
        let token = try daemon.createAccount(name: "alice", password: "correct horse battery")
        // Every kind of request once before the outage, so that each connection has its statements
        // prepared; after it, each must work the first time it is asked (issue 47: a restart left
        // `prepared statement "s2" does not exist` on every refresh).
        let requests: [(String, () throws -> Bool)] = [
            ("refresh --wait", { try daemon.ctl(["refresh", "--wait"]).status == 0 }),
            ("articles", { try daemon.ctl(["--json", "articles"]).output.contains("\"id\"") }),
            ("search", { try daemon.ctl(["search", "item"]).status == 0 }),
            ("Miniflux entries", { try daemon.curl("/v1/entries?status=unread", ["-H", "X-Auth-Token: \(token)"]).body.contains("\"total\":") }),
            ("Miniflux counters", { try daemon.curl("/v1/feeds/counters", ["-H", "X-Auth-Token: \(token)"]).status == 200 }),
            ("Miniflux mark", {
                try daemon.curl("/v1/entries", ["-H", "X-Auth-Token: \(token)", "-X", "PUT",
                                                 "-d", #"{"entry_ids": [1], "status": "read"}"#]).status == 204 }),
            ("Google Reader", {
                let login = try daemon.curl("/accounts/ClientLogin", ["-d", "Email=alice", "--data-urlencode", "Passwd=correct horse battery"]).body
                let auth = login.split(separator: "\n").first { $0.hasPrefix("Auth=") }.map { String($0.dropFirst(5)) } ?? ""
                return try daemon.curl("/reader/api/0/unread-count?output=json", ["-H", "Authorization: GoogleLogin auth=\(auth)"]).status == 200
            }),
            ("status", { try daemon.ctl(["status"]).status == 0 }),
        ]
        #expect(try daemon.ctl(["add", server.url("/numbered/0/2")]).status == 0)
        try await eventually(30, "the first feed fetched") { try query(database, "SELECT count(*) FROM entries") == "20" }
        for (name, request) in requests { #expect(try request(), "\(name), before the outage") }

        // A restart while idle: every request works the first time once /healthcheck says so.
        _ = try cluster("halt")
        _ = try cluster("resume")
        try await eventually(30, "/healthcheck is OK after the restart") { try daemon.curl("/healthcheck").status == 200 }
        for (name, request) in requests { #expect(try request(), "\(name), after a restart") }

        _ = try cluster("halt")
        try await eventually(20, "/healthcheck says the database is away") {
            let answer = try daemon.curl("/healthcheck")
            return answer.status == 503 && answer.body.contains("database unreachable")
        }
        #expect(try daemon.ctl(["status"]).status != 0, "the CLI is told, not hung")
        #expect(daemon.process.isRunning)

        _ = try cluster("resume")
        try await eventually(30, "/healthcheck is OK again") { try daemon.curl("/healthcheck").status == 200 }
        let added = try daemon.ctl(["add", server.url("/numbered/0/1")])
        #expect(added.status == 0, "\(added.error)")
        try await eventually(30, "the new feed fetched") {
            try query(database, "SELECT count(*) FROM entries") == "40"
        }
        for (name, request) in requests.dropFirst(3) { #expect(try request(), "\(name), after the outage") }
        #expect(try daemon.ctl(["status"]).status == 0)
        let log = try String(contentsOf: daemon.log, encoding: .utf8)
        #expect(log.contains("Cannot use the database"), "the log says so")
        #expect(log.contains("The database answers again"))
    }

    /// A lock held elsewhere for minutes (docs/RELIABILITY.md, "A busy database"): past `db-lock-timeout`,
    /// requests are answered "database busy" (503 with Retry-After; the CLI exits 1) instead of
    /// waiting for the lock, the daemon stays up, and once the lock is gone everything works again.
    @Test func aLockHeldElsewhereIsAnsweredDatabaseBusyNotWaitedFor() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try TestPostgres.freshDatabase()
        let daemon = try await ServedDaemon(extraArguments: ["--db-lock-timeout", "1s", "--feed-icons", "false"], database: database)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: "correct horse battery"))"]
        #expect(try daemon.ctl(["add", server.url("/numbered/0/1")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        #expect(try daemon.curl("/v1/entries", auth).status == 200)

        // Another session takes the entries' state for itself and keeps it (psql, in the background).
        let holder = try Binary(url: URL(fileURLWithPath: "/usr/bin/psql")).start(
            ["-qX", database, "-c", "BEGIN; LOCK TABLE entry_state IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT;"],
            logFile: directory.appendingPathComponent("psql.log"))
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        try await eventually(20, "the lock is held") {
            try query(database, """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'entry_state' AND l.mode = 'AccessExclusiveLock' AND l.granted
                """) == "1"
        }
        let asked = Date()
        let busy = try daemon.curl("/v1/entries", auth)
        #expect(busy.status == 503 && busy.body.contains("database busy") && busy.headers["retry-after"] == "5",
                "\(busy.status) \(busy.headers) \(busy.body)")
        #expect(Date().timeIntervalSince(asked) < 10, "answered after the lock timeout, not after the lock")
        let listed = try daemon.ctl(["articles"])
        #expect(listed.status == 1 && listed.error.contains("database busy"), "\(listed.status) \(listed.error)")
        #expect(try daemon.curl("/healthcheck").status == 200, "the database answers: it is one table that is held")
        #expect(daemon.process.isRunning)

        // The holder's session ends (killing psql would not: its server process sleeps on), and the lock with it.
        _ = try query(database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND pid <> pg_backend_pid()")
        try await eventually(20, "the entries are served again") { try daemon.curl("/v1/entries", auth).status == 200 }
        #expect(try daemon.ctl(["articles"]).status == 0)
    }

    /// Between the daemon and the database, a TCP proxy of the test's own that goes silent (forwards
    /// nothing, closes nothing: the peer's kernel still acknowledges), then lets new connections
    /// through again (docs/RELIABILITY.md, "A silent network"). A request ends in an error within
    /// `db-statement-timeout` + 5 s (and a reconnection's `connect_timeout`), `/healthcheck` always
    /// answers at once and says so, and the daemon recovers by itself.
    private static let silentProxy = #"""
        import os, select, signal, socket, sys, threading, time
        port_file, target = sys.argv[1], sys.argv[2]
        state = {"silent": False, "generation": 0}
        def silence(*_):
            state["silent"] = True
            open(port_file + ".silent", "w").close()  # said once it is so
        def resume(*_):
            state.update(silent=False, generation=state["generation"] + 1)
            os.remove(port_file + ".silent")
        signal.signal(signal.SIGUSR1, silence)
        signal.signal(signal.SIGUSR2, resume)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2})  # the test runner blocks them
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        with open(port_file + ".tmp", "w") as f: f.write(str(server.getsockname()[1]))
        os.rename(port_file + ".tmp", port_file)
        def pump(source, sink, generation):
            # Frozen while silent, and for good once the network came back: a connection cut silently.
            while True:
                if state["silent"] or state["generation"] != generation:
                    time.sleep(0.05); continue
                if not select.select([source], [], [], 0.05)[0]: continue
                data = source.recv(65536)
                if not data:
                    sink.close(); return
                sink.sendall(data)
        server.settimeout(0.1)  # the main thread comes back to run the signal handlers
        while True:
            try: client, _ = server.accept()
            except socket.timeout: continue
            client.settimeout(None)
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(target)
            for ends in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=ends + (state["generation"],), daemon=True).start()
        """#

    @Test func aSilentNetworkEndsInAnErrorAndTheDaemonRecovers() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = try #require(TestPostgres.baseURI)
        let socketDirectory = try #require(URLComponents(string: base)?.queryItems?.first { $0.name == "host" }?.value)
        let database = try TestPostgres.freshDatabase()
        let name = try #require(URLComponents(string: database)?.path.dropFirst())
        let portFile = directory.appendingPathComponent("port").path
        let script = directory.appendingPathComponent("silent_proxy.py")
        try Self.silentProxy.write(to: script, atomically: true, encoding: .utf8)
        let proxy = try Binary(url: URL(fileURLWithPath: "/usr/bin/env")).start(
            ["python3", script.path, portFile, "\(socketDirectory)/.s.PGSQL.5432"], logFile: directory.appendingPathComponent("proxy.log"))
        defer { kill(proxy.processIdentifier, SIGKILL) }
        try await eventually(10, "the proxy listens") { FileManager.default.fileExists(atPath: portFile) }
        let port = try String(contentsOfFile: portFile, encoding: .utf8)
        let throughProxy = "postgresql://postgres@127.0.0.1:\(port)/\(name)?connect_timeout=2"
        let daemon = try await ServedDaemon(extraArguments: ["--db-statement-timeout", "2s", "--feed-icons", "false"],
                                            database: throughProxy)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: "correct horse battery"))"]
        #expect(try daemon.curl("/v1/entries", auth).status == 200)

        kill(proxy.processIdentifier, SIGUSR1)
        try await eventually(10, "the proxy is silent") { FileManager.default.fileExists(atPath: portFile + ".silent") }
        let asked = Date()
        let answer = try daemon.curl("/v1/entries", auth)
        #expect(answer.status == 503 && answer.headers["retry-after"] != nil, "\(answer.status) \(answer.body)")
        #expect(Date().timeIntervalSince(asked) < 15, "within 2 s + 5 s, and one reconnection's 2 s")
        try await eventually(40, "/healthcheck says the database is away, at once each time") {
            let started = Date()
            let health = try daemon.curl("/healthcheck")
            #expect(Date().timeIntervalSince(started) < 1.5, "/healthcheck answered at once")
            return health.status == 503
        }
        #expect(daemon.process.isRunning)

        kill(proxy.processIdentifier, SIGUSR2)
        try await eventually(10, "the proxy lets new connections through") { !FileManager.default.fileExists(atPath: portFile + ".silent") }
        try await eventually(60, "/healthcheck is OK again") { try daemon.curl("/healthcheck").status == 200 }
        // No request fails because of the outage once /healthcheck says it is over: every connection
        // (the readers' too) connects again.
        for _ in 0..<6 {
            let again = try daemon.curl("/v1/entries", auth)
            #expect(again.status == 200, "\(again.status) \(again.body)")
        }
        #expect(try daemon.ctl(["status"]).status == 0)
    }

    /// Failover (docs/RELIABILITY.md, "Failover"): two daemons on a libpq multi-host URI naming a
    /// primary and its streaming standby; the primary killed as by a crash and the standby promoted,
    /// both daemons go on against it by themselves within 30 s, and what the standby had received
    /// (everything committed before: the test waits for it, as synchronous replication would) is there.
    @Test func daemonsFollowAPromotedStandbyAndLoseNothingItReceived() async throws {
        let directory = try temporaryDirectory()
        chmod(directory.path, 0o755)
        let (primary, standby) = (directory.appendingPathComponent("primary").path, directory.appendingPathComponent("standby").path)
        func cluster(_ arguments: String) throws -> String { try clusterScript(arguments, in: directory) }
        let primaryBase = try cluster("start '\(primary)'")
        defer {
            _ = try? cluster("stop '\(standby)'")
            _ = try? cluster("stop '\(primary)'")
            try? FileManager.default.removeItem(at: directory)
        }
        _ = try query(primaryBase, "CREATE DATABASE failover")
        _ = try cluster("standby '\(standby)' '\(primary)'")
        let onPrimary = "postgresql:///failover?host=\(primary)&user=postgres"
        let onStandby = "postgresql:///failover?host=\(standby)&user=postgres"
        let database = "postgresql:///failover?host=\(primary),\(standby)&user=postgres&target_session_attrs=read-write"
        let server = try FeedTestServer()
        defer { server.stop() }
        var daemons: [ServedDaemon] = []
        defer { for daemon in daemons { daemon.stop() } }
        for name in ["node-a", "node-b"] {
            daemons.append(try await ServedDaemon(extraArguments: ["--node-name", name, "--feed-icons", "false"], database: database))
        }
        let auth = ["-H", "X-Auth-Token: \(try daemons[0].createAccount(name: "alice", password: "correct horse battery"))"]
        #expect(try daemons[0].ctl(["--user", "alice", "add", server.url("/numbered/0/2")]).status == 0)
        try await eventually(30, "the feed stored") { try query(onPrimary, "SELECT count(*) FROM entries") == "20" }
        let first = try #require(try query(onPrimary, "SELECT min(id) FROM entries"))
        #expect(try daemons[1].curl("/v1/entries", auth + ["-X", "PUT", "-d", #"{"entry_ids": [\#(first)], "status": "read"}"#]).status == 204)
        // Everything committed has reached the standby (what synchronous replication would promise).
        let written = try query(onPrimary, "SELECT pg_current_wal_lsn()")
        try await eventually(30, "the standby has replayed it") {
            try query(onStandby, "SELECT pg_last_wal_replay_lsn() >= '\(written)'::pg_lsn") == "t"
        }

        _ = try cluster("kill '\(primary)'")
        let killed = Date()
        for daemon in daemons {
            // The primary refuses, the standby is read-only (target_session_attrs): no database to write to.
            try await eventually(20, "/healthcheck says so while no standby is promoted") { try daemon.curl("/healthcheck").status == 503 }
        }
        _ = try cluster("promote '\(standby)'")
        let promoted = Date()
        for daemon in daemons {
            try await eventually(30, "/healthcheck is OK against the promoted standby") { try daemon.curl("/healthcheck").status == 200 }
        }
        print("Failover: both daemons healthy \(String(format: "%.1f", Date().timeIntervalSince(promoted))) s after the promotion, "
              + "\(String(format: "%.1f", Date().timeIntervalSince(killed))) s after the primary died")
        for daemon in daemons {
            let read = try daemon.curl("/v1/entries?status=read", auth)
            #expect(read.status == 200 && read.body.contains("\"total\":1"), "the mark made before: \(read.status) \(read.body.prefix(200))")
            #expect(try daemon.curl("/v1/entries?status=unread", auth).body.contains("\"total\":19"))
            #expect(try daemon.ctl(["status"]).status == 0)
        }
        let added = try daemons[1].ctl(["--user", "alice", "add", server.url("/numbered/0/1")])
        #expect(added.status == 0, "\(added.error)")
        try await eventually(30, "the new feed stored on the new primary") { try query(onStandby, "SELECT count(*) FROM entries") == "40" }
        #expect(try daemons[0].curl("/v1/entries?status=unread", auth).body.contains("\"total\":39"), "one daemon sees what the other stored")
        for daemon in daemons { #expect(daemon.process.isRunning) }
    }

    /// With `database-read` naming a streaming standby, lists come from it, and each account sees its
    /// own writes at once on every daemon even while the standby replays nothing; a standby that
    /// stops leaves the primary answering (docs/RELIABILITY.md, "Reading from standbys").
    @Test func listsComeFromTheStandbyAndAnAccountSeesItsOwnWrites() async throws {
        let directory = try temporaryDirectory()
        chmod(directory.path, 0o755)
        let (primary, standby) = (directory.appendingPathComponent("primary").path, directory.appendingPathComponent("standby").path)
        func cluster(_ arguments: String) throws -> String { try clusterScript(arguments, in: directory) }
        _ = try query(try cluster("start '\(primary)'"), "CREATE DATABASE readside")
        defer {
            _ = try? cluster("stop '\(standby)'")
            _ = try? cluster("stop '\(primary)'")
            try? FileManager.default.removeItem(at: directory)
        }
        _ = try cluster("standby '\(standby)' '\(primary)'")
        let (onPrimary, onStandby) = ("postgresql:///readside?host=\(primary)&user=postgres", "postgresql:///readside?host=\(standby)&user=postgres")
        let server = try FeedTestServer()
        defer { server.stop() }
        var daemons: [ServedDaemon] = []
        defer { for daemon in daemons { daemon.stop() } }
        for name in ["node-a", "node-b"] {
            daemons.append(try await ServedDaemon(extraArguments: ["--node-name", name, "--feed-icons", "false", "--private-networks", "all",
                                                                  "--database-read", onStandby],
                                                  database: onPrimary))
        }
        let alice = ["-H", "X-Auth-Token: \(try daemons[0].createAccount(name: "alice", password: "correct horse battery"))"]
        #expect(try daemons[0].ctl(["user", "add", "bob"], input: "correct horse battery\n").status == 0)
        let bob = ["-H", "X-Auth-Token: \(try daemons[0].ctl(["--user", "bob", "token", "create"]).output.trimmingCharacters(in: .newlines))"]
        for name in ["alice", "bob"] {
            let added = try daemons[0].ctl(["--user", name, "add", server.url("/numbered/0/2")])
            #expect(added.status == 0, "\(added.output) \(added.error)")
        }
        try await eventually(30, "the feed stored") { try query(onPrimary, "SELECT count(*) FROM entries") == "20" }
        let written = try query(onPrimary, "SELECT pg_current_wal_lsn()")
        try await eventually(30, "the standby replayed it") {
            try query(onStandby, "SELECT pg_last_wal_replay_lsn() >= '\(written)'::pg_lsn") == "t"
        }

        for daemon in daemons { _ = try daemon.curl("/v1/entries", bob) }  // as a daemon that has run a while

        // The standby stops replaying: what is written now reaches the primary only.
        _ = try query(onStandby, "SELECT pg_wal_replay_pause()")
        let first = try #require(try query(onPrimary, "SELECT min(id) FROM entries"))
        _ = try query(onPrimary, "UPDATE entries SET title = 'Retitled on the primary' WHERE id = \(first)")
        for daemon in daemons {
            let listed = try daemon.curl("/v1/entries?limit=100", bob)
            #expect(listed.status == 200 && listed.body.contains("\"total\":20") && !listed.body.contains("Retitled"),
                    "bob wrote nothing: the standby answers him, as it was: \(listed.body.prefix(120))")
            let found = try daemon.ctl(["--user", "bob", "search", "item 7"])
            #expect(found.status == 0 && found.output.contains("item 7"), "searches too: \(found.output) \(found.error)")
        }
        #expect(try daemons[0].curl("/v1/entries", alice + ["-X", "PUT", "-d", #"{"entry_ids": [\#(first)], "status": "read"}"#]).status == 204)
        for daemon in daemons {
            let unread = try daemon.curl("/v1/entries?status=unread", alice)
            #expect(unread.body.contains("\"total\":19"), "alice sees her mark on every daemon: \(unread.body.prefix(120))")
            let read = try daemon.curl("/v1/entries?status=read", alice)
            #expect(read.body.contains("Retitled on the primary"), "from the primary: \(read.body.prefix(200))")
        }

        // Replaying again, the standby catches up and answers bob with what the primary holds.
        _ = try query(onStandby, "SELECT pg_wal_replay_resume()")
        try await eventually(30, "bob sees the new title once the standby replayed it") {
            try daemons[1].curl("/v1/entries?limit=100", bob).body.contains("Retitled on the primary")
        }
        // The standby gone, the primary answers every list.
        _ = try cluster("kill '\(standby)'")
        for daemon in daemons {
            let listed = try daemon.curl("/v1/entries?status=unread", alice)
            #expect(listed.status == 200 && listed.body.contains("\"total\":19"), "\(listed.status) \(listed.body.prefix(120))")
            #expect(try daemon.curl("/v1/entries?limit=100", bob).body.contains("Retitled on the primary"))
            #expect(try daemon.curl("/healthcheck").status == 200, "the primary serves everything")
        }
    }
}
