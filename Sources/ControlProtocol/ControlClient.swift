import Foundation
import Glibc

/// The CLI's side of the control socket: one request at a time, blocking (the CLI has nothing else to do).
public final class ControlClient {
    private let descriptor: Int32
    private var framer = LineFramer(maximumLineLength: 256 << 20)
    private var pending: [Data] = []
    private var nextID = 1

    /// Connects to the daemon's socket.
    /// - Throws: `SystemError` when nothing listens there (the CLI reports it with exit status 3).
    public init(path: String) throws(SystemError) {
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
        guard UnixSocket.writeAll(descriptor, request.encoded + Data([0x0A])) else { throw SystemError(call: "send") }
        while true {
            let line = try readLine()
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
