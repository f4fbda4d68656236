import Foundation
import Glibc

/// Tells systemd about the daemon's state over `NOTIFY_SOCKET` (sd_notify(3)): READY=1, STATUS=…,
/// WATCHDOG=1, RELOADING=1, STOPPING=1. Does nothing when the variable is not set (not started by systemd).
struct SystemdNotifier: Sendable {
    private let path: String?

    init(environment: [String: String]) {
        path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var isActive: Bool { path != nil }

    /// How often to send WATCHDOG=1: half of `WATCHDOG_USEC`, when systemd asks for it (for this process).
    static func watchdogInterval(environment: [String: String]) -> Duration? {
        guard let microseconds = environment["WATCHDOG_USEC"].flatMap(UInt64.init), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"].flatMap(Int32.init), pid != getpid() { return nil }
        return .microseconds(Int64(microseconds / 2))
    }

    func ready() { send("READY=1") }
    /// A configuration reload begins; READY=1 ends it. MONOTONIC_USEC lets systemd match the two.
    func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        send("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000)")
    }
    func stopping() { send("STOPPING=1") }
    func watchdog() { send("WATCHDOG=1") }
    func status(_ text: String) { send("STATUS=" + text.replacingOccurrences(of: "\n", with: " ")) }

    /// Runs `body` (start-up work of unknown length, such as a schema migration of a large database)
    /// and, every `interval` until it returns, asks systemd for `interval` × 3 more start-up time and
    /// calls `stillRunning`, so a long migration is neither killed by the start timeout nor silent.
    func extendingStartTimeout<T>(every interval: Duration = .seconds(10), stillRunning: @escaping @Sendable () -> Void,
                                  _ body: () throws -> T) rethrows -> T {
        let done = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let microseconds = interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000
        let thread = Thread { [self] in
            while done.wait(timeout: .now() + .microseconds(Int(microseconds))) == .timedOut {
                send("EXTEND_TIMEOUT_USEC=\(microseconds * 3)")
                stillRunning()
            }
            finished.signal()
        }
        thread.start()
        defer {
            done.signal()
            finished.wait()
        }
        return try body()
    }

    private func send(_ message: String) {
        guard let path else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // an abstract socket address
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                message.withCString { sendto(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL), raw, length) }
            }
        }
    }
}
