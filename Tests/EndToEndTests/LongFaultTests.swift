import Foundation
import Glibc
import TestSupport
import Testing

/// The fault cases that take minutes (docs/RELIABILITY.md): run by `make faults`, which sets
/// AGGREGATOR_LONG_FAULTS=1 and runs them on SQLite and on a PostgreSQL test cluster; `make test`
/// runs the fast ones only.
enum LongFaults {
    static let isOn = ProcessInfo.processInfo.environment["AGGREGATOR_LONG_FAULTS"] == "1"
}

@Suite(.enabled(if: LongFaults.isOn, "a long fault case: make faults"), .serialized)
struct LongFaultTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// 500 API clients at once (bench/overload.py, from four loopback addresses) against a daemon
    /// doing a refresh round: accepted requests are answered within 2 s (p99), the rest get 503 with
    /// Retry-After, no connection is closed unanswered, `/healthcheck` answers every probe within a
    /// second, and the round ends as on a quiet daemon.
    @Test func fiveHundredClientsGetBoundedAnswersWhileARoundGoesOn() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--feed-icons", "false"])
        defer { daemon.stop() }
        let token = try daemon.createAccount(name: "alice", password: "correct horse battery")
        for feed in 0..<20 { #expect(try daemon.ctl(["--user", "alice", "add", server.url("/numbered/0/\(feed)")]).status == 0) }
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)

        let probes = Probes(url: daemon.baseURL + "/healthcheck")
        probes.start()
        async let round = Binary("aggregatorctl").runInBackground(
            ["--socket", daemon.socketPath, "refresh", "--wait"])
        let started = Date()
        let load = try await Binary(url: URL(fileURLWithPath: "/usr/bin/env")).runInBackground([
            "python3", Self.repository.appendingPathComponent("bench/overload.py").path, String(daemon.port), token,
            "/v1/entries?status=unread&limit=20", "closed", "500", "20", "4",
        ])
        let roundSeconds = Date().timeIntervalSince(started)
        #expect(try await round.status == 0)
        let (failed, total) = probes.stop()
        print("500 clients: \(load.output.trimmingCharacters(in: .whitespacesAndNewlines)); /healthcheck failed \(failed) of \(total)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(load.output.utf8)) as? [String: Any], "\(load.error)")
        #expect((result["p99_ms"] as? Double ?? .infinity) <= 2000, "p99 of accepted requests")
        #expect(result["dropped"] as? Int == 0, "no connection closed unanswered")
        #expect(result["other"] as? Int == 0, "nothing but 2xx and 503")
        #expect((result["accepted_per_second"] as? Int ?? 0) > 0)
        #expect(failed == 0, "/healthcheck answered every probe within a second")
        #expect(roundSeconds < 60, "the round ended during the load")
        let metrics = try daemon.curl("/metrics").body
        // `aggregatord_http_requests_shed_total N`, with `{node="…"}` on PostgreSQL.
        let shed = metrics.split(separator: "\n").first { $0.hasPrefix("aggregatord_http_requests_shed_total") }
        #expect(shed.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } } ?? 0 > 0, "the 503s are counted: \(String(describing: shed))")
        #expect(daemon.process.isRunning)
    }

    /// A lock held elsewhere for three minutes at the default `db-lock-timeout` (10 s): every request
    /// meanwhile is answered "database busy" within the timeout and a margin, never after the lock,
    /// and once it goes everything works again.
    @Test(.enabled(if: TestPostgres.isOn, "PostgreSQL's locks"))
    func aLockHeldForMinutesHoldsNoRequestPastTheLockTimeout() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try TestPostgres.freshDatabase()
        let daemon = try await ServedDaemon(extraArguments: ["--feed-icons", "false"], database: database)
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount(name: "alice", password: "correct horse battery"))"]
        #expect(try daemon.ctl(["--user", "alice", "add", server.url("/numbered/0/1")]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
        let psql = Binary(url: URL(fileURLWithPath: "/usr/bin/psql"))
        let holder = try psql.start(["-qX", database, "-c", "BEGIN; LOCK TABLE entry_state IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(180); COMMIT;"],
                                    logFile: directory.appendingPathComponent("psql.log"))
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let locked = Date()
        try await Task.sleep(for: .seconds(1))
        var asked = 0
        while Date().timeIntervalSince(locked) < 170 {
            let start = Date()
            let busy = try daemon.curl("/v1/entries", auth)
            #expect(busy.status == 503 && busy.headers["retry-after"] != nil, "\(busy.status) \(busy.body)")
            #expect(Date().timeIntervalSince(start) < 15, "answered within db-lock-timeout (10 s) and a margin")
            #expect(try daemon.curl("/healthcheck").status == 200)
            asked += 1
            try await Task.sleep(for: .seconds(5))
        }
        #expect(asked >= 8)
        while holder.isRunning { try await Task.sleep(for: .milliseconds(200)) }  // the lock ends with its transaction
        #expect(try daemon.curl("/v1/entries", auth).status == 200)
        #expect(try daemon.ctl(["articles"]).status == 0)
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)
    }
}

/// `/healthcheck` asked every half second with a one-second limit, on a thread of its own.
private final class Probes: @unchecked Sendable {
    private let url: String
    private let lock = NSLock()
    private var failed = 0, total = 0, running = true

    init(url: String) { self.url = url }

    func start() {
        Thread {
            while self.lock.withLock({ self.running }) {
                let probe = try? Binary(url: URL(fileURLWithPath: "/usr/bin/curl")).run(["-sf", "-m", "1", "-o", "/dev/null", self.url])
                self.lock.withLock {
                    self.total += 1
                    if probe?.status != 0 { self.failed += 1 }
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }.start()
    }

    func stop() -> (failed: Int, total: Int) {
        lock.withLock {
            running = false
            return (failed, total)
        }
    }
}
