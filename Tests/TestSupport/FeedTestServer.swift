import Foundation
import Glibc

/// A misbehaving feed server (`test_server.py`: feeds, redirects, status codes, slow and endless
/// answers), started on a free port of 127.0.0.1 and stopped by `stop()` or when released.
public final class FeedTestServer: @unchecked Sendable {  // immutable after init
    public let port: Int
    private let process = Process()
    private let input = Pipe()

    /// Starts `test_server.py`, or another script of TestSupport's that prints its port first
    /// (`test_proxy.py`: a plain HTTP proxy that lists what it forwarded at `/requests`).
    public init(script name: String = "test_server") throws {
        guard let script = Bundle.module.url(forResource: name, withExtension: "py") else {
            throw TestSupportError("\(name).py is missing from TestSupport's resources")
        }
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else { throw TestSupportError("the test server did not say its port: \(text)") }
        self.port = port
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}

/// A `sockaddr_un` for `path`, for tests that talk to Unix sockets directly.
public func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        let bytes = Array(path.utf8)
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
    return address
}
