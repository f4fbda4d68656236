import FeedFetcher
import FeedStore
import Foundation
import HTTPServer

/// The daemon's settings, from flags, `AGGREGATOR_*` environment, a `key = value` file and
/// defaults, in that order of precedence (docs/ARCHITECTURE.md, "The process").
public struct Configuration: Sendable, Equatable {
    /// The SQLite database file.
    public var databasePath: String
    /// PostgreSQL standbys that answer lists and searches (docs/RELIABILITY.md, "Reading from
    /// standbys"); nil: the primary answers everything.
    public var databaseRead: String?
    /// The control socket.
    public var socketPath: String
    /// OPML imported on the first start with an empty database; nil for none.
    public var seedOPMLPath: String?
    public var logLevel: Logger.Level
    /// Who may make the server fetch loopback and private addresses (docs/ARCHITECTURE.md; `AddressPolicy`).
    public var privateNetworks = PrivateNetworkRule.admins
    /// Fetches in flight at once, in all and per host.
    public var maximumConnections = 16
    public var maximumConnectionsPerHost = 2
    /// How long entries are kept (starred ones and each feed's newest always are).
    public var retention = RetentionPolicy()
    /// Time and size limits on each fetch.
    public var fetchLimits = FetchLimits()
    /// The bounds of each feed's adaptive interval.
    public var refreshPolicy = RefreshPolicy()
    /// Where the HTTP server listens; nil for no HTTP server.
    public var httpListen = HTTPListenAddress("127.0.0.1:8080")
    /// The path the HTTP front end is served under behind a reverse proxy ("/" for the root).
    public var httpBasePath = "/"
    /// Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed.
    public var httpTrustedProxies = TrustedProxies.loopback
    /// How many connections and waiting requests the HTTP server takes (docs/RELIABILITY.md, "Load").
    public var httpLimits = HTTPLimits()
    /// Whether feeds' icons are looked for after rounds (docs/ARCHITECTURE.md).
    public var feedIcons = true
    /// This daemon's name among several sharing a PostgreSQL database (docs/ARCHITECTURE.md); nil:
    /// `ClusterNode.defaultName(socketPath:)`.
    public var nodeName: String?
    /// How long a claimed feed stays this daemon's without a renewal (docs/ARCHITECTURE.md).
    public var claimLease: TimeInterval = 60
    /// How long PostgreSQL may keep the daemon waiting (docs/RELIABILITY.md, "A busy database").
    public var databaseLimits = DatabaseLimits.daemonDefaults
    /// What a regular account may hold (docs/SECURITY.md).
    public var quotas = Quotas()
    /// The proxy every fetch goes through (docs/SECURITY.md); nil: none (environment proxies are ignored).
    public var proxy: String?

