import Foundation
import Glibc
import TestSupport
import Testing

/// Plays systemd's side of NOTIFY_SOCKET: a datagram socket the daemon reports its state to.
@Suite struct SystemdNotifyTests {
    let daemon = Binary("aggregatord")

    /// Binds a datagram socket at `path` with a receive timeout.
    private func notifySocket(_ path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = unixAddress(path)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private func receive(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    private func canConnect(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = unixAddress(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    @Test func readyWatchdogStatusReloadingAndStopping() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notifyPath = directory.appendingPathComponent("notify").path
        let control = directory.appendingPathComponent("ctl.sock").path
        let notify = notifySocket(notifyPath)
        defer { close(notify) }
        let process = try daemon.start(
            ["--database", directory.appendingPathComponent("a.db").path, "--socket", control, "--seed-opml", ""],
            logFile: directory.appendingPathComponent("log"),
            environment: ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "1000000"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }  // a failed check leaves none running

        var messages: [String] = []
        let deadline = Date().addingTimeInterval(15)
        var readyAndConnectable = false
        while Date() < deadline, !(messages.contains("WATCHDOG=1") && messages.contains { $0.hasPrefix("STATUS=") }) {
            guard let message = receive(notify) else { continue }
            if message == "READY=1" { readyAndConnectable = canConnect(control) }
            messages.append(message)
        }
        #expect(messages.first == "READY=1")
        #expect(readyAndConnectable, "READY=1 must come only once the control socket accepts connections")
        #expect(messages.contains("WATCHDOG=1"))
        #expect(messages.contains { $0.hasPrefix("STATUS=") })

        // A reload is bracketed by RELOADING=1 (with the monotonic time systemd matches it by) and READY=1.
        kill(process.processIdentifier, SIGHUP)
        var reloadMessages: [String] = []
        let reloadDeadline = Date().addingTimeInterval(10)
        while Date() < reloadDeadline, !reloadMessages.contains("READY=1") {
            if let message = receive(notify), message != "WATCHDOG=1" { reloadMessages.append(message) }
        }
        #expect(reloadMessages.first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        #expect(reloadMessages.last == "READY=1")

        // The moment of exit is taken by Foundation's own thread: in a loaded full run this test's
        // task can wait seconds for a thread of its own, which once made a quick stop look slow.
        let exit = ExitMoment()
        process.terminationHandler = { _ in exit.mark() }
        let stopped = Date()
        kill(process.processIdentifier, SIGTERM)
        var stopping = false
        while Date().timeIntervalSince(stopped) < 10, !stopping {
            stopping = receive(notify) == "STOPPING=1"
        }
        #expect(stopping)
        #expect(try await waitForExit(process) == 0)
        let exitedAt = try #require(await exit.moment(), "the termination handler never ran")
        // Well inside the unit's TimeoutStopSec=15s; the daemon's own log says where a slow stop went.
        #expect(exitedAt.timeIntervalSince(stopped) < 10,
                "\((try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? "")")
    }
}

/// When a process ended, as seen by its termination handler.
private final class ExitMoment: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date?  // guarded by `lock`

    func mark() { lock.withLock { date = Date() } }

    /// The moment, waiting up to five seconds for the handler (it runs just after the exit is seen).
    func moment() async -> Date? {
        for _ in 0..<250 {
            if let date = lock.withLock({ date }) { return date }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
