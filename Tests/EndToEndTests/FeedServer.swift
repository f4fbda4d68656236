import Foundation
import Glibc
import Testing

/// The misbehaving feed server of FeedFetcherTests (Python), started on a free port of 127.0.0.1
/// for end-to-end tests and stopped by `stop()` or when released.
final class FeedServer: @unchecked Sendable {  // immutable after init
    let port: Int
    private let process = Process()
    private let input = Pipe()

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FeedFetcherTests/Fixtures/test_server.py")
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
        port = try #require(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}

/// A `sockaddr_un` for `path`, for tests that talk to Unix sockets directly.
func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        let bytes = Array(path.utf8)
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
    return address
}