    /// Every key a file, the environment or a flag may set, with what it means.
    public static let keys: [(name: String, summary: String)] = [
        ("database", "SQLite database file, or PostgreSQL URI"),
        ("database-read", "PostgreSQL URI of standbys that answer lists and searches, each account seeing its own "
            + "writes at once (default: none, the database answers)"),
        ("socket", "control socket path"),
        ("seed-opml", "OPML file imported on the first start with an empty database"),
        ("log-level", "debug, info, warning or error"),
        ("private-networks", "who may make the server fetch loopback and private addresses: admins, all or none "
            + "(default admins)"),
        ("deny-private-networks", "true is private-networks = none (the older key; false changes nothing)"),
        ("max-connections", "fetches in flight at once (default 16)"),
        ("per-host-connections", "fetches in flight per host (default 2)"),
        ("retention-days", "entries older than this many days expire, starred ones never (default 90; 0 keeps all)"),
        ("retention-keep-per-feed", "each feed's newest this many entries never expire (default 50)"),
        ("connect-timeout", "longest wait for a feed's server to accept the connection (default 10s)"),
        ("fetch-timeout", "longest a whole fetch may take, redirects included (default 30s)"),
        ("low-speed-limit", "bytes a second below which a fetch counts as stalled (default 64; 0: never)"),
        ("low-speed-time", "how long a fetch may stay stalled before it is abandoned (default 15s)"),
        ("max-feed-size", "largest feed document accepted, after decompression (default 16M)"),
        ("min-interval", "shortest time between two checks of a feed, and the first backoff (default 15m)"),
        ("max-interval", "longest time between two checks of a feed, however rarely it posts or fails (default 24h)"),
        ("http-listen", "HOST:PORT or [IPV6]:PORT of the HTTP server, or none (default 127.0.0.1:8080)"),
        ("http-base-path", "path the HTTP APIs are served under behind a reverse proxy, e.g. /rss (default /)"),
        ("http-trusted-proxies", "addresses and networks whose X-Forwarded-For is believed, or none (default 127.0.0.0/8,::1)"),
        ("http-max-pending", "requests waiting for an answer beyond which another gets 503 with Retry-After at once; "
            + "/healthcheck and /metrics never wait or are refused (default 256)"),
        ("http-max-connections", "HTTP connections open at once (default 256)"),
        ("http-max-connections-per-address", "HTTP connections open at once from one address (default 64)"),
        ("feed-icons", "look for each feed's icon on its site after rounds, every two weeks: true or false (default true)"),
        ("node-name", "this daemon's name among several sharing a PostgreSQL database (default: host name and a digest of the control socket's path, the same across restarts)"),
        ("claim-lease", "how long a feed a daemon claimed stays its own without a renewal, on PostgreSQL (default 60s)"),
        ("db-statement-timeout", "longest a database statement may run before it is answered \"database busy\", on "
            + "PostgreSQL (default 30s; 0: no limit)"),
        ("db-lock-timeout", "longest a statement may wait for a lock held elsewhere, on PostgreSQL (default 10s; 0: no limit)"),
        ("db-idle-in-transaction-timeout", "longest a transaction may stay idle before PostgreSQL ends its session "
            + "(default 60s; 0: no limit)"),
        ("proxy", "URL of a proxy every fetch goes through (http://, https://, socks5h://…); the daemon checks each "
            + "target's address itself first (default: none; proxy environment variables are ignored)"),
    ] + Quotas.keys

    /// Keys read once at start: the database and sockets stay open, the seed list is for a first start.
    public static let startOnlyKeys: Set<String> = ["database", "database-read", "socket", "seed-opml", "http-listen", "http-base-path",
                                                    "http-trusted-proxies", "http-max-pending", "http-max-connections",
                                                    "http-max-connections-per-address", "node-name", "claim-lease",
                                                    "db-statement-timeout", "db-lock-timeout", "db-idle-in-transaction-timeout"]

    /// Keys a running daemon applies when it reloads its configuration (SIGHUP): all the others.
    public static let reloadableKeys = Set(keys.map(\.name)).subtracting(startOnlyKeys)

    /// This configuration with `running`'s values of the start-only keys, which a reload leaves as they
    /// were opened until the next start.
    public func keepingStartOnlySettings(of running: Configuration) -> Configuration {
        var kept = self
        kept.databasePath = running.databasePath
        kept.databaseRead = running.databaseRead
        kept.socketPath = running.socketPath
        kept.seedOPMLPath = running.seedOPMLPath
        kept.httpListen = running.httpListen
        kept.httpBasePath = running.httpBasePath
        kept.httpTrustedProxies = running.httpTrustedProxies
        kept.httpLimits = running.httpLimits
        kept.nodeName = running.nodeName
        kept.claimLease = running.claimLease
        kept.databaseLimits = running.databaseLimits
        return kept
    }

    /// The keys whose values differ from `previous`, in the order of `keys`.
    public func changedKeys(from previous: Configuration) -> [String] {
        let now = settingValues
        let before = previous.settingValues
        return Self.keys.map(\.name).filter { now[$0] != before[$0] }
    }

