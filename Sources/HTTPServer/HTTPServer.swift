import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// Bounds on what clients may make the server do.
public struct HTTPLimits: Sendable, Equatable {
    /// Connections served at once, in all and from one address. A connection opened past a cap is
    /// answered 503 with `Retry-After: 1` (the monitors' paths are still served on it) until a place
    /// is free; past twice a cap libmicrohttpd closes it unanswered.
    public var connections: UInt32 = 256
    public var connectionsPerAddress: UInt32 = 64
    /// A connection that sends nothing for this long is closed (slow or silent clients).
    public var idleTimeoutSeconds: UInt32 = 30
    /// Memory a connection may use for its request line and headers.
    public var headerBytes = 64 << 10
    /// The largest request body read; a larger one is answered 413 and the connection closed.
    public var bodyBytes = 1 << 20
    /// Requests read and waiting for a worker beyond which another is answered 503 with
    /// `Retry-After: 1` at once (load shedding: latency stays bounded rather than grow with the
    /// queue). Requests for `HTTPServer`'s `neverShed` paths are never shed.
    public var pendingRequests = 256
    /// A request that waited this long for a worker, taken while at least half as many requests as
    /// there are workers still wait (a backlog, not one slow moment), is answered 503 with
    /// `Retry-After: 1`, not served: whatever requests cost (a slower database, a larger store), an
    /// accepted one is answered within about this and its own time. Not for `neverShed` paths.
    public var queueWait = Duration.seconds(1)

    public init() {}
}

