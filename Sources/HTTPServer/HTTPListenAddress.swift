import Foundation
import Glibc

/// Where the HTTP server listens: `HOST:PORT` or `[IPV6]:PORT`, numeric addresses only (so that no
/// name lookup decides what is exposed).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// Reads `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:80`; nil for anything else.
    public init?(_ text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = UInt16(port), number > 0, Self.isNumeric(String(host)) else { return nil }
        (self.host, self.port) = (String(host), number)
    }

    /// `host` and `port` as given; port 0 listens on a port the system picks (see `port(of:)`).
    public init(host: String, port: UInt16) {
        (self.host, self.port) = (host, port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The port a listening socket is bound to.
    public static func port(of descriptor: Int32) -> UInt16? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        let isIPv6 = address.ss_family == sa_family_t(AF_INET6)
        return withUnsafePointer(to: &address) { pointer in
            if isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    private static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// A listening TCP socket on this address (close-on-exec, address reuse, IPv6 only for IPv6).
    /// - Throws: `HTTPServerError.cannotListen` naming the address and the reason.
    public func listen(backlog: Int32 = 128) throws(HTTPServerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw .cannotListen(description, reason: "not a numeric address")
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotListen(description, reason: String(cString: strerror(errno))) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if info.pointee.ai_family == AF_INET6 {
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0,
              Glibc.listen(descriptor, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotListen(description, reason: reason)
        }
        return descriptor
    }
}

/// Why the HTTP server could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    case cannotListen(String, reason: String)
    case cannotStart(String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen for HTTP on \(address): \(reason)"
        case .cannotStart(let reason): "cannot start the HTTP server: \(reason)"
        }
    }
}
