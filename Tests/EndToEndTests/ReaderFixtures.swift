import Foundation
import TestSupport

extension ServedDaemon {
    /// A daemon subscribed to the test server's 250-item feed (category News) and a feed that
    /// cross-posts one of its items (no category), both fetched: what the reader-app tests read.
    /// A second account, "neighbour", follows both feeds too (shared with the first), in a category
    /// of its own, and has read and starred every entry: the tests' figures of the first account
    /// show that none of that reaches it (docs/ARCHITECTURE.md).
    static func withReaderFeeds(_ server: FeedTestServer) async throws -> ServedDaemon {
        let daemon = try await ServedDaemon(extraArguments: ["--private-networks", "all"])
        for (url, category) in [(server.url("/many.xml"), ["--category", "News"]), (server.url("/crosspost.xml"), [])] {
            let added = try daemon.ctl(["add", url] + category)
            guard added.status == 0 else { throw TestSupportError("add failed: \(added.error)") }
        }
        let refreshed = try daemon.ctl(["refresh", "--wait"])
        guard refreshed.output.contains("2 ok") else { throw TestSupportError("refresh: \(refreshed.output) \(refreshed.error)") }
        let neighbour = ["--user", "neighbour"]
        for command in [["user", "add", "neighbour"], neighbour + ["add", server.url("/many.xml"), "--category", "Elsewhere"],
                        neighbour + ["add", server.url("/crosspost.xml"), "--category", "Elsewhere"],
                        neighbour + ["read", "--all"], neighbour + ["star", "--all"]] {
            let done = try daemon.ctl(command, input: "neighbour-password\n")
            guard done.status == 0 else { throw TestSupportError("\(command.joined(separator: " ")): \(done.error)") }
        }
        return daemon
    }
}

/// Debian's newsboat with a configuration of its own in a directory of the daemon's: `reload` prints
/// its unread count; `runOnStartup` runs a command under a pseudo-terminal, as a person would.
struct Newsboat {
    let home: URL
    let config: URL
    private var urls: URL { home.appendingPathComponent("urls") }
    private var cache: URL { home.appendingPathComponent("cache.db") }
    private var environment: [String: String] { ["HOME": home.path, "XDG_CONFIG_HOME": home.path, "XDG_DATA_HOME": home.path] }

    init(in directory: URL, configuration: String) throws {
        home = directory.appendingPathComponent("newsboat")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        config = home.appendingPathComponent("config")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        try Data().write(to: home.appendingPathComponent("urls"))
    }

    /// `newsboat -x reload print-unread`.
    func reload() async throws -> Binary.Result {
        try await Binary(url: URL(fileURLWithPath: "/usr/bin/newsboat"))
            .runInBackground(["-C", config.path, "-u", urls.path, "-c", cache.path, "-x", "reload", "print-unread"],
                             environment: environment)
    }

    /// Starts newsboat under a pseudo-terminal with `command` run at start-up, then quits.
    func runOnStartup(_ command: String) async throws {
        let marking = home.appendingPathComponent("config-startup")
        try (String(contentsOf: config, encoding: .utf8) + "\nrun-on-startup \(command); hard-quit\n")
            .write(to: marking, atomically: true, encoding: .utf8)
        // script runs the command with $SHELL -c. Without --foreground, timeout puts newsboat in a
        // process group of its own, in the background of the terminal, where curses is stopped
        // (SIGTTOU) and waits out the limit: bash hides this by exec'ing timeout, dash (SHELL unset,
        // as under CI) does not. So: a fixed shell, exec, and --foreground.
        _ = try await Binary(url: URL(fileURLWithPath: "/usr/bin/script")).runInBackground(
            ["-qec", "exec timeout --foreground 60 newsboat -C \(marking.path) -u \(urls.path) -c \(cache.path)",
             "/dev/null"],
            environment: environment.merging(["TERM": "xterm", "SHELL": "/bin/sh"]) { $1 })
    }
}
