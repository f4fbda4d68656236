import AggregatorCore
import FeedFetcher
import FeedStore
import Foundation
import Testing

@Suite struct ConfigurationTests {
    let environment = ["HOME": "/home/ada", "XDG_RUNTIME_DIR": "/run/user/1000"]

    @Test func defaultsFollowXDGPaths() throws {
        let configuration = try Configuration.resolve(flags: [:], environment: environment)
        #expect(configuration.databasePath == "/home/ada/.local/state/aggregator/aggregator.db")
        #expect(configuration.socketPath == "/run/user/1000/aggregator/aggregatord.sock")
        #expect(configuration.logLevel == .info)
        #expect(configuration.seedOPMLPath == nil)
    }

    @Test func systemdDirectoriesWinOverXDG() throws {
        let systemd = environment.merging(["STATE_DIRECTORY": "/var/lib/aggregator", "RUNTIME_DIRECTORY": "/run/aggregator"]) { $1 }
        let configuration = try Configuration.resolve(flags: [:], environment: systemd)
        #expect(configuration.databasePath == "/var/lib/aggregator/aggregator.db")
        #expect(configuration.socketPath == "/run/aggregator/aggregatord.sock")
    }

    @Test func flagBeatsEnvironmentWhichBeatsFile() throws {
        let file = (path: "/etc/aggregator/aggregatord.conf", text: """
            # comment
            database = /from/file.db
            log-level = "warning"
            socket = /from/file.sock
            """)
        let configuration = try Configuration.resolve(
            flags: ["database": "/from/flag.db"],
            environment: environment.merging(["AGGREGATOR_DATABASE": "/from/env.db",
                                              "AGGREGATOR_LOG_LEVEL": "debug"]) { $1 },
            file: file)
        #expect(configuration.databasePath == "/from/flag.db")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.socketPath == "/from/file.sock")
    }

