import FoundationEssentials
import Glibc

/// The CLI's side of the control socket: one request at a time, blocking (the CLI has nothing else to do).
public final class ControlClient {
    private let path: String
    private var descriptor: Int32
    /// Results can be large (an OPML export, a page of 1,000 articles): lines up to 256 MiB.
    private static let maximumLineLength = 256 << 20
    private var framer = LineFramer(maximumLineLength: maximumLineLength)
    private var pending: [Data] = []
    private var nextID = 1
    /// A daemon at its connection limit turns new connections away; a script running many clients
    /// at once is served in turn instead of failing: this many tries, 20 to 200 ms apart (~6 s).
    private static let busyRetries = 50

    /// Connects to the daemon's socket.
    /// - Throws: `SystemError` when nothing listens there (the CLI reports it with exit status 3).
    public init(path: String) throws(SystemError) {
        self.path = path
        descriptor = try UnixSocket.connect(path: path)
    }

    deinit {
        close(descriptor)
    }

    /// Sends one request and waits for its result, passing notifications that arrive first to `notification`.
    /// - Throws: `JSONRPCError` from the daemon, or `SystemError` when the connection breaks.
    public func call(_ method: String, _ params: JSONValue = [:],
                     notification: (String, JSONValue) -> Void = { _, _ in }) throws -> JSONValue {
        let id = nextID
        nextID += 1
        let request = JSONRPCRequest(id: .number(Double(id)), method: method, params: params)
        var attempt = 1
        while true {
            do {
                return try exchange(request, notification: notification)
            } catch let error as JSONRPCError where error.code == JSONRPCError.busyCode && attempt < Self.busyRetries {
                // Turned away before the request was read: connect again a little later.
                usleep(useconds_t(min(200, 20 * attempt) * 1000))
                attempt += 1
                let fresh = try UnixSocket.connect(path: path)
                close(descriptor)
                (descriptor, framer, pending) = (fresh, LineFramer(maximumLineLength: Self.maximumLineLength), [])
            }
        }
    }

    private func exchange(_ request: JSONRPCRequest, notification: (String, JSONValue) -> Void) throws -> JSONValue {
        // A daemon turning the connection away may have closed it already: its reason is still there to read.
        let sent = UnixSocket.writeAll(descriptor, request.encoded + Data([0x0A]))
        while true {
            let line: Data
            do {
                line = try readLine()
            } catch where !sent {
                throw SystemError(call: "send")
            }
            switch JSONRPCMessage.parse(line) {
            case .notification(let method, let params)?: notification(method, params)
            case .result(_, let value)?: return value
            case .error(_, let error)?: throw error
            case nil: throw JSONRPCError.parseError
            }
        }
    }

    private func readLine() throws -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while pending.isEmpty {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw SystemError(call: "recv", code: count == 0 ? ECONNRESET : errno) }
            pending += try framer.append(Data(buffer[0..<count]))
        }
        return pending.removeFirst()
    }
}
