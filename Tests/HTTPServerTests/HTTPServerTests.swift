import Foundation
import Glibc
@testable import HTTPServer
import TestSupport
import Testing

/// The HTTP server alone, answered by a handler that echoes what it was given, driven by curl.
@Suite struct HTTPServerTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("[::1]:80", "::1", 80), ("0.0.0.0:1", "0.0.0.0", 1),
    ])
    func listenAddressesAreNumeric(text: String, host: String, port: Int) throws {
        let address = try #require(HTTPListenAddress(text))
        #expect(address.host == host && Int(address.port) == port)
        #expect(address.description == text)
    }

    @Test(arguments: ["localhost:8080", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "::1:80", "[::1]80", "", "none"])
    func otherListenTextsAreRefused(text: String) {
        #expect(HTTPListenAddress(text) == nil)
    }

    /// A server on a free loopback port, echoing each request as `METHOD PATH | query | header | bytes`.
    final class Echo: Sendable {
        static let executor = ThreadExecutor(name: "echo-server")
        let server: HTTPServer
        let port: UInt16

        init(limits: HTTPLimits = HTTPLimits()) throws {
            let descriptor = try HTTPListenAddress(host: "127.0.0.1", port: 0).listen()
            port = try #require(HTTPListenAddress.port(of: descriptor))
            server = try HTTPServer(descriptor: descriptor, limits: limits)
        }

        /// Runs `body` while the server answers, then stops it.
        func serving(_ body: () async throws -> Void) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Its workers on a thread of their own: a starved pool would leave curl unanswered.
                group.addTask(executorPreference: Echo.executor) {
                    await self.server.run { request in
                        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
                        return .text("\(request.method) \(request.path) | \(query) | \(request.headers["x-test"] ?? "-") | "
                            + "\(request.body.count) | \(request.clientAddress)")
                    }
                }
                try await body()
                group.cancelAll()
            }
        }

        /// curl's status code and body for `path`, with `arguments` added. curl runs on a thread of its
        /// own, so that the pool stays free to answer it.
        func curl(_ path: String, _ arguments: [String] = []) async throws -> (status: Int, body: String) {
            let port = self.port
            let text = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                Thread {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    // A long limit: in a full parallel test run the handler may wait seconds for a thread
                    // (minutes in a sanitized build on a loaded machine).
                    let limit = String(Int(60 * testTimeScale))
                    process.arguments = ["-s", "-m", limit, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"]
                        + arguments
                    let output = Pipe()
                    process.standardOutput = output
                    do {
                        try process.run()
                        let data = output.fileHandleForReading.readDataToEndOfFile()
                        process.waitUntilExit()
                        continuation.resume(returning: String(decoding: data, as: UTF8.self))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
    }

    @Test func requestsArriveDecodedWithTheirHeadersAndBody() async throws {
        let echo = try Echo()
        try await echo.serving {
            let get = try await echo.curl("/stream/contents/feed%2F42?n=20&c=a%20b", ["-H", "X-Test: yes"])
            #expect(get.status == 200)
            #expect(get.body == "GET /stream/contents/feed/42 | n=20&c=a b | yes | 0 | 127.0.0.1")
            let post = try await echo.curl("/form", ["--data-binary", String(repeating: "x", count: 10_000)])
            #expect(post.body == "POST /form |  | - | 10000 | 127.0.0.1")
        }
    }

    @Test func aBodyOverTheLimitIsRefusedAndTheServerGoesOn() async throws {
        var limits = HTTPLimits()
        limits.bodyBytes = 64 << 10
        let echo = try Echo(limits: limits)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("http-body-\(UUID().uuidString)")
        try Data(repeating: 0x61, count: 1 << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await echo.serving {
            #expect(try await echo.curl("/upload", ["--data-binary", "@" + file.path]).status == 413)
            // Chunked, so not declared: read to its end (within four times the limit) and refused.
            let chunked = try await echo.curl("/upload", ["--data-binary", "@" + file.path,
                                                          "-H", "Transfer-Encoding: chunked"])
            #expect(chunked.status == 413 || chunked.status == 0, "refused: answered, or cut off past 4x the limit")
            let small = try await echo.curl("/upload", ["--data-binary", String(repeating: "y", count: 100_000),
                                                        "-H", "Transfer-Encoding: chunked"])
            #expect(small.status == 413)
            #expect(try await echo.curl("/after").status == 200)
        }
    }

    @Test func aSilentClientHoldsUpNoOneAndStoppingClosesTheServer() async throws {
        let echo = try Echo()
        try await echo.serving {
            // Connected, and never a byte: it has a thread of its own (and times out), others are served.
            let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(silent) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = echo.port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            let answered = try await echo.curl("/while-silent")
            #expect(answered.status == 200)
        }
        // `serving` cancelled `run`, which stopped the server.
        #expect(try await echo.curl("/after-stop").status == 0, "nothing listens once stopped")
    }

    @Test func requestsWaitingWhenTheServerStopsAreAnswered503() async throws {
        let echo = try Echo()  // never run: requests wait
        async let waiting = echo.curl("/waits")
        let deadline = Date().addingTimeInterval(60)
        while echo.server.waitingRequests == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(echo.server.waitingRequests == 1, "the request was read and waits for `run`")
        echo.server.stop()
        #expect(try await waiting.status == 503)
    }
}