    /// Each key's value as text, e.g. to log what a reload changed.
    public var settingValues: [String: String] {
        ["database": FeedStore.location(of: databasePath), "database-read": databaseRead.map(FeedStore.location(of:)) ?? "",
         "socket": socketPath, "seed-opml": seedOPMLPath ?? "",
         "log-level": logLevel.rawValue,
         "private-networks": privateNetworks.rawValue,  // deny-private-networks only sets this
         "feed-icons": String(feedIcons),
         "max-connections": String(maximumConnections), "per-host-connections": String(maximumConnectionsPerHost),
         "retention-days": String(retention.maximumAgeDays ?? 0),
         "retention-keep-per-feed": String(retention.keepNewestPerFeed),
         "connect-timeout": Self.durationText(fetchLimits.connectTimeout),
         "fetch-timeout": Self.durationText(fetchLimits.totalTimeout),
         "low-speed-limit": String(fetchLimits.lowSpeedBytesPerSecond),
         "low-speed-time": Self.durationText(fetchLimits.lowSpeedTime),
         "max-feed-size": ConfigurationValues.sizeText(bytes: fetchLimits.maximumBodyBytes),
         "min-interval": Self.durationText(.seconds(refreshPolicy.minimumInterval)),
         "max-interval": Self.durationText(.seconds(refreshPolicy.maximumInterval)),
         "http-listen": httpListen?.description ?? "none", "http-base-path": httpBasePath,
         "http-trusted-proxies": httpTrustedProxies.description, "node-name": nodeName ?? "",
         "http-max-pending": String(httpLimits.pendingRequests), "http-max-connections": String(httpLimits.connections),
         "http-max-connections-per-address": String(httpLimits.connectionsPerAddress),
         "claim-lease": Self.durationText(.milliseconds(Int64(claimLease * 1000))), "proxy": proxy ?? "",
         "db-statement-timeout": databaseLimits.statementTimeout.map(Self.durationText) ?? "0",
         "db-lock-timeout": databaseLimits.lockTimeout.map(Self.durationText) ?? "0",
         "db-idle-in-transaction-timeout": databaseLimits.idleInTransactionTimeout.map(Self.durationText) ?? "0"]
            .merging(quotas.settingValues) { $1 }
    }

