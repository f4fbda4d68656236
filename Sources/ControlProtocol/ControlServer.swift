import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Lets a method handler send notifications (e.g. `refresh.progress`) before its result.
public struct ControlNotifier: Sendable {
    let send: @Sendable (JSONRPCMessage) -> Void
    let disconnected: @Sendable () async -> Void

    /// Returns once the client has closed its end (or the calling task is cancelled): long-running
    /// methods (`events.subscribe`) stop then.
    public func waitUntilDisconnected() async {
        await disconnected()
    }

    public func notify(_ notification: ControlNotification, _ params: JSONValue) {
        send(.notification(method: notification.rawValue, params: params))
    }
}

/// Serves JSON-RPC 2.0 over a listening Unix socket, one object per line.
///
/// Sockets are read by plain threads, never on the cooperative pool, so a slow or silent client
/// cannot stall the scheduler or the store; handlers run as child tasks of `run`.
public final class ControlServer: Sendable {
    public typealias Handler = @Sendable (JSONRPCRequest, ControlNotifier) async -> Result<JSONValue, JSONRPCError>

    private let descriptor: Int32
    private let maximumConnections: Int
    private let idleTimeout: Duration
    private let maximumLineLength: Int
    private let isAllowed: @Sendable (uid_t) -> Bool
    private let active = Mutex(0)

    /// - Parameters:
    ///   - descriptor: a listening socket (from `UnixSocket.listen` or systemd's `LISTEN_FDS`).
    ///   - isAllowed: whether a peer with this user id may talk to the daemon (SO_PEERCRED).
    public init(descriptor: Int32, maximumConnections: Int = 64, idleTimeout: Duration = .seconds(60),
                maximumLineLength: Int = 1 << 20, isAllowed: @escaping @Sendable (uid_t) -> Bool) {
        self.descriptor = descriptor
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.maximumLineLength = maximumLineLength
        self.isAllowed = isAllowed
    }

    /// Accepts and serves connections until the calling task is cancelled; then closes the socket.
    public func run(_ handler: @escaping Handler) async {
        let (connections, continuation) = AsyncStream<Int32>.makeStream()
        let listening = descriptor
        startDetachedThread {
            while true {
                let connection = accept(listening, nil, nil)
                if connection >= 0 {
                    _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                    continuation.yield(connection)
                } else if errno != EINTR && errno != ECONNABORTED && errno != EMFILE && errno != ENFILE {
                    break  // shut down: the server is stopping
                } else if errno == EMFILE || errno == ENFILE {
                    usleep(100_000)  // out of descriptors: let connections finish before accepting more
                }
            }
            continuation.finish()
        }
        await withTaskCancellationHandler {
            // Discarding: a plain task group keeps every finished child until it is awaited, and a
            // connection's task (its frames, ~8 KB) would stay for the daemon's life (the soak's
            // daemon grew by a megabyte a minute: heaptrack, docs/RELIABILITY.md).
            await withDiscardingTaskGroup { group in
                for await connection in connections {
                    let admitted = active.withLock { count -> Bool in
                        guard count < maximumConnections else { return false }
                        count += 1
                        return true
                    }
                    guard admitted else {
                        UnixSocket.writeAll(connection, JSONRPCMessage.error(
                            id: .null, .busy("too many connections (\(maximumConnections)); try again")).encoded + Data([0x0A]))
                        close(connection)
                        continue
                    }
                    group.addTask {
                        await self.serve(Connection(descriptor: connection), handler)
                        self.active.withLock { $0 -= 1 }
                    }
                }
                group.cancelAll()
            }
        } onCancel: {
            shutdown(listening, Int32(SHUT_RDWR))
        }
        close(descriptor)
    }

    private enum LineEvent: Sendable {
        case line(Data)
        case tooLong
    }

    private func serve(_ connection: Connection, _ handler: @escaping Handler) async {
        defer { connection.finishWriting() }
        if let user = UnixSocket.peerUserID(connection.descriptor), !isAllowed(user) {
            connection.write(.error(id: .null, .failed("permission denied: uid \(user) may not use this daemon")))
            return
        }
        UnixSocket.setTimeouts(connection.descriptor, receive: idleTimeout, send: .seconds(10))
        let (lines, continuation) = AsyncStream<LineEvent>.makeStream()
        let limit = maximumLineLength
        startDetachedThread {
            var framer = LineFramer(maximumLineLength: limit)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            reading: while true {
                let count = recv(connection.descriptor, &buffer, buffer.count, 0)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }  // closed, idle timeout, or shut down by the writer
                do {
                    for line in try framer.append(Data(buffer[0..<count])) { continuation.yield(.line(line)) }
                } catch {
                    continuation.yield(.tooLong)
                    break reading
                }
            }
            continuation.finish()
            connection.finishReading()
        }
        for await event in lines {
            switch event {
            case .tooLong:
                connection.write(.error(id: .null, .invalidRequest("line longer than \(limit) bytes")))
                return
            case .line(let line):
                guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
                switch JSONRPCRequest.parse(line) {
                case .failure(let error):
                    connection.write(.error(id: .null, error))
                case .success(let request):
                    let notifier = ControlNotifier(send: { connection.write($0) },
                                                   disconnected: { await connection.readingEnded.wait() })
                    let result = await handler(request, notifier)
                    guard let id = request.id else { continue }  // a notification gets no answer
                    switch result {
                    case .success(let value): connection.write(.result(id: id, value))
                    case .failure(let error): connection.write(.error(id: id, error))
                    }
                }
            }
        }
    }
}

/// One client connection. The descriptor is closed only when both the reading thread and the
/// serving task are done with it, so its number is never reused under either of them.
///
/// Writes go out in order on a serial queue of the connection's own: a client slow to read blocks
/// that queue's thread (up to the socket's send timeout), never a thread of Swift's cooperative
/// pool. What waits to be written is bounded: a client that lets more pile up is disconnected.
private final class Connection: Sendable {
    let descriptor: Int32
    private let state = Mutex((reading: true, writing: true))
    private let writes = DispatchQueue(label: "control-connection-writes")
    /// Bytes handed to `writes` and not yet written.
    private let pending = Mutex(0)
    static let maximumPendingBytes = 32 << 20

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    func write(_ message: JSONRPCMessage) {
        let bytes = message.encoded + Data([0x0A])
        let accepted = pending.withLock { pending -> Bool in
            guard pending + bytes.count <= Self.maximumPendingBytes else { return false }
            pending += bytes.count
            return true
        }
        guard accepted else {
            shutdown(descriptor, Int32(SHUT_RDWR))  // not reading what it asked for: ends the reader too
            return
        }
        writes.async { [self] in
            _ = UnixSocket.writeAll(descriptor, bytes)
            pending.withLock { $0 -= bytes.count }
        }
    }

    /// Opens when the client's side closes.
    let readingEnded = Latch()

    func finishReading() {
        let closeNow = state.withLock { state -> Bool in
            state.reading = false
            return !state.writing
        }
        readingEnded.open()
        if closeNow { close(descriptor) }
    }

    /// After everything written before it has gone out: wakes the reading thread if it still waits
    /// for input, and closes the descriptor if that thread is done too.
    func finishWriting() {
        writes.async { [self] in
            shutdown(descriptor, Int32(SHUT_RDWR))
            let closeNow = state.withLock { state -> Bool in
                state.writing = false
                return !state.reading
            }
            if closeNow { close(descriptor) }
        }
    }
}
