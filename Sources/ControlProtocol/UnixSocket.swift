import FoundationEssentials
import Glibc

/// Unix domain stream sockets: listening (with a stale-socket check) and connecting.
public enum UnixSocket {
    /// Creates, binds and listens on `path` with `mode`. A socket file left by a crashed daemon is
    /// replaced; one a running daemon answers on is not.
    /// - Throws: `ControlSocketError` saying which.
    public static func listen(path: String, mode: mode_t) throws(ControlSocketError) -> Int32 {
        if let reason = ControlSocketPath.unsafeFallback(socket: path) { throw .unsafeDirectory(reason) }
        if FileManager.default.fileExists(atPath: path) {
            if let probe = try? connect(path: path) {
                close(probe)
                throw .inUse(path)
            }
            unlink(path)  // nobody answers: a stale socket from a daemon that died
        }
        let directory = FilePath.directory(of: path)
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        if let reason = ControlSocketPath.unsafeFallback(socket: path) { throw .unsafeDirectory(reason) }
        do throws(SystemError) {
            let descriptor = try systemCall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
            do throws(SystemError) {
                var address = try socketAddress(path)
                try withUnsafePointer(to: &address) { pointer throws(SystemError) in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                        _ = try systemCall("bind") { bind(descriptor, raw, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                    }
                }
                try systemCall("chmod") { chmod(path, mode) }
                try systemCall("listen") { Glibc.listen(descriptor, 64) }
                return descriptor
            } catch {
                close(descriptor)
                throw error
            }
        } catch {
            throw .system(path, error)
        }
    }

    /// Connects to the socket at `path`.
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let descriptor = try systemCall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do throws(SystemError) {
            var address = try socketAddress(path)
            try withUnsafePointer(to: &address) { pointer throws(SystemError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                    _ = try systemCall("connect") { Glibc.connect(descriptor, raw, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
            return descriptor
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func socketAddress(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw SystemError(call: "socket path", code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    /// The user id of the process at the other end (SO_PEERCRED).
    public static func peerUserID(_ descriptor: Int32) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides the type behind _GNU_SOURCE).
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return credentials.1
    }

    /// Sets send and receive timeouts, so a silent or stuck peer cannot hold a thread forever.
    public static func setTimeouts(_ descriptor: Int32, receive: Duration, send: Duration) {
        func timeval(_ duration: Duration) -> timeval {
            let (seconds, attoseconds) = duration.components
            return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        }
        var receiveTime = timeval(receive)
        var sendTime = timeval(send)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiveTime, socklen_t(MemoryLayout<Glibc.timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &sendTime, socklen_t(MemoryLayout<Glibc.timeval>.size))
    }

    /// Writes all of `data`; false when the peer went away or timed out.
    @discardableResult
    public static func writeAll(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}

/// Why the control socket could not be opened.
public enum ControlSocketError: Error, CustomStringConvertible {
    case inUse(String)
    case system(String, SystemError)
    /// The fallback directory is not the user's own (`ControlSocketPath.unsafeFallback`).
    case unsafeDirectory(String)

    public var description: String {
        switch self {
        case .inUse(let path): "another aggregatord is already running on \(path) (stop it first, or use --socket)"
        case .system(let path, let error): "cannot listen on \(path): \(error)"
        case .unsafeDirectory(let reason): "refusing the control socket's directory: \(reason)"
        }
    }
}