    /// Builds the configuration from its sources.
    /// - Parameters:
    ///   - flags: `--key value` settings from the command line, keyed by name.
    ///   - environment: the process environment (`AGGREGATOR_DATABASE`, …, and the XDG/systemd paths).
    ///   - file: the text of the configuration file, if there is one, and its path for messages.
    ///   - defaultSeedOPML: the seed list to use when none is configured.
    public static func resolve(
        flags: [String: String],
        environment: [String: String],
        file: (path: String, text: String)? = nil,
        defaultSeedOPML: String? = nil
    ) throws(ConfigurationError) -> Configuration {
        var values: [String: String] = [:]
        if let file { values = try parseFile(file.text, path: file.path) }
        for (name, _) in keys {
            let variable = "AGGREGATOR_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            if let value = environment[variable] { values[name] = value }
        }
        for (name, value) in flags {
            guard keys.contains(where: { $0.name == name }) else { throw .unknownKey(name, source: "command line") }
            values[name] = value
        }
        guard let logLevel = Logger.Level(rawValue: values["log-level"] ?? "info") else {
            throw .invalidValue(key: "log-level", value: values["log-level"] ?? "",
                                expected: "debug, info, warning or error")
        }
        let paths = StatePaths(environment: environment)
        let seed = values["seed-opml"].map { $0.isEmpty ? nil : $0 } ?? defaultSeedOPML
        var configuration = Configuration(
            databasePath: nonEmpty(values["database"]) ?? paths.defaultDatabase,
            socketPath: nonEmpty(values["socket"]) ?? paths.defaultSocket,
            seedOPMLPath: seed,
            logLevel: logLevel
        )
        configuration.databaseRead = try databaseRead(values["database-read"], database: configuration.databasePath)
        if let value = values["private-networks"] {
            guard let rule = PrivateNetworkRule(rawValue: value.lowercased()) else {
                throw .invalidValue(key: "private-networks", value: value, expected: "admins, all or none")
            }
            configuration.privateNetworks = rule
        }
        if let value = values["deny-private-networks"] {
            switch value.lowercased() {
            // The older key counts only where the newer is set nowhere, whichever source set each.
            case "true", "yes", "1": if values["private-networks"] == nil { configuration.privateNetworks = .none }
            case "false", "no", "0": break
            default: throw .invalidValue(key: "deny-private-networks", value: value, expected: "true or false")
            }
        }
        if let value = values["feed-icons"] {
            switch value.lowercased() {
            case "true", "yes", "1": configuration.feedIcons = true
            case "false", "no", "0": configuration.feedIcons = false
            default: throw .invalidValue(key: "feed-icons", value: value, expected: "true or false")
            }
        }
        if let name = values["node-name"], !name.isEmpty {
            guard name.count <= 200, !name.contains(where: { $0.isNewline || $0 == "\u{1F}" }) else {
                throw .invalidValue(key: "node-name", value: name, expected: "a name of one line, at most 200 characters")
            }
            configuration.nodeName = name
        }
        configuration.claimLease = Self.seconds(try duration("claim-lease", values, default: .seconds(60),
                                                             in: 3_000...3_600_000, examples: "30s, 60s or 5m"))
        configuration.databaseLimits = try databaseLimits(values)
        configuration.quotas = try Quotas.resolve(values)
        configuration.proxy = try proxy(values["proxy"])
        configuration.maximumConnections = try positive("max-connections", values, default: 16)
        configuration.maximumConnectionsPerHost = try positive("per-host-connections", values, default: 2)
        let days = try whole("retention-days", values, default: 90, in: 0...36_500)
        configuration.retention = RetentionPolicy(
            maximumAgeDays: days == 0 ? nil : days,
            keepNewestPerFeed: try whole("retention-keep-per-feed", values, default: 50, in: 0...1_000_000))
        try readFetching(values, into: &configuration)
        try readHTTP(values, into: &configuration)
        return configuration
    }

    /// `database-read`: a PostgreSQL URI beside a PostgreSQL `database`, or nothing.
    private static func databaseRead(_ value: String?, database: String) throws(ConfigurationError) -> String? {
        guard let value = nonEmpty(value) else { return nil }
        guard FeedStore.canBeShared(value), FeedStore.canBeShared(database) else {
            throw .invalidValue(key: "database-read", value: FeedStore.location(of: value),
                                expected: "a PostgreSQL URI (postgresql://…), beside a PostgreSQL database")
        }
        return value
    }

    /// The `db-…-timeout` keys: a duration up to a day, or 0 for none.
    private static func databaseLimits(_ values: [String: String]) throws(ConfigurationError) -> DatabaseLimits {
        func limit(_ key: String, _ fallback: Duration?) throws(ConfigurationError) -> Duration? {
            let value = try duration(key, values, default: fallback ?? .zero, in: 0...86_400_000, examples: "30s, 2m or 0")
            return value == .zero ? nil : value
        }
        let defaults = DatabaseLimits.daemonDefaults
        return DatabaseLimits(statementTimeout: try limit("db-statement-timeout", defaults.statementTimeout),
                              lockTimeout: try limit("db-lock-timeout", defaults.lockTimeout),
                              idleInTransactionTimeout: try limit("db-idle-in-transaction-timeout", defaults.idleInTransactionTimeout))
    }

