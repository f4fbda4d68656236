import Foundation

/// The Python environment with the reader-app clients from PyPI (`make test-venv` makes it, pinned
/// in `Tests/requirements.txt`): `python` runs a script with them importable.
public enum TestVenv {
    /// `.build/test-venv` of this checkout.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/test-venv")

    /// Runs `script` with the venv's Python; throws when the venv is missing, saying how to make it.
    public static func run(_ script: URL, _ arguments: [String]) async throws -> Binary.Result {
        let python = directory.appendingPathComponent("bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw TestSupportError("no test venv at \(directory.path): run 'make test-venv' (make test does)")
        }
        return try await Binary(url: python).runInBackground([script.path] + arguments)
    }
}
