import Foundation
import Testing

/// The Python test server in Fixtures, started on a free port of 127.0.0.1 and stopped on deinit.
final class TestServer: @unchecked Sendable {  // immutable after init; the process handles are only closed in deinit
    let port: Int
    private let process = Process()
    private let input = Pipe()

    init() throws {
        let script = try #require(Bundle.module.url(forResource: "test_server", withExtension: "py", subdirectory: "Fixtures"))
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

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }
}