    /// The keys of each fetch's limits and of feeds' intervals.
    private static func readFetching(_ values: [String: String], into configuration: inout Configuration) throws(ConfigurationError) {
        var limits = FetchLimits()
        limits.connectTimeout = try duration("connect-timeout", values, default: limits.connectTimeout)
        limits.totalTimeout = try duration("fetch-timeout", values, default: limits.totalTimeout)
        limits.lowSpeedBytesPerSecond = try whole("low-speed-limit", values, default: limits.lowSpeedBytesPerSecond,
                                                  in: 0...(1 << 30))
        // libcurl counts a stall in whole seconds.
        limits.lowSpeedTime = try duration("low-speed-time", values, default: limits.lowSpeedTime, wholeSeconds: true)
        if let text = values["max-feed-size"] {
            guard let bytes = ConfigurationValues.bytes(text), (1 << 10...1 << 30).contains(bytes) else {
                throw .invalidValue(key: "max-feed-size", value: text, expected: "a size from 1K to 1G, such as 16M or 512K")
            }
            limits.maximumBodyBytes = bytes
        }
        configuration.fetchLimits = limits
        let millisecondsPerDay = 86_400_000
        let minimum = try duration("min-interval", values, default: .seconds(15 * 60), in: 60_000...millisecondsPerDay,
                                   examples: "30m, 2h or 1d")
        let maximum = try duration("max-interval", values, default: .seconds(24 * 3600),
                                   in: 60_000...30 * millisecondsPerDay, examples: "6h, 1d or 7d")
        guard minimum <= maximum else {
            throw .invalidValue(key: "min-interval", value: values["min-interval"] ?? Self.durationText(minimum),
                                expected: "at most max-interval (\(Self.durationText(maximum)))")
        }
        configuration.refreshPolicy.minimumInterval = Self.seconds(minimum)
        configuration.refreshPolicy.maximumInterval = Self.seconds(maximum)
    }

    /// The HTTP server's keys: where it listens, its base path, the proxies it believes.
    private static func readHTTP(_ values: [String: String], into configuration: inout Configuration) throws(ConfigurationError) {
        if let text = values["http-listen"] {
            if text.lowercased() == "none" {
                configuration.httpListen = nil
            } else {
                guard let address = HTTPListenAddress(text) else {
                    throw .invalidValue(key: "http-listen", value: text,
                                        expected: "HOST:PORT or [IPV6]:PORT with a numeric address, or none")
                }
                configuration.httpListen = address
            }
        }
        if let text = values["http-base-path"] {
            let trimmed = text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
            guard trimmed.hasPrefix("/"), !trimmed.contains("//"),
                  !trimmed.contains(where: { $0.isWhitespace || "?#%\\".contains($0) }) else {
                throw .invalidValue(key: "http-base-path", value: text, expected: "a path starting with /, such as /rss")
            }
            configuration.httpBasePath = trimmed
        }
        if let text = values["http-trusted-proxies"] {
            guard let proxies = TrustedProxies(text) else {
                throw .invalidValue(key: "http-trusted-proxies", value: text,
                                    expected: "numeric addresses or networks (10.0.0.0/8, ::1) separated by commas, or none")
            }
            configuration.httpTrustedProxies = proxies
        }
        configuration.httpLimits.pendingRequests = try whole("http-max-pending", values, default: 256, in: 1...100_000)
        configuration.httpLimits.connections = UInt32(try whole("http-max-connections", values, default: 256, in: 1...60_000))
        configuration.httpLimits.connectionsPerAddress = UInt32(try whole("http-max-connections-per-address", values,
                                                                          default: 64, in: 1...60_000))
    }

