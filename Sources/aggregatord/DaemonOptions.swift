import AggregatorCore
import ControlProtocol
import Foundation

/// What the `aggregatord` command line asks for.
enum DaemonOptions: Equatable {
    case help
    case version
    case run(configFile: String?, once: Bool, settings: [String: String])
    /// `aggregatord copy-database SOURCE TARGET` (docs/ARCHITECTURE.md).
    case copyDatabase(source: String, target: String)

    /// Parses the arguments after the program name.
    /// - Throws: `UsageError` for an unknown option or a missing value.
    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var configFile: String?
        var settings: [String: String] = [:]
        var once = false
        if arguments.first == "copy-database" {
            let operands = arguments.dropFirst()
            if operands.contains("-h") || operands.contains("--help") { return .help }
            guard operands.count == 2, !operands.contains(where: { $0.hasPrefix("-") }) else {
                throw UsageError("copy-database takes two databases: SOURCE TARGET (SQLite paths or PostgreSQL URIs)")
            }
            return .copyDatabase(source: operands[operands.startIndex], target: operands[operands.startIndex + 1])
        }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--once": once = true
            default:
                guard argument.hasPrefix("--"), argument.count > 2 else {
                    throw UsageError("Unexpected argument '\(argument)'")
                }
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard name == "config" || Configuration.keys.contains(where: { $0.name == name }) else {
                    throw UsageError("Unknown option '--\(name)'")
                }
                guard let resolved = value ?? remaining.popFirst() else {
                    throw UsageError("Missing value for '--\(name)'")
                }
                if name == "config" { configFile = resolved } else { settings[name] = resolved }
            }
        }
        return .run(configFile: configFile, once: once, settings: settings)
    }

    static let usage = "aggregatord [--config FILE] [--database PATH|URI] [--socket PATH] [--seed-opml FILE] "
        + "[--log-level LEVEL] [--once]\n       aggregatord copy-database SOURCE TARGET"

    /// What each configuration key's flag takes, as the help shows it.
    private static let placeholders = [
        "database": "PATH|URI", "socket": "PATH", "seed-opml": "FILE", "log-level": "LEVEL",
        "private-networks": "RULE", "deny-private-networks": "BOOL", "feed-icons": "BOOL", "retention-days": "DAYS", "connect-timeout": "TIME",
        "fetch-timeout": "TIME", "low-speed-limit": "BYTES", "low-speed-time": "TIME", "max-feed-size": "SIZE", "min-interval": "TIME",
        "max-interval": "TIME",
    ]

    static var helpText: String {
        let options = [("--config FILE", "Read 'key = value' settings from FILE"),
                       ("--once", "Refresh every feed once, print a summary and exit (1 if any feed failed)")]
            + Configuration.keys.map { name, summary in ("--\(name) \(placeholders[name] ?? "N")", summary.capitalizedFirst) }
            + [("--version", "Show the version"), ("-h, --help", "Show this help")]
        let width = options.map(\.0.count).max()! + 2
        var lines = [
            "OVERVIEW: aggregatord \(AggregatorVersion.current), the feed aggregator daemon",
            "",
            "USAGE: \(usage)",
            "",
            "OPTIONS:",
        ]
        lines += options.map { "  " + $0.padding(toLength: width, withPad: " ", startingAt: 0) + $1 }
        lines += [
            "",
            "Every key can also be set as AGGREGATOR_KEY in the environment (e.g. AGGREGATOR_LOG_LEVEL=debug)",
            "or in the configuration file; flags win over the environment, which wins over the file.",
            "SIGINT or SIGTERM stops the daemon cleanly. SIGHUP reads the configuration again and applies",
            "every key at once but these (at the next start):",
        ] + Self.wrapped(Configuration.keys.map(\.name).filter(Configuration.startOnlyKeys.contains), width: 100) + [
            "",
            "The database is an SQLite file (the default) or a PostgreSQL URI, e.g.",
            "postgresql:///aggregator?host=/run/postgresql (libpq's syntax and PG* environment variables).",
            "",
            "copy-database SOURCE TARGET copies a whole database (SQLite path or PostgreSQL URI, either way)",
            "into an empty TARGET, ids included, and prints what it copied. Stop the daemon on SOURCE first.",
        ]
        return lines.joined(separator: "\n")
    }

    /// `words` joined by ", " in lines of at most `width` characters, each indented by two spaces.
    static func wrapped(_ words: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = " "
        for (index, word) in words.enumerated() {
            let piece = " " + word + (index < words.count - 1 ? "," : ".")
            if line.count + piece.count > width {
                lines.append(line)
                line = " "
            }
            line += piece
        }
        return lines + [line]
    }
}

/// Bad command-line usage: printed with the usage line, exit status 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
