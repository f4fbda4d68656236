import Foundation
import Glibc

/// The built daemon serving HTTP on a free loopback port, in a temporary directory of its own,
/// with `aggregatorctl` and curl to talk to it. `stop()` ends it and removes the directory.
public final class ServedDaemon: @unchecked Sendable {  // immutable after init
    public let directory: URL
    public let port: UInt16
    public let log: URL
    public let process: Process
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var socketPath: String { directory.appendingPathComponent("ctl.sock").path }
    /// The daemon's `--database`: a file in its directory, or on the PostgreSQL test cluster
    /// (`TestPostgres`) a database of its own.
    public let database: String

    /// What the database holds, as bytes to search: the SQLite file and its log, or a `pg_dump`.
    public func databaseContents() throws -> Data {
        if TestPostgres.isOn { return try TestPostgres.dump(database) }
        return try Data(contentsOf: URL(fileURLWithPath: database))
            + ((try? Data(contentsOf: URL(fileURLWithPath: database + "-wal"))) ?? Data())
    }

    /// Starts it with the feeds of `seed` (title, URL) and waits until it serves; on `database` when
    /// given (several daemons sharing one PostgreSQL database), else on a fresh one.
    public init(seed: [(title: String, url: String)] = [], extraArguments: [String] = [], database: String? = nil,
                environment: [String: String] = [:]) async throws {
        directory = try temporaryDirectory()
        log = directory.appendingPathComponent("daemon.log")
        port = try Self.freePort()
        let seedPath = seed.isEmpty ? "" : try writeSeedOPML(seed, in: directory).path
        self.database = try database
            ?? (TestPostgres.isOn ? try TestPostgres.freshDatabase() : directory.appendingPathComponent("a.db").path)
        process = try Binary("aggregatord").start(
            ["--database", self.database, "--socket",
             directory.appendingPathComponent("ctl.sock").path, "--seed-opml", seedPath,
             "--http-listen", "127.0.0.1:\(port)", "--log-level", "debug"] + extraArguments, logFile: log,
            environment: environment)
        do {
            _ = try await waitFor("msg=Started", in: log)
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the daemon (SIGTERM, then SIGKILL) and removes its directory.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `aggregatorctl --socket … ARGUMENTS`.
    public func ctl(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Binary.Result {
        try Binary("aggregatorctl").run(["--socket", socketPath] + arguments, environment: environment, input: input)
    }

    /// Logs `name` in on the web page with curl, its cookies in the jar at `jar`: the page's CSRF token.
    public func webLogIn(name: String, password: String, jar: String) throws -> String {
        let page = try curl("/login", ["-c", jar])
        guard let token = page.body.firstMatch(of: /name="login_token" value="([0-9a-f]{64})"/)?.1 else {
            throw TestSupportError("the login page has no login token")
        }
        let login = try curl("/login", ["-b", jar, "-c", jar, "-d", "login_token=\(token)&name=\(name)&password=\(password)"])
        guard login.status == 303 else { throw TestSupportError("\(name)'s login answered \(login.status)") }
        guard let csrf = try curl("/unread", ["-b", jar]).body.firstMatch(of: /data-csrf="([0-9a-f]{64})"/)?.1 else {
            throw TestSupportError("the signed-in page has no CSRF token")
        }
        return String(csrf)
    }

    /// Gives the first account (a new server's "admin", which the CLI acts as) this name and password,
    /// and returns a new API token of it. (The first account is renamed first: once another account
    /// has a password, `user set` of a new name makes a new account instead.)
    public func createAccount(name: String = "owner", password: String = "correct horse battery") throws -> String {
        if name.lowercased() != "admin" { _ = try ctl(["user", "rename", "admin", name]) }
        let set = try ctl(["user", "set", name], input: password + "\n")
        guard set.status == 0 else { throw TestSupportError("user set failed: \(set.error)") }
        let token = try ctl(["token", "create"])
        guard token.status == 0 else { throw TestSupportError("token create failed: \(token.error)") }
        return token.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An HTTP response as curl saw it.
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: String
    }

    /// Requests `path` with curl (`arguments` adds method, headers, body); headers are lower case.
    /// A body sent to the Miniflux API (`/v1…`) without a Content-Type of its own goes as
    /// `application/json`, as apps send it (curl's `-d` would declare a form, which the API refuses).
    public func curl(_ path: String, _ arguments: [String] = []) throws -> Response {
        var arguments = arguments
        let sendsBody = arguments.contains { $0 == "-d" || $0.hasPrefix("--data") }
        let declaresType = arguments.contains { $0.lowercased().hasPrefix("content-type:") }
        if path.hasPrefix("/v1"), sendsBody, !declaresType { arguments += ["-H", "Content-Type: application/json"] }
        let headerFile = directory.appendingPathComponent("headers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: headerFile) }
        let result = try Binary(url: URL(fileURLWithPath: "/usr/bin/curl"))
            .run(["-s", "-m", "30", "-D", headerFile.path, "-w", "\n%{http_code}", baseURL + path] + arguments)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOf: headerFile, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: Int(lines.last ?? "") ?? 0, headers: headers, body: lines.dropLast().joined(separator: "\n"))
    }

    /// A port nothing listens on now (the daemon takes it a moment later).
    public static func freePort() throws -> UInt16 {
        let (descriptor, port) = try listeningSocket()
        close(descriptor)
        return port
    }

    /// A loopback TCP socket listening on a free port, and the port (the caller closes it).
    public static func listeningSocket() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestSupportError("no free port: \(String(cString: strerror(errno)))")
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