    @Test func unknownKeysAreNamed() {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: [:], environment: environment,
                                      file: (path: "a.conf", text: "databse = /x.db"))
        }
        #expect(error == .unknownKey("databse", source: "a.conf line 1"))
        #expect(error?.description.contains("unknown configuration key 'databse'") == true)
    }

    @Test func badLinesAndValuesAreRefused() {
        #expect(throws: ConfigurationError.malformedLine(path: "a.conf", line: 2, text: "oops")) {
            try Configuration.resolve(flags: [:], environment: environment, file: (path: "a.conf", text: "\noops"))
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["log-level": "loud"], environment: environment)
        }
    }

    @Test func retentionKeepsNinetyDaysByDefaultAndZeroKeepsEverything() throws {
        #expect(try Configuration.resolve(flags: [:], environment: environment).retention
            == RetentionPolicy(maximumAgeDays: 90, keepNewestPerFeed: 50))
        let forever = try Configuration.resolve(flags: ["retention-days": "0", "retention-keep-per-feed": "5"],
                                                environment: environment)
        #expect(forever.retention == RetentionPolicy(maximumAgeDays: nil, keepNewestPerFeed: 5))
        #expect(throws: ConfigurationError.invalidValue(key: "retention-days", value: "-1",
                                                        expected: "a whole number from 0 to 36500")) {
            try Configuration.resolve(flags: ["retention-days": "-1"], environment: environment)
        }
    }

    /// `private-networks` (docs/ARCHITECTURE.md): admins by default; the older `deny-private-networks = true` is `none`
    /// where the newer key is set nowhere, and its `false` leaves the rule as it is.
    @Test func privateNetworksIsARuleTheOlderKeyStillSets() throws {
        #expect(try Configuration.resolve(flags: [:], environment: environment).privateNetworks == .admins)
        #expect(try Configuration.resolve(flags: ["private-networks": "ALL"], environment: environment).privateNetworks == .all)
        #expect(try Configuration.resolve(flags: [:], environment: ["AGGREGATOR_PRIVATE_NETWORKS": "none"])
            .privateNetworks == .none)
        #expect(try Configuration.resolve(flags: ["deny-private-networks": "true"], environment: environment)
            .privateNetworks == .none)
        let file = (path: "a.conf", text: "deny-private-networks = true\n")
        #expect(try Configuration.resolve(flags: ["private-networks": "all"], environment: environment, file: file)
            .privateNetworks == .all, "the newer key, from any source, outranks the older")
        #expect(try Configuration.resolve(flags: ["deny-private-networks": "false", "private-networks": "all"],
                                          environment: environment).privateNetworks == .all)
        #expect(throws: ConfigurationError.invalidValue(key: "private-networks", value: "some", expected: "admins, all or none")) {
            try Configuration.resolve(flags: ["private-networks": "some"], environment: environment)
        }
    }

    @Test func fetchLimitsTakeDurationsAndSizesWithUnits() throws {
        #expect(try Configuration.resolve(flags: [:], environment: environment).fetchLimits == FetchLimits())
        let file = (path: "a.conf", text: """
            connect-timeout = 1500ms
            fetch-timeout = 2m
            low-speed-limit = 0
            low-speed-time = 5
            max-feed-size = 512K
            """)
        let limits = try Configuration.resolve(flags: [:], environment: environment, file: file).fetchLimits
        #expect(limits.connectTimeout == .milliseconds(1_500))
        #expect(limits.totalTimeout == .seconds(120))
        #expect(limits.lowSpeedBytesPerSecond == 0)
        #expect(limits.lowSpeedTime == .seconds(5))
        #expect(limits.maximumBodyBytes == 512 << 10)
        let other = try Configuration.resolve(flags: ["fetch-timeout": "0.25s", "max-feed-size": "1G"], environment: environment)
        #expect(other.fetchLimits.totalTimeout == .milliseconds(250) && other.fetchLimits.maximumBodyBytes == 1 << 30)
        #expect(try Configuration.resolve(flags: [:], environment: environment, file: file).settingValues["connect-timeout"]
                    == "1500ms")
        #expect(other.settingValues["fetch-timeout"] == "250ms" && other.settingValues["max-feed-size"] == "1G")
    }

    @Test func intervalsBoundEachFeedsScheduleAndTheMinimumMayNotPassTheMaximum() throws {
        let defaults = try Configuration.resolve(flags: [:], environment: environment).refreshPolicy
        #expect(defaults == RefreshPolicy())
        let set = try Configuration.resolve(flags: ["min-interval": "5m", "max-interval": "7d"], environment: environment)
        #expect(set.refreshPolicy.minimumInterval == 300 && set.refreshPolicy.maximumInterval == 7 * 86_400)
        #expect(set.settingValues["min-interval"] == "5m" && set.settingValues["max-interval"] == "7d")
        let unset = try Configuration.resolve(flags: [:], environment: environment)
        #expect(set.changedKeys(from: unset) == ["min-interval", "max-interval"])
        #expect(throws: ConfigurationError.invalidValue(key: "min-interval", value: "2h", expected: "at most max-interval (1h)")) {
            try Configuration.resolve(flags: ["min-interval": "2h", "max-interval": "1h"], environment: environment)
        }
        #expect(throws: ConfigurationError.invalidValue(key: "min-interval", value: "10s",
                                                        expected: "a duration from 1m to 1d, such as 30m, 2h or 1d")) {
            try Configuration.resolve(flags: ["min-interval": "10s"], environment: environment)
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["max-interval": "31d"], environment: environment)
        }
    }

    @Test(arguments: [("connect-timeout", "soon"), ("connect-timeout", "0s"), ("fetch-timeout", "2h"),
                      ("fetch-timeout", "-1s"), ("low-speed-time", "1500ms"), ("max-feed-size", "2G"),
                      ("max-feed-size", "16 parsecs"), ("max-feed-size", "1.5M"), ("low-speed-limit", "fast")])
    func badLimitsAreRefusedNamingTheKeyAndTheForm(key: String, value: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: [key: value], environment: environment)
        }
        guard case .invalidValue(let named, let given, let expected) = error else {
            Issue.record("not an invalid value: \(String(describing: error))")
            return
        }
        #expect(named == key && given == value && !expected.isEmpty)
    }

    /// The configuration file `make install` ships documents every key with its default, and
    /// reads back, uncommented, as exactly the defaults.
    @Test func theShippedFileDocumentsEveryKeyWithItsDefault() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("aggregatord.conf").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // "# key = default" lines: a name of lowercase letters and dashes, then " =".
        let settings = text.split(separator: "\n").filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) }.filter { line in
            let name = line.prefix { $0.isLowercase || $0 == "-" }
            return !name.isEmpty && line.dropFirst(name.count).hasPrefix(" =")
        }
        let names = Set(settings.map { String($0.prefix { $0 != " " }) })
        #expect(names == Set(Configuration.keys.map(\.name)), "\(path)")
        let uncommented = settings.filter { !["database", "socket", "seed-opml"].contains(String($0.prefix { $0 != " " })) }
        let shipped = try Configuration.resolve(flags: [:], environment: environment,
                                                file: (path: path, text: uncommented.joined(separator: "\n")))
        #expect(shipped == (try Configuration.resolve(flags: [:], environment: environment)))
    }

    @Test func changedKeysNameWhatDiffersAndWhichOfItAReloadApplies() throws {
        let before = try Configuration.resolve(flags: [:], environment: environment)
        let after = try Configuration.resolve(
            flags: [:], environment: environment,
            file: (path: "a.conf", text: "log-level = debug\nmax-connections = 4\ndatabase = /elsewhere.db"))
        #expect(after.changedKeys(from: before) == ["database", "log-level", "max-connections"])
        #expect(after.changedKeys(from: before).filter(Configuration.reloadableKeys.contains) == ["log-level", "max-connections"])
        #expect(before.changedKeys(from: before).isEmpty)
        let slower = try Configuration.resolve(flags: ["fetch-timeout": "45s"], environment: environment)
        #expect(slower.changedKeys(from: before) == ["fetch-timeout"])
        #expect(Configuration.reloadableKeys.contains("fetch-timeout"))
    }

    /// A reload keeps the running values of every start-only key (and of no other): after it, only
    /// reloadable keys differ from what runs.
    @Test func aReloadKeepsEveryStartOnlySetting() throws {
        let running = try Configuration.resolve(flags: [:], environment: environment)
        let next = try Configuration.resolve(flags: [
            "database": "postgresql:///elsewhere", "database-read": "postgresql:///elsewhere?host=standby", "socket": "/elsewhere.sock", "seed-opml": "/other.opml",
            "http-listen": "127.0.0.1:9999", "log-level": "debug", "http-base-path": "/rss",
            "http-trusted-proxies": "none", "node-name": "web-2", "claim-lease": "2m",
            "db-statement-timeout": "5s", "db-lock-timeout": "0", "db-idle-in-transaction-timeout": "2m",
            "http-max-pending": "10", "http-max-connections": "20", "http-max-connections-per-address": "5",
        ], environment: environment)
        #expect(Set(next.changedKeys(from: running)).isSuperset(of: Configuration.startOnlyKeys))
        #expect(next.keepingStartOnlySettings(of: running).changedKeys(from: running) == ["log-level"])
    }

    /// `database-read` (docs/RELIABILITY.md, "Reading from standbys") names PostgreSQL standbys
    /// beside a PostgreSQL database, and nothing else; its password is never shown.
    @Test func standbysAreReadOnlyBesideAPostgreSQLDatabase() throws {
        let set = try Configuration.resolve(flags: ["database": "postgresql:///feeds",
                                                    "database-read": "postgresql://reader:secret@standby/feeds"],
                                            environment: environment)
        #expect(set.databaseRead == "postgresql://reader:secret@standby/feeds")
        #expect(set.settingValues["database-read"]?.contains("secret") == false)
        #expect(try Configuration.resolve(flags: ["database": "postgresql:///feeds"], environment: environment).databaseRead == nil)
        for (database, standby) in [("/var/lib/feeds.db", "postgresql://standby/feeds"), ("postgresql:///feeds", "/var/lib/copy.db")] {
            #expect(throws: ConfigurationError.self) {
                try Configuration.resolve(flags: ["database": database, "database-read": standby], environment: environment)
            }
        }
    }

    /// The database's limits (docs/RELIABILITY.md, "A busy database"): defaults, a duration, 0 for
    /// none; anything else refused naming the key.
    @Test func theDatabaseLimitsAreDurationsOrZero() throws {
        let defaults = try Configuration.resolve(flags: [:], environment: environment).databaseLimits
        #expect(defaults == DatabaseLimits(statementTimeout: .seconds(30), lockTimeout: .seconds(10),
                                           idleInTransactionTimeout: .seconds(60)))
        let set = try Configuration.resolve(flags: ["db-lock-timeout": "1500ms", "db-statement-timeout": "0"],
                                            environment: environment)
        #expect(set.databaseLimits.lockTimeout == .milliseconds(1500) && set.databaseLimits.statementTimeout == nil)
        #expect(set.databaseLimits.settings == "SET statement_timeout = 0; SET lock_timeout = 1500; "
                + "SET idle_in_transaction_session_timeout = 60000")
        #expect(set.settingValues["db-statement-timeout"] == "0" && set.settingValues["db-lock-timeout"] == "1500ms")
        for bad in ["-1s", "soon", "2d"] {
            #expect(throws: ConfigurationError.self) { try Configuration.resolve(flags: ["db-lock-timeout": bad], environment: environment) }
        }
    }

    @Test func theHTTPBasePathAndTrustedProxiesAreChecked() throws {
        let set = try Configuration.resolve(flags: ["http-base-path": "/rss/", "http-trusted-proxies": "10.0.0.0/8,::1"],
                                            environment: environment)
        #expect(set.httpBasePath == "/rss" && set.httpTrustedProxies.trusts("10.1.2.3"))
        #expect(try Configuration.resolve(flags: [:], environment: environment).httpBasePath == "/")
        for (key, value) in [("http-base-path", "rss"), ("http-base-path", "/a b"), ("http-base-path", "//x"),
                             ("http-trusted-proxies", "proxy.example")] {
            #expect(throws: ConfigurationError.self, "\(key) = \(value)") {
                try Configuration.resolve(flags: [key: value], environment: environment)
            }
        }
    }
}
