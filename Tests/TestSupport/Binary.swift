import Foundation

/// One of the package's built executables, run as a child process the way a user runs it.
public struct Binary: Sendable {
    public let url: URL

    /// `swift test` builds the executables beside the test bundle (`.build/<triple>/debug/`).
    public init(_ name: String) {
        url = Bundle.main.bundleURL.appendingPathComponent(name)
    }

    /// A program from outside the package, e.g. `/usr/bin/env` to run `python3`.
    public init(url: URL) {
        self.url = url
    }

    /// The test process's environment, with no HTTP server for daemons unless a test asks for one:
    /// tests run side by side, and all would claim the default port.
    private static var environment: [String: String] {
        // Feed icons off: the test feeds' sites are example.org, and no test may reach the internet
        // (the icon tests turn them on for feeds of the local server).
        ProcessInfo.processInfo.environment.merging(["AGGREGATOR_HTTP_LISTEN": "none", "AGGREGATOR_FEED_ICONS": "false"]) { $1 }
    }

    public struct Result: Sendable {
        public let status: Int32
        public let output: String
        public let error: String
    }

    /// Runs to completion and returns the exit status and what was printed; `input`, when given,
    /// is its standard input (else it has none).
    public func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = Self.environment.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            // Small: fits the pipe, never blocks. A child that ended before reading it (a refused
            // command) has closed the pipe: that write fails, and must not raise SIGPIPE, which ended
            // the whole test process once in CI.
            signal(SIGPIPE, SIG_IGN)
            try? inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? inputPipe.fileHandleForWriting.close()
        }
        // Read before waiting: a full pipe would otherwise block the child forever.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                      error: String(decoding: errorData, as: UTF8.self))
    }

    /// `run`, waited for on a Dispatch thread: a child that runs for seconds (a client scenario,
    /// newsboat) would otherwise hold one of the few threads of Swift's cooperative pool, and every
    /// other test's timers and tasks wait behind it.
    public func runInBackground(_ arguments: [String], environment: [String: String] = [:],
                                input: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try self.run(arguments, environment: environment, input: input) })
            }
        }
    }

    /// Starts the program in the background with its stderr going to `logFile` (and stdout to
    /// `standardOutput` when given).
    public func start(_ arguments: [String], logFile: URL, environment: [String: String] = [:],
               standardOutput: URL? = nil) throws -> Process {
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = Self.environment.merging(environment) { $1 }
        if let standardOutput {
            _ = FileManager.default.createFile(atPath: standardOutput.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: standardOutput)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        return process
    }
}

/// Runs a Python `script` with `arguments` (as `sys.argv[1:]`), for checks the tests make from outside.
public func runPython(_ script: String, _ arguments: [String]) throws -> Binary.Result {
    try Binary(url: URL(fileURLWithPath: "/usr/bin/env")).run(["python3", "-c", script] + arguments)
}

/// Writes `seed.opml` into `directory`, listing `feeds` (title, URL) without folders, for `--seed-opml`.
public func writeSeedOPML(_ feeds: [(title: String, url: String)], in directory: URL) throws -> URL {
    let seed = directory.appendingPathComponent("seed.opml")
    let outlines = feeds.map { #"<outline text="\#($0.title)" xmlUrl="\#($0.url)"/>"# }.joined()
    try Data("<opml><body>\(outlines)</body></opml>".utf8).write(to: seed)
    return seed
}

/// A fresh directory for one test's files, removed by the caller.
public func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// How much longer than usual the tests' waits may last: `AGGREGATOR_TEST_TIME_SCALE` (default 1;
/// `make check-sanitizers` sets 4, the sanitized binaries being several times slower).
public let testTimeScale: Double = ProcessInfo.processInfo.environment["AGGREGATOR_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

/// Waits until `file` contains `text`, up to `timeout` seconds; returns the file's text, or throws.
/// The file is read once more after the deadline: a test whose task got no thread for a while (the
/// cooperative pool has one a core, and other tests' synchronous work can hold them all) finds there
/// what was written meanwhile, instead of failing on a wait it never got to make.
public func waitFor(_ text: String, in file: URL, timeout: TimeInterval = 20) async throws -> String {
    let timeout = timeout * testTimeScale
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let contents = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if contents.contains(text) { return contents }
        try await Task.sleep(for: .milliseconds(50))
    }
    let contents = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    if contents.contains(text) { return contents }
    throw TestSupportError("'\(text)' did not appear in \(file.lastPathComponent) within \(timeout) s")
}

/// Waits for `process` to exit, up to `timeout` seconds, and returns its status; kills it and throws
/// when it does not.
public func waitForExit(_ process: Process, timeout: TimeInterval = 10) async throws -> Int32 {
    let timeout = timeout * testTimeScale
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline {
        try await Task.sleep(for: .milliseconds(20))
    }
    guard !process.isRunning else {
        process.interrupt()
        kill(process.processIdentifier, SIGKILL)
        throw TestSupportError("process did not exit within \(timeout) s (killed)")
    }
    return process.terminationStatus
}

/// A helper that could not do its job; thrown, it fails the test that called it with this message.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Runs `body` on a thread of its own and waits for it. A test that runs many child processes in a
/// row (curl, aggregatorctl: a route walk) would otherwise hold one of the cooperative pool's threads
/// (one a core) for its whole length, and other tests' handlers, timers and servers wait behind it:
/// the HTTP server's own tests timed out so in a full run. An expectation that fails in `body` fails
/// the run, reported under «unknown» test with its file and line.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