    /// A duration key: `500ms`, `10s`, `2m`, `1h`, `7d` (a bare number is seconds), within `range`
    /// milliseconds (by default 1 ms to 1 hour).
    private static func duration(_ key: String, _ values: [String: String], default fallback: Duration,
                                 in range: ClosedRange<Int> = 1...3_600_000, examples: String = "10s, 500ms or 2m",
                                 wholeSeconds: Bool = false) throws(ConfigurationError) -> Duration {
        guard let text = values[key] else { return fallback }
        guard let milliseconds = ConfigurationValues.milliseconds(text), range.contains(milliseconds),
              !wholeSeconds || milliseconds % 1_000 == 0 else {
            let bounds = "from \(ConfigurationValues.durationText(milliseconds: range.lowerBound)) "
                + "to \(ConfigurationValues.durationText(milliseconds: range.upperBound))"
            throw .invalidValue(key: key, value: text, expected: wholeSeconds
                ? "whole seconds \(bounds), such as 15s" : "a duration \(bounds), such as \(examples)")
        }
        return .milliseconds(milliseconds)
    }

    private static func durationText(_ duration: Duration) -> String {
        ConfigurationValues.durationText(milliseconds: Int((seconds(duration) * 1_000).rounded()))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    private static func positive(_ key: String, _ values: [String: String], default fallback: Int) throws(ConfigurationError) -> Int {
        try whole(key, values, default: fallback, in: 1...1024)
    }

    private static func whole(_ key: String, _ values: [String: String], default fallback: Int,
                              in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = values[key] else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw .invalidValue(key: key, value: value,
                                expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Parses `key = value` lines; `#` starts a comment line, blank lines are skipped.
    static func parseFile(_ text: String, path: String) throws(ConfigurationError) -> [String: String] {
        var values: [String: String] = [:]
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .malformedLine(path: path, line: offset + 1, text: line)
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard keys.contains(where: { $0.name == key }) else {
                throw .unknownKey(key, source: "\(path) line \(offset + 1)")
            }
            values[key] = value
        }
        return values
    }

    /// The `proxy` key: a URL with a scheme curl speaks to proxies and a host; "" is none.
    private static func proxy(_ text: String?) throws(ConfigurationError) -> String? {
        guard let text, !text.isEmpty else { return nil }
        let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
              url.host?.isEmpty == false, !text.contains(where: { $0.isWhitespace }) else {
            throw .invalidValue(key: "proxy", value: text, expected: "a URL such as http://proxy.lan:3128 or socks5h://127.0.0.1:1080 "
                + "(\(schemes.joined(separator: ", "))), or nothing")
        }
        return text
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}

/// A configuration that cannot be used; the message names the key or line.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case unknownKey(String, source: String)
    case malformedLine(path: String, line: Int, text: String)
    case invalidValue(key: String, value: String, expected: String)
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownKey(let key, let source):
            "unknown configuration key '\(key)' (\(source)); known keys: "
                + Configuration.keys.map(\.name).joined(separator: ", ")
        case .malformedLine(let path, let line, let text):
            "\(path) line \(line): expected 'key = value', found '\(text)'"
        case .invalidValue(let key, let value, let expected):
            "invalid value '\(value)' for '\(key)': expected \(expected)"
        case .unreadableFile(let path, let reason):
            "cannot read configuration file \(path): \(reason)"
        }
    }
}

/// Who may make the server fetch loopback, private and other non-public addresses (feeds, discovery).
/// Link-local and cloud metadata ranges are refused for everyone whatever the rule.
public enum PrivateNetworkRule: String, Sendable, Equatable {
    /// Admins may (a self-hoster's LAN bridges); regular accounts may not: their subscriptions to
    /// such addresses are refused, and a feed only regular accounts follow is refused them at every
    /// fetch and redirect (`FetchRequest.refusingPrivateNetworks`).
    case admins
    /// Everyone may (tests and benchmarks on a loopback farm).
    case all
    /// No one may.
    case none

    /// The fetcher's policy: what admins' fetches may reach.
    var addressPolicy: AddressPolicy {
        AddressPolicy(denyPrivateNetworks: self == .none, reason: "private-networks = \(rawValue)")
    }

    /// The rule a fetch for regular accounts only adds (nil: none, their fetches are as admins').
    var refusalForRegularAccounts: String? {
        self == .admins ? "private-networks = admins: only admins' feeds may reach private addresses" : nil
    }
}
