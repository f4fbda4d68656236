import CLibPQ
import Foundation
import Glibc
import Synchronization

/// Hears PostgreSQL's notifications (`LISTEN`) on a connection and a thread of its own, and hands
/// each to `onNotification` as it arrives: how daemons sharing a database tell each other what they
/// stored (docs/ARCHITECTURE.md). When the server goes away it reconnects, waiting longer each time (up to
/// 30 s), listens again and calls `onReconnect`: whatever was sent meanwhile is lost, so listeners
/// read the store again then.
public final class PostgresListener: Sendable {
    public typealias Handler = @Sendable (_ channel: String, _ payload: String) -> Void
    private let uri: String
    private let channels: [String]
    private let isStopped = Atomic<Bool>(false)

    /// Starts listening on `channels` of the database at `uri`, at once and until `stop()`.
    public init(uri: String, channels: [String], onNotification: @escaping Handler,
                onReconnect: @escaping @Sendable () -> Void = {}, onTrouble: @escaping @Sendable (String) -> Void = { _ in }) {
        self.uri = uri
        self.channels = channels
        let thread = Thread { [self] in
            self.listen(onNotification: onNotification, onReconnect: onReconnect, onTrouble: onTrouble)
        }
        thread.name = "pg-listen"
        thread.start()
    }

    /// Ends listening within half a second.
    public func stop() {
        isStopped.store(true, ordering: .relaxed)
    }

    private func listen(onNotification: Handler, onReconnect: @Sendable () -> Void, onTrouble: @Sendable (String) -> Void) {
        var delay = 0.5
        var first = true
        while !isStopped.load(ordering: .relaxed) {
            defer { first = false }  // after a failed first try too: what was sent meanwhile is lost
            guard let connection = connect() else {
                onTrouble("cannot listen for other daemons' events; trying again in \(Int(delay.rounded(.up))) s")
                sleepWhileRunning(delay)
                delay = min(delay * 2, 30)
                continue
            }
            delay = 0.5
            if !first { onReconnect() }
            receive(on: connection, onNotification: onNotification)
            PQfinish(connection)
            if !isStopped.load(ordering: .relaxed) { onTrouble("lost the connection that listens for other daemons' events") }
        }
    }

    /// A connection listening on every channel, or nil when that failed.
    private func connect() -> OpaquePointer? {
        // With every connection's defaults: a connection cut silently (a NAT's timeout, a failover) is
        // noticed by TCP keepalives within a minute, not the kernel's fifteen; a socket ignores them.
        guard let connection = PostgresConnection.connect(uri) else { return nil }
        guard PQstatus(connection) == CONNECTION_OK else {
            PQfinish(connection)
            return nil
        }
        aggregator_pq_silence_notices(connection)
        let listen = channels.map { "LISTEN \($0);" }.joined()
        guard let result = PQexec(connection, listen) else {
            PQfinish(connection)
            return nil
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            PQfinish(connection)
            return nil
        }
        return connection
    }

    /// Waits for notifications and hands them on until the connection fails or `stop()`.
    private func receive(on connection: OpaquePointer, onNotification: Handler) {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        while !isStopped.load(ordering: .relaxed) {
            let ready = poll(&descriptor, 1, 500)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(connection) == 1 else { return }
            while let notification = PQnotifies(connection) {
                let channel = String(cString: notification.pointee.relname)
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                onNotification(channel, payload)
            }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }

    private func sleepWhileRunning(_ seconds: Double) {
        var left = seconds
        while left > 0, !isStopped.load(ordering: .relaxed) {
            usleep(UInt32(min(left, 0.5) * 1_000_000))
            left -= 0.5
        }
    }
}