/// An HTTP/1.1 server on libmicrohttpd that knows nothing of feeds: it reads requests within
/// `HTTPLimits` on the library's own threads (one a connection, never Swift's cooperative pool),
/// and `run`'s worker tasks (children of the caller's task) answer each with an async handler; the
/// connection's thread waits for the response and sends it.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// A route's own body limit, read from the request line before any body arrives: its largest
    /// body, and the answer to one larger (sent with `Connection: close`). Nil: `HTTPLimits.bodyBytes`.
    public typealias BodyLimit = @Sendable (_ method: String, _ path: String) -> (bytes: Int, refusal: HTTPResponse)?

    private let limits: HTTPLimits
    private let bodyLimit: BodyLimit
    /// Paths answered however loaded the server is (`/healthcheck`, `/metrics`): never shed, and
    /// answered by workers of their own, never waiting behind the others.
    private let neverShed: @Sendable (_ path: String) -> Bool
    /// Requests for `neverShed` paths, and the workers kept for them.
    private let priorityQueue = RequestQueue()
    private static let priorityWorkers = 2
    /// The running daemon's address (libmicrohttpd's opaque pointer, which is not Sendable), 0 once stopped.
    private let daemon = Mutex<UInt>(0)
    /// Requests read, waiting for one of `run`'s workers.
    private let queue = RequestQueue()
    /// Requests handed to `run` and not answered yet: `stop()` answers them 503, so that no
    /// connection's thread waits forever.
    private let unanswered = Mutex<[ObjectIdentifier: PendingRequest]>([:])
    /// Requests begun and not completed (their response not yet sent): `stop()` lets them finish.
    private let inProgress = Mutex(0)
    /// Connections open, and those holding a place within the caps.
    private let open = Mutex(Admissions())
    /// Requests answered 503 because the server was busy (pending bound or connection caps).
    private let shedCount = Atomic<Int>(0)

    /// Listens on `descriptor`, a listening TCP socket (see `HTTPListenAddress.listen`, or one systemd
    /// passed); requests wait for `run`. The server owns the socket from now on.
    /// - Throws: `HTTPServerError.cannotStart` when libmicrohttpd refuses to start.
    public init(descriptor: Int32, limits: HTTPLimits = HTTPLimits(), bodyLimit: @escaping BodyLimit = { _, _ in nil },
                neverShed: @escaping @Sendable (_ path: String) -> Bool = { _ in false }) throws(HTTPServerError) {
        self.limits = limits
        self.bodyLimit = bodyLimit
        self.neverShed = neverShed
        let context = Unmanaged.passUnretained(self).toOpaque()
        // libmicrohttpd's own caps, past which it closes a connection unanswered, are twice ours: the
        // connections between answer 503 at once (or serve the monitors' paths), see `notify`.
        guard let started = aggregator_mhd_start(descriptor, Self.access, context, Self.completed, Self.notify,
                                                 Self.hardCap(limits.connections),
                                                 Self.hardCap(limits.connectionsPerAddress), limits.idleTimeoutSeconds,
                                                 limits.headerBytes) else {
            close(descriptor)
            throw .cannotStart("libmicrohttpd did not start on descriptor \(descriptor)")
        }
        daemon.withLock { $0 = UInt(bitPattern: started) }
    }

    /// Answers requests with `handler`, at most `workers` at once, until the calling task is cancelled
    /// (or `stop()`); then stops the server, once the requests already read are answered. Each worker
    /// is a child task that takes requests one after another: a request costs no task of its own.
    public func run(workers: Int = 64, _ handler: @escaping Handler) async {
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                for (queue, count) in [(self.queue, max(1, workers)), (priorityQueue, Self.priorityWorkers)] {
                    let backlog = queue === priorityQueue ? Int.max : count / 2
                    for _ in 0..<count {
                        group.addTask {
                            while let pending = await queue.next() {
                                let isStale = pending.arrived.duration(to: .now) > self.limits.queueWait && queue.waiting >= backlog
                                let response = isStale ? self.busy() : await handler(pending.request)
                                self.unanswered.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(pending)) }
                                pending.respond(response)
                            }
                        }
                    }
                }
            }
        } onCancel: {
            // No more requests are taken; those read are answered, then the workers end.
            queue.close()
            priorityQueue.close()
        }
        stop()
    }

    /// How many requests have been read and wait for `run` to answer them.
    var waitingRequests: Int { unanswered.withLock { $0.count } }

    /// Connections open now.
    var openConnections: Int { open.withLock { $0.open } }

    /// Requests answered 503 because the server was busy, since it started.
    public var shedRequests: Int { shedCount.load(ordering: .relaxed) }

    private static func hardCap(_ cap: UInt32) -> UInt32 { cap > UInt32.max / 2 ? UInt32.max : cap * 2 }

    /// Stops accepting, ends every connection and waits for the library's threads; closes the socket.
    /// Requests still waiting are answered 503.
    public func stop() {
        queue.close()
        priorityQueue.close()
        for pending in unanswered.withLock({ state in defer { state.removeAll() }; return Array(state.values) }) {
            pending.respond(.text("the server is stopping\n", status: 503))
        }
        let address = daemon.withLock { state -> UInt in
            defer { state = 0 }
            return state
        }
        guard let running = OpaquePointer(bitPattern: address) else { return }
        // No new connections; the responses being written (up to 2 s) go out before connections close.
        let listening = MHD_quiesce_daemon(running)
        let deadline = Date().addingTimeInterval(2)
        while inProgress.withLock({ $0 }) > 0, Date() < deadline { usleep(10_000) }
        MHD_stop_daemon(running)
        if listening >= 0 { close(listening) }  // quiesced, the library leaves the socket to us
    }

    deinit {
        stop()
    }

    // MARK: - libmicrohttpd callbacks

    /// What one request has sent so far, kept in libmicrohttpd's per-request slot between calls.
    private final class RequestState {
        let method: String
        let path: String
        var body = Data()
        /// Bytes of a body over the limit, read and dropped.
        var dropped = 0
        /// Answered 503 once read: its connection holds no place within the caps.
        var isShed = false
        /// The largest body read, and the answer to a larger one.
        let limit: Int
        let tooLarge: HTTPResponse

        init(method: String, path: String, server: HTTPServer) {
            (self.method, self.path) = (method, path)
            let own = server.bodyLimit(method, path)
            limit = own?.bytes ?? server.limits.bodyBytes
            var refusal = own?.refusal ?? .text("request body larger than \(limit) bytes\n", status: 413)
            refusal.headers.append(("Connection", "close"))
            tooLarge = refusal
        }
    }

    /// Called first with the request line and headers, then once per piece of the body, then once
    /// more with none: the response is queued only then.
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, slot in
        guard let context, let connection, let slot, let uploadSize else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        guard let stored = slot.pointee else {
            let state = RequestState(method: method.map { String(cString: $0) } ?? "GET",
                                     path: url.map { String(cString: $0) } ?? "/", server: server)
            slot.pointee = Unmanaged.passRetained(state).toOpaque()
            server.inProgress.withLock { $0 += 1 }  // until `completed`
            // Answered once read (not now: a response queued before the request is read closes the connection).
            if let opened = aggregator_mhd_socket_context(connection), !server.neverShed(state.path) {
                state.isShed = !server.admit(Unmanaged<ConnectionSlot>.fromOpaque(opened).takeUnretainedValue())
            }
            // A body declared too large is refused before it is sent (no 100 Continue).
            if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
               let length = Int(String(cString: declared)), length > state.limit {
                return send(state.tooLarge, on: connection)
            }
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
        let limit = state.limit
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if state.dropped > 0 || state.body.count + count > limit {
                // Over the limit without saying so (chunked): read and dropped to answer 413 at its end,
                // and past four times the limit answered at once, the connection closed under the client.
                state.dropped += count
                return state.dropped > 4 * limit ? send(state.tooLarge, on: connection) : .YES
            }
            if let upload { state.body.append(UnsafeRawPointer(upload).assumingMemoryBound(to: UInt8.self), count: count) }
            return .YES
        }
        if state.dropped > 0 { return send(state.tooLarge, on: connection) }
        if state.isShed { return server.shed(on: connection) }
        let pending = PendingRequest(HTTPRequest(method: state.method, path: state.path,
                                                  query: values(of: connection, kind: .GET_ARGUMENT_KIND),
                                                  headers: Dictionary(values(of: connection, kind: .HEADER_KIND).map {
                                                      ($0.name.lowercased(), $0.value)
                                                  }, uniquingKeysWith: { first, _ in first }),
                                                  body: state.body, clientAddress: clientAddress(of: connection)))
        let priority = server.neverShed(state.path)
        if !priority, server.queue.waiting >= server.limits.pendingRequests {
            return server.shed(on: connection)
        }
        server.unanswered.withLock { $0[ObjectIdentifier(pending)] = pending }
        guard (priority ? server.priorityQueue : server.queue).put(pending) else {
            server.unanswered.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(pending)) }
            return send(.text("the server is stopping\n", status: 503), on: connection)
        }
        // This connection's thread waits for `run`, then compresses (off the cooperative pool).
        return send(ResponseCompression.compressed(pending.response(), acceptEncoding: pending.request.headers["accept-encoding"]),
                    on: connection)
    }

    /// The request is over (answered, or the client went away): its state is released.
    private static let completed: MHD_RequestCompletedCallback = { context, _, slot, _ in
        guard let context, let slot, let stored = slot.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(stored).release()
        slot.pointee = nil
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().inProgress.withLock { $0 -= 1 }
    }

    /// A connection opened (its place against the caps taken) or closed (given back).
    private static let notify: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
        guard let context, let connection, let socketContext else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        if event == .CONNECTION_NOTIFY_STARTED {
            let slot = ConnectionSlot(address: clientAddress(of: connection))
            slot.isAdmitted = server.open.withLock { open in
                open.open += 1
                return open.admit(slot.address, within: server.limits)
            }
            socketContext.pointee = Unmanaged.passRetained(slot).toOpaque()
        } else if let kept = socketContext.pointee {
            let slot = Unmanaged<ConnectionSlot>.fromOpaque(kept).takeRetainedValue()
            socketContext.pointee = nil
            server.open.withLock { open in
                open.open -= 1
                if slot.isAdmitted { open.release(slot.address) }
            }
        }
    }

    /// Whether the connection holds a place within the caps, taking one if it is free now. One told
    /// 503 for want of a place less than a second ago (its client did not wait the Retry-After) first
    /// waits out that second here, on the connection's own thread: a client asking again at once on
    /// the same connection is paced, not answered as fast as it can ask.
    private func admit(_ slot: ConnectionSlot) -> Bool {
        if slot.isAdmitted { return true }
        if let refused = slot.lastRefused {
            let rest = refused.addingTimeInterval(1).timeIntervalSinceNow
            if rest > 0 { Thread.sleep(forTimeInterval: rest) }
        }
        slot.isAdmitted = open.withLock { $0.admit(slot.address, within: limits) }
        slot.lastRefused = slot.isAdmitted ? nil : Date()
        return slot.isAdmitted
    }

    /// Answers 503 with `Retry-After: 1` at once, without a worker.
    private func shed(on connection: OpaquePointer) -> MHD_Result {
        Self.send(busy(), on: connection)
    }

    /// The answer to a request shed, counted.
    private func busy() -> HTTPResponse {
        shedCount.add(1, ordering: .relaxed)
        var busy = HTTPResponse.text("the server is busy; retry in a second\n", status: 503)
        busy.headers.append(("Retry-After", "1"))
        return busy
    }

    private static func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers { _ = MHD_add_response_header(created, name, value) }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// The connection's values of one kind (headers, query arguments), in order.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        final class Collected { var pairs: [(name: String, value: String)] = [] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values(connection, kind, { context, _, key, value in
                guard let context, let key else { return .YES }
                let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                collected.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
                return .YES
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }

    /// The peer's numeric address.
    private static func clientAddress(of connection: OpaquePointer) -> String {
        guard let address = aggregator_mhd_client_address(connection) else { return "" }
        let length = socklen_t(address.pointee.sa_family == sa_family_t(AF_INET6)
            ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return "" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Connections open, and those holding a place within `HTTPLimits`' caps (in all and per peer
/// address): a connection without one is answered 503 but for the monitors' paths.
private struct Admissions {
    var open = 0
    private var admitted = 0
    private var admittedByAddress: [String: Int] = [:]

    /// Takes a place for a connection from `address`, if one is free.
    mutating func admit(_ address: String, within limits: HTTPLimits) -> Bool {
        guard admitted < Int(limits.connections),
              admittedByAddress[address, default: 0] < Int(limits.connectionsPerAddress) else { return false }
        admitted += 1
        admittedByAddress[address, default: 0] += 1
        return true
    }

    mutating func release(_ address: String) {
        admitted -= 1
        let left = admittedByAddress[address, default: 1] - 1
        admittedByAddress[address] = left > 0 ? left : nil
    }
}

/// One open connection, used on its own thread only: its peer, whether it holds a place within the
/// caps, and when it was last refused one.
private final class ConnectionSlot {
    let address: String
    var isAdmitted = false
    var lastRefused: Date?

    init(address: String) {
        self.address = address
    }
}

/// A request read on a connection's thread, which waits in `response()` until `run` answers it.
private final class PendingRequest: Sendable {
    let request: HTTPRequest
    /// When it was read: one that waited past `HTTPLimits.queueWait` is shed.
    let arrived = ContinuousClock.now
    private let answer = Mutex<HTTPResponse?>(nil)
    private let answered = DispatchSemaphore(value: 0)

    init(_ request: HTTPRequest) {
        self.request = request
    }

    func respond(_ response: HTTPResponse) {
        answer.withLock { $0 = response }
        answered.signal()
    }

    /// Blocks the calling thread (a connection's, never the pool's) until the response is there.
    func response() -> HTTPResponse {
        answered.wait()
        return answer.withLock { $0 } ?? .text("no response\n", status: 500)
    }
}

/// Requests waiting for a worker, and workers waiting for a request: a request put while a worker
/// waits goes to it directly.
private final class RequestQueue: Sendable {
    private struct State {
        var requests: [PendingRequest] = []
        var first = 0  // requests[first...] wait; the array is compacted as it empties
        var workers: [CheckedContinuation<PendingRequest?, Never>] = []
        var isClosed = false
    }

    private let state = Mutex(State())

    /// How many requests wait for a worker.
    var waiting: Int { state.withLock { $0.requests.count - $0.first } }

    /// Hands `request` to a waiting worker, or queues it; false once closed.
    func put(_ request: PendingRequest) -> Bool {
        let worker = state.withLock { state -> CheckedContinuation<PendingRequest?, Never>?? in
            guard !state.isClosed else { return .none }
            if !state.workers.isEmpty { return .some(state.workers.removeLast()) }
            state.requests.append(request)
            return .some(nil)
        }
        switch worker {
        case .none: return false
        case .some(let waiting): waiting?.resume(returning: request)
        }
        return true
    }

    /// The next request; nil once closed and empty.
    func next() async -> PendingRequest? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> PendingRequest?? in
                if state.first < state.requests.count {
                    let request = state.requests[state.first]
                    state.first += 1
                    if state.first == state.requests.count { state.requests.removeAll(keepingCapacity: true); state.first = 0 }
                    return .some(request)
                }
                if state.isClosed { return .some(nil) }
                state.workers.append(continuation)
                return .none
            }
            if case .some(let request) = ready { continuation.resume(returning: request) }
        }
    }

    /// No more requests: waiting workers end; the queued ones are still taken.
    func close() {
        let waiting = state.withLock { state -> [CheckedContinuation<PendingRequest?, Never>] in
            state.isClosed = true
            defer { state.workers.removeAll() }
            return state.workers
        }
        for worker in waiting { worker.resume(returning: nil) }
    }
}
