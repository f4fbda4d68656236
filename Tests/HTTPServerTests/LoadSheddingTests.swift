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
    /// The servers' workers run here, not on Swift's pool, which other tests may hold (HTTPServerTests' `Echo`).
    private static let executor = ThreadExecutor(name: "load-shedding-server")

    @Test func requestsPastThePendingBoundAreShedAndMonitorsStillAnswered() async throws {
        var limits = HTTPLimits()
        limits.pendingRequests = 2
        limits.queueWait = .seconds(3600)  // those within the bound wait for the gate, however long
        let descriptor = try HTTPListenAddress(host: "127.0.0.1", port: 0).listen()
        let port = try #require(HTTPListenAddress.port(of: descriptor))
        let server = try HTTPServer(descriptor: descriptor, limits: limits, neverShed: { $0 == "/healthcheck" })
        let gate = Gate()  // the one worker holds /slow requests until it opens
        let serving = Task(executorPreference: Self.executor) {
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

    /// A request that waited for a worker past `queueWait` is answered 503 when a worker takes it, not
    /// served: accepted requests' latency stays bounded whatever requests cost. (Read before any
    /// worker runs, so that how soon Swift's pool runs the workers in a busy test run does not matter.)
    @Test func aRequestThatWaitedTooLongForAWorkerIsShedNotServed() async throws {
        var limits = HTTPLimits()
        limits.queueWait = .milliseconds(300)
        let descriptor = try HTTPListenAddress(host: "127.0.0.1", port: 0).listen()
        let port = try #require(HTTPListenAddress.port(of: descriptor))
        let server = try HTTPServer(descriptor: descriptor, limits: limits)
        let waiting = [Task { await Self.get(port, "/first") }, Task { await Self.get(port, "/second") }]
        try await waitUntil { server.waitingRequests == 2 }
        try await Task.sleep(for: .milliseconds(500))
        let served = Atomic<Int>(0)
        let serving = Task(executorPreference: Self.executor) {
            await server.run(workers: 1) { request in
                served.add(1, ordering: .relaxed)
                return .text("done \(request.path)")
            }
        }
        defer { serving.cancel() }
        for request in waiting {
            let answer = await request.value
            #expect(answer.status == 503 && answer.retryAfter == "1", "\(answer)")
        }
        #expect(served.load(ordering: .relaxed) == 0, "the stale requests reached no handler")
        #expect(server.shedRequests == 2)
    }

    /// Connections past a cap get a quick 503, never a close unanswered; the monitors' path is still
    /// served on them; one is served once a place is free; those within the caps are served as ever.
    @Test func connectionsPastTheCapsAreAnswered503AndMonitorsStillServed() async throws {
        var limits = HTTPLimits()
        (limits.connections, limits.connectionsPerAddress) = (3, 2)
        limits.idleTimeoutSeconds = 3600  // the held connections are silent, and a full parallel run is slow
        let descriptor = try HTTPListenAddress(host: "127.0.0.1", port: 0).listen()
        let port = try #require(HTTPListenAddress.port(of: descriptor))
        let server = try HTTPServer(descriptor: descriptor, limits: limits, neverShed: { $0 == "/healthcheck" })
        let serving = Task(executorPreference: Self.executor) { await server.run(workers: 2) { request in .text("done \(request.path)") } }
        defer { serving.cancel() }

        var held = [try Self.connect(port, from: "127.0.0.1"), try Self.connect(port, from: "127.0.0.1")]
        defer { held.forEach { close($0) } }
        try await waitUntil { server.openConnections == 2 }
        let overAddress = await Self.get(port, "/x", from: "127.0.0.1")
        #expect(overAddress.status == 503 && overAddress.retryAfter == "1", "a third from one address: \(overAddress)")
        try await waitUntil { server.openConnections == 2 }
        #expect(await Self.get(port, "/healthcheck", from: "127.0.0.1").status == 200, "the monitors' path past the cap")
        try await waitUntil { server.openConnections == 2 }
        #expect(await Self.get(port, "/x", from: "127.0.0.2").status == 200, "another address, within the total")

        try await waitUntil { server.openConnections == 2 }
        held.append(try Self.connect(port, from: "127.0.0.3"))
        try await waitUntil { server.openConnections == 3 }
        let overTotal = await Self.get(port, "/x", from: "127.0.0.4")
        #expect(overTotal.status == 503 && overTotal.retryAfter == "1", "a fourth in all: \(overTotal)")
        // A fourth kept open: refused while the others are held, served on the same connection once one goes.
        let waiting = try Self.connect(port, from: "127.0.0.5")
        defer { close(waiting) }
        #expect(await Self.exchange(waiting, "/kept") == 503)
        close(held.removeLast())
        try await waitUntil { server.openConnections == 3 }
        #expect(await Self.exchange(waiting, "/kept") == 200)
        #expect(server.shedRequests == 3)
    }

    /// A TCP connection from `source` (a loopback address), held open and silent.
    private static func connect(_ port: UInt16, from source: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        func address(_ host: String, _ port: UInt16) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            return address
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard bound == 0, connected == 0 else { close(descriptor); throw POSIXError(.ECONNREFUSED) }
        return descriptor
    }

    /// The status of one GET on a connection kept open (0: no answer), on a thread of its own.
    private static func exchange(_ descriptor: Int32, _ path: String) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let request = Array("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n".utf8)
                guard write(descriptor, request, request.count) == request.count else { return continuation.resume(returning: 0) }
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                // Headers and the short body arrive together; read until the body's length is in.
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count <= 0 { break }
                    received += buffer[..<count]
                    let text = String(decoding: received, as: UTF8.self)
                    if let end = text.range(of: "\r\n\r\n"),
                       let length = text[..<end.lowerBound].split(separator: "\r\n")
                        .first(where: { $0.lowercased().hasPrefix("content-length:") })
                        .flatMap({ Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }),
                       text.utf8.count - text[..<end.upperBound].utf8.count >= length { break }
                }
                let status = String(decoding: received, as: UTF8.self).split(separator: " ").dropFirst().first.flatMap { Int($0) }
                continuation.resume(returning: status ?? 0)
            }.start()
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
    private static func get(_ port: UInt16, _ path: String, from source: String = "127.0.0.1") async -> (status: Int, retryAfter: String?) {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: blockingGet(port, path, from: source)) }.start()
        }
    }

    private static func blockingGet(_ port: UInt16, _ path: String, from source: String) -> (status: Int, retryAfter: String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // A long limit: in a full parallel run the server's workers may wait long for one of the pool's threads.
        process.arguments = ["-s", "--interface", source, "-m", String(Int(300 * testTimeScale)), "-o", "/dev/null", "-D", "-", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(path)"]
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
