import Foundation
import Glibc
@testable import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Load shedding (docs/RELIABILITY.md, "Load"): past `pendingRequests` waiting for a worker, a request
/// is answered 503 with Retry-After at once instead of queueing without bound; the monitors' paths
/// are never shed and have workers of their own, so they are answered while every other worker is busy.
@Suite struct LoadSheddingTests {
    @Test func requestsPastThePendingBoundAreShedAndMonitorsStillAnswered() async throws {
        var limits = HTTPLimits()
        limits.pendingRequests = 2
        let descriptor = try HTTPListenAddress(host: "127.0.0.1", port: 0).listen()
        let port = try #require(HTTPListenAddress.port(of: descriptor))
        let server = try HTTPServer(descriptor: descriptor, limits: limits, neverShed: { $0 == "/healthcheck" })
        let gate = Gate()  // the one worker holds /slow requests until it opens
        let serving = Task {
            await server.run(workers: 1) { request in
                if request.path == "/slow" {
                    gate.entered.add(1, ordering: .relaxed)
                    while !gate.isOpen.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(10)) }
                }
                return .text("done \(request.path)")
            }
        }
        defer { serving.cancel() }

        // One /slow request takes the worker, two wait: the bound. Those after are shed.
        var slow: [Task<(status: Int, retryAfter: String?), Never>] = []
        for index in 0..<6 {
            slow.append(Task { await Self.get(port, "/slow") })
            // The first taken by the worker (not merely read: it would count as waiting), then two waiting.
            if index == 0 { try await waitUntil { gate.entered.load(ordering: .relaxed) == 1 } }
            if index < 3 { try await waitUntil { server.waitingRequests >= index + 1 } }
        }
        // Shed at once: answered while the worker is still held.
        var shed = 0
        for task in slow[3...] {
            let answer = await task.value
            #expect(answer.status == 503 && answer.retryAfter == "1", "\(answer)")
            if answer.status == 503 { shed += 1 }
        }
        #expect(shed == 3)
        let health = await Self.get(port, "/healthcheck")
        #expect(health.status == 200, "the monitors' path is answered while every other worker is busy")
        gate.isOpen.store(true, ordering: .relaxed)
        for task in slow[..<3] {
            let answer = await task.value
            #expect(answer.status == 200, "those within the bound are answered: \(answer)")
        }
    }

    private final class Gate: Sendable {
        let isOpen = Atomic<Bool>(false)
        let entered = Atomic<Int>(0)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<6000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }

    /// The status and Retry-After of a GET, by curl on a thread of its own (never the pool's, which
    /// the server's workers and every other test need).
    private static func get(_ port: UInt16, _ path: String) async -> (status: Int, retryAfter: String?) {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: blockingGet(port, path)) }.start()
        }
    }

    private static func blockingGet(_ port: UInt16, _ path: String) -> (status: Int, retryAfter: String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // A long limit: in a full parallel run the server's workers may wait long for one of the pool's threads.
        process.arguments = ["-s", "-m", String(Int(300 * testTimeScale)), "-o", "/dev/null", "-D", "-", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(path)"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return (0, nil) }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let retry = lines.first { $0.lowercased().hasPrefix("retry-after:") }.map { $0.dropFirst(12).trimmingCharacters(in: .whitespaces) }
        return (Int(text.suffix(3)) ?? 0, retry)
    }
}
