import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's HTTP server, on `--http-listen`, driven by curl.
@Suite struct HTTPFrontEndTests {
    let daemon = Binary("aggregatord")

    private func curl(_ url: String, _ arguments: [String] = []) throws -> (status: Int, body: String) {
        let result = try Binary(url: URL(fileURLWithPath: "/usr/bin/curl"))
            .run(["-s", "-m", "10", "-w", "\n%{http_code}", url] + arguments)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    private func arguments(in directory: URL, listen: String) throws -> [String] {
        ["--database", try testDatabase(in: directory),
         "--socket", directory.appendingPathComponent("ctl.sock").path, "--seed-opml", "", "--http-listen", listen]
    }

    @Test func healthcheckAnswersOKAndEverythingElseIsAClearError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try ServedDaemon.freePort()
        let log = directory.appendingPathComponent("daemon.log")
        let process = try daemon.start(arguments(in: directory, listen: "127.0.0.1:\(port)"), logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try await waitFor("msg=Started", in: log)
        let started = try String(contentsOf: log, encoding: .utf8)
        #expect(started.contains("http://127.0.0.1:\(port)/healthcheck") && started.contains("web_page=http://127.0.0.1:\(port)/"))

        let base = "http://127.0.0.1:\(port)"
        let health = try curl(base + "/healthcheck")
        #expect(health.status == 200 && health.body == "OK")
        let unknown = try curl(base + "/nothing/here")
        // Paths of no API are the web page's: a page saying so.
        #expect(unknown.status == 404 && unknown.body.contains("<h1>Not found</h1>"))
        #expect(try curl(base + "/healthcheck", ["-X", "POST"]).status == 405)

        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)
        #expect(try curl(base + "/healthcheck").status == 0, "the daemon stopped its HTTP server")
    }

    /// After a round over one good and one failing feed, `/metrics` counts them, the entries and the
    /// requests answered; every sample line is well formed.
    @Test func metricsCountFeedsEntriesFetchesAndRequests() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seed = try writeSeedOPML([("Good", server.url("/feed.xml")), ("Broken", server.url("/status/500"))],
                                     in: directory)
        let port = try ServedDaemon.freePort()
        var arguments = try arguments(in: directory, listen: "127.0.0.1:\(port)")
        arguments[arguments.firstIndex(of: "--seed-opml")! + 1] = seed.path
        let log = directory.appendingPathComponent("daemon.log")
        let process = try daemon.start(arguments, logFile: log)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try await waitFor("msg=\"Refresh round done\"", in: log)
        let base = "http://127.0.0.1:\(port)"
        #expect(try curl(base + "/healthcheck").status == 200)
        let metrics = try curl(base + "/metrics")
        #expect(metrics.status == 200)
        for expected in ["aggregatord_feeds{status=\"ok\"} 1", "aggregatord_feeds{status=\"failing\"} 1",
                         "aggregatord_entries 1", "aggregatord_unread_entries 1",
                         "aggregatord_fetches_total{result=\"ok\"} 1", "aggregatord_fetches_total{result=\"failed\"} 1",
                         "aggregatord_new_entries_total 1", "aggregatord_round_duration_seconds_count 1",
                         "aggregatord_http_requests_total{route=\"/healthcheck\",status=\"200\"} 1"] {
            // On PostgreSQL each sample names its daemon too (`node="…"`, docs/ARCHITECTURE.md): compared without it.
            let samples = metrics.body.split(separator: "\n").map {
                $0.replacing(/node="[^"]*",?/, with: "").replacing("{}", with: "")
            }
            #expect(samples.contains(Substring(expected)), "\(expected)\n\(metrics.body)")
        }
        let malformed = metrics.body.split(separator: "\n").filter {
            !$0.hasPrefix("# HELP ") && !$0.hasPrefix("# TYPE ") && $0.wholeMatch(of: /[a-z_]+(\{[^}]*\})? [0-9.]+/) == nil
        }
        #expect(malformed.isEmpty, "\(malformed)")
        kill(process.processIdentifier, SIGTERM)
        #expect(try await waitForExit(process) == 0)
    }

    @Test func aBadAddressOrAPortInUseStopsTheStartWithAClearMessage() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = try daemon.start(arguments(in: directory, listen: "localhost:80"),
                                   logFile: directory.appendingPathComponent("bad.log"))
        #expect(try await waitForExit(bad) == 1)
        let badLog = try String(contentsOf: directory.appendingPathComponent("bad.log"), encoding: .utf8)
        #expect(badLog.contains("http-listen") && badLog.contains("numeric address"))

        let (taken, port) = try ServedDaemon.listeningSocket()
        defer { close(taken) }
        let busy = try daemon.start(arguments(in: directory, listen: "127.0.0.1:\(port)"),
                                    logFile: directory.appendingPathComponent("busy.log"))
        #expect(try await waitForExit(busy) == 1)
        let busyLog = try String(contentsOf: directory.appendingPathComponent("busy.log"), encoding: .utf8)
        #expect(busyLog.contains("cannot listen for HTTP on 127.0.0.1:\(port): Address already in use"))
    }
}
