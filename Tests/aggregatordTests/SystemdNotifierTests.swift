@testable import aggregatord
import Foundation
import Glibc
import Synchronization
import Testing

@Suite struct SystemdNotifierTests {
    /// A datagram socket standing in for systemd's NOTIFY_SOCKET, with a short receive timeout.
    private func notifySocket(_ path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private func messages(_ descriptor: Int32) -> [String] {
        var received: [String] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while case let count = recv(descriptor, &buffer, buffer.count, 0), count > 0 {
            received.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        return received
    }

    @Test func slowStartUpWorkAsksForMoreTimeUntilItIsDone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString)").path
        defer { unlink(path) }
        let descriptor = notifySocket(path)
        defer { close(descriptor) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        let reminders = Mutex(0)

        let result = notifier.extendingStartTimeout(every: .milliseconds(50), stillRunning: { reminders.withLock { $0 += 1 } }) {
            Thread.sleep(forTimeInterval: 0.3)
            return 42
        }
        #expect(result == 42)
        let sent = messages(descriptor)
        #expect(sent.count >= 3 && sent.allSatisfy { $0 == "EXTEND_TIMEOUT_USEC=150000" }, "\(sent)")
        #expect(reminders.withLock { $0 } == sent.count)

        // Quick work sends nothing, and after the work is done nothing more comes.
        _ = notifier.extendingStartTimeout(every: .milliseconds(50), stillRunning: {}) { 1 }
        Thread.sleep(forTimeInterval: 0.15)
        #expect(messages(descriptor).isEmpty)
    }
}
