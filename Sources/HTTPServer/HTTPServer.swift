import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// Bounds on what clients may make the server do.
public struct HTTPLimits: Sendable, Equatable {
    /// Connections open at once, in all and from one address.
    public var connections: UInt32 = 256
    public var connectionsPerAddress: UInt32 = 64
    /// A connection that sends nothing for this long is closed (slow or silent clients).
    public var idleTimeoutSeconds: UInt32 = 30
    /// Memory a connection may use for its request line and headers.
    public var headerBytes = 64 << 10
    /// The largest request body read; a larger one is answered 413 and the connection closed.
    public var bodyBytes = 1 << 20

    public init() {}
}

/// An HTTP/1.1 server on libmicrohttpd that knows nothing of feeds: it reads requests within
/// `HTTPLimits` and hands each to `handler`, whose response it sends. Requests run on the
/// library's own threads (one a connection), never on Swift's cooperative pool.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private let handler: Handler
    private let limits: HTTPLimits
    /// The running daemon's address (libmicrohttpd's opaque pointer, which is not Sendable), 0 once stopped.
    private let daemon = Mutex<UInt>(0)

    /// Serves on `descriptor`, a listening TCP socket (see `HTTPListenAddress.listen`, or one systemd
    /// passed), until `stop()`. The server owns the socket from now on.
    /// - Throws: `HTTPServerError.cannotStart` when libmicrohttpd refuses to start.
    public init(descriptor: Int32, limits: HTTPLimits = HTTPLimits(), handler: @escaping Handler) throws(HTTPServerError) {
        self.handler = handler
        self.limits = limits
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let started = aggregator_mhd_start(descriptor, Self.access, context, Self.completed, limits.connections,
                                                 limits.connectionsPerAddress, limits.idleTimeoutSeconds,
                                                 limits.headerBytes) else {
            close(descriptor)
            throw .cannotStart("libmicrohttpd did not start on descriptor \(descriptor)")
        }
        daemon.withLock { $0 = UInt(bitPattern: started) }
    }

    /// Stops accepting, ends every connection and waits for the library's threads; closes the socket.
    public func stop() {
        let address = daemon.withLock { state -> UInt in
            defer { state = 0 }
            return state
        }
        guard let running = OpaquePointer(bitPattern: address) else { return }
        MHD_stop_daemon(running)
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

        init(method: String, path: String) {
            (self.method, self.path) = (method, path)
        }
    }

    /// Called first with the request line and headers, then once per piece of the body, then once
    /// more with none: the response is queued only then.
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, slot in
        guard let context, let connection, let slot, let uploadSize else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let limit = server.limits.bodyBytes
        guard let stored = slot.pointee else {
            // A body declared too large is refused before it is sent (no 100 Continue).
            if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
               let length = Int(String(cString: declared)), length > limit {
                return send(tooLarge(limit), on: connection)
            }
            let state = RequestState(method: method.map { String(cString: $0) } ?? "GET",
                                     path: url.map { String(cString: $0) } ?? "/")
            slot.pointee = Unmanaged.passRetained(state).toOpaque()
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if state.dropped > 0 || state.body.count + count > limit {
                // Over the limit without saying so (chunked): read and dropped to answer 413 at its end,
                // and past four times the limit answered at once, the connection closed under the client.
                state.dropped += count
                return state.dropped > 4 * limit ? send(tooLarge(limit), on: connection) : .YES
            }
            if let upload { state.body.append(UnsafeRawPointer(upload).assumingMemoryBound(to: UInt8.self), count: count) }
            return .YES
        }
        if state.dropped > 0 { return send(tooLarge(limit), on: connection) }
        let request = HTTPRequest(method: state.method, path: state.path,
                                  query: values(of: connection, kind: .GET_ARGUMENT_KIND),
                                  headers: Dictionary(values(of: connection, kind: .HEADER_KIND).map {
                                      ($0.name.lowercased(), $0.value)
                                  }, uniquingKeysWith: { first, _ in first }),
                                  body: state.body, clientAddress: clientAddress(of: connection))
        return send(server.handler(request), on: connection)
    }

    /// The request is over (answered, or the client went away): its state is released.
    private static let completed: MHD_RequestCompletedCallback = { _, _, slot, _ in
        guard let slot, let stored = slot.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(stored).release()
        slot.pointee = nil
    }

    private static func tooLarge(_ limit: Int) -> HTTPResponse {
        var response = HTTPResponse.text("request body larger than \(limit) bytes\n", status: 413)
        response.headers.append(("Connection", "close"))
        return response
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
