import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import Glibc
import HTTPAPI
import HTTPServer

/// The daemon's life: configuration, opening the store, seeding it, and waiting for a stop signal.
enum DaemonStartup {
    /// Reads the configuration file (the one named, or the usual one when it exists) and resolves settings.
    static func configuration(
        configFile: String?, settings: [String: String], environment: [String: String]
    ) throws -> Configuration {
        let path = configFile ?? defaultConfigFile(environment: environment)
        var file: (path: String, text: String)?
        if let path {
            do {
                file = (path, try String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw ConfigurationError.unreadableFile(path: path, reason: "no such file, or not readable UTF-8")
            }
        }
        return try Configuration.resolve(flags: settings, environment: environment, file: file,
                                         defaultSeedOPML: bundledSeedOPML())
    }

    /// Opens the database, imports the seed list on first start, then runs until SIGINT or SIGTERM;
    /// SIGHUP reloads the configuration.
    static func run(_ reload: ConfigurationReload, logger: Logger) async throws {
        let configuration = reload.running
        let signals = SignalWatcher()
        let environment = ProcessInfo.processInfo.environment
        let systemd = SystemdNotifier(environment: environment)
        let (store, claim) = try systemd.extendingStartTimeout(stillRunning: {
            // Only a schema migration of a large database takes this long (minutes at a million entries).
            logger.info("Still opening the database (a schema migration may be running)",
                        ["database": FeedStore.location(of: configuration.databasePath)])
            systemd.status("Opening the database: migrating its schema")
        }) { try openStore(configuration: configuration, logger: logger) }
        try await SeedImport.runIfEmpty(store: store, opmlPath: configuration.seedOPMLPath, logger: logger)
        let cluster = try openCluster(configuration, logger: logger)
        let service = AggregatorService(configuration: configuration, store: store, logger: logger, cluster: cluster)
        let (socket, socketMode) = try openControlSocket(configuration, logger: logger)
        let server = ControlServer(descriptor: socket) { user in
            // Root and the daemon's own user always; others only reach a group-accessible socket
            // through its file mode, which already checked their group.
            user == 0 || user == getuid() || socketMode & 0o070 != 0
        }
        let handler = ControlHandler(service: service)
        let frontEnd = HTTPFrontEnd(service: service, logger: logger.component("http"), basePath: configuration.httpBasePath,
                                    trustedProxies: configuration.httpTrustedProxies)
        let http = try startHTTP(configuration, logger: logger, bodyLimit: frontEnd.bodyLimit)
        if let http { frontEnd.countShed { http.shedRequests } }
        let watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        let memory = MemoryReturner()
        logger.info("Started", ["version": AggregatorVersion.current, "database": FeedStore.location(of: configuration.databasePath),
                                "socket": configuration.socketPath, "feeds": try await store.feedCount(), "pid": getpid()])
        // The root task group: the scheduler and the signal watcher. A stop signal cancels the group,
        // and cancellation reaches every fetch in flight.
        let stopSignals = signals.signals
        systemd.ready()  // the control socket listens: clients may connect from now on
        systemd.status("Started; first refresh round running")
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await service.runScheduler { summary in
                    systemd.status("Last round: " + summary.line)
                    memory.noteWork()
                }
            }
            group.addTask { await memory.run(logger: logger) }
            if let cluster { group.addTask { await reportDatabase(of: cluster, to: systemd) } }
            if let watchdogInterval {
                group.addTask { await feedWatchdog(systemd, every: watchdogInterval, while: service.heartbeat) }
            }
            group.addTask {
                await server.run { request, notifier in
                    defer { memory.noteWork() }
                    return await handler.handle(request, notifier: notifier)
                }
            }
            if let http {
                group.addTask {
                    await http.run { request in
                        defer { memory.noteWork() }
                        return await frontEnd.handle(request)
                    }
                }
            }
            group.addTask {
                await answerSignals(stopSignals, reload: reload, service: service, systemd: systemd, logger: logger)
            }
            await group.next()
            group.cancelAll()
        }
        service.stopFetching()  // the HTTP server stopped as its `run` ended with the group
        if ProcessInfo.processInfo.environment["LISTEN_FDS"] == nil { unlink(configuration.socketPath) }
        withExtendedLifetime(signals) {}  // the dispatch sources must outlive the wait above
        withExtendedLifetime(claim) {}  // no other daemon opens the database until this one is done
        logger.info("Stopped")
    }

    /// systemd's status says when the shared database is away, and when it is back.
    private static func reportDatabase(of cluster: ClusterNode, to systemd: SystemdNotifier) async {
        var said: String?
        while !Task.isCancelled {
            let reason = cluster.unavailableReason
            if reason != said {
                systemd.status(reason.map { "Database unreachable, retrying: " + $0 } ?? "Database reachable again")
                said = reason
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }

    /// WATCHDOG=1 only while the scheduler makes progress: a stuck daemon gets restarted.
    private static func feedWatchdog(_ systemd: SystemdNotifier, every interval: Duration, while heartbeat: Heartbeat) async {
        let seconds = Double(interval.components.seconds) * 2 + Double(interval.components.attoseconds) * 2e-18
        while !Task.isCancelled {
            if heartbeat.isFresh(within: max(seconds, 1)) { systemd.watchdog() }
            try? await Task.sleep(for: interval)
        }
    }

    /// SIGHUP reloads the configuration; SIGTERM or SIGINT returns, which stops the daemon.
    private static func answerSignals(_ signals: AsyncStream<Int32>, reload: ConfigurationReload, service: AggregatorService,
                                      systemd: SystemdNotifier, logger: Logger) async {
        var reload = reload
        for await signal in signals {
            if signal == SIGHUP {
                systemd.reloading()
                await reload.reload(logger: logger, service: service)
                systemd.ready()
                continue
            }
            logger.info("Stopping", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT"])
            systemd.stopping()
            return
        }
    }

    /// `--once`: refreshes every feed, expires old entries, prints the summary line on stdout, and
    /// says whether no feed failed.
    static func refreshOnce(configuration: Configuration, logger: Logger) async throws -> Bool {
        let (store, claim) = try openStore(configuration: configuration, logger: logger)
        defer { withExtendedLifetime(claim) {} }
        try await SeedImport.runIfEmpty(store: store, opmlPath: configuration.seedOPMLPath, logger: logger)
        let service = AggregatorService(configuration: configuration, store: store, logger: logger,
                                        cluster: try openCluster(configuration, logger: logger))
        let summary = try await service.refreshEverythingOnce()
        service.stopFetching()
        print(summary.line)
        return summary.failed == 0
    }

    /// This daemon as one of several on a PostgreSQL database (docs/ARCHITECTURE.md); nil on SQLite.
    private static func openCluster(_ configuration: Configuration, logger: Logger) throws -> ClusterNode? {
        guard FeedStore.canBeShared(configuration.databasePath) else { return nil }
        let name = configuration.nodeName ?? ClusterNode.defaultName(socketPath: configuration.socketPath)
        logger.info("Sharing the database with any other daemons", ["node": name, "claim_lease_s": Int(configuration.claimLease)])
        return try ClusterNode(uri: configuration.databasePath, name: name, lease: configuration.claimLease,
                               connectionsPerHost: configuration.maximumConnectionsPerHost, logger: logger.component("cluster"))
    }

    /// The listening control socket: systemd's (LISTEN_FDS) when socket-activated, else our own at
    /// the configured path (0660 under systemd, where a group shares it; 0600 for a user's daemon).
    private static func openControlSocket(_ configuration: Configuration, logger: Logger) throws -> (Int32, mode_t) {
        let environment = ProcessInfo.processInfo.environment
        if let passed = PassedSockets(environment: environment), let control = passed.control {
            logger.info("Using the socket systemd passed", ["fds": passed.count])
            return (control, 0o660)
        }
        let mode: mode_t = environment["RUNTIME_DIRECTORY"] == nil ? 0o600 : 0o660
        return (try UnixSocket.listen(path: configuration.socketPath, mode: mode), mode)
    }

    /// The HTTP server on `http-listen` (requests wait for its `run`), or nil when it is `none`.
    /// - Throws: `HTTPServerError` when the address cannot be listened on (in use, not ours).
    private static func startHTTP(_ configuration: Configuration, logger: Logger,
                                  bodyLimit: @escaping HTTPServer.BodyLimit) throws -> HTTPServer? {
        raiseOpenFileLimit()
        let base = configuration.httpBasePath == "/" ? "" : configuration.httpBasePath
        // Monitors' routes are never shed under load (docs/RELIABILITY.md, "Load").
        let monitored: Set<String> = [base + "/healthcheck", base + "/metrics"]
        let neverShed: @Sendable (String) -> Bool = { monitored.contains($0) }
        if let passed = PassedSockets(environment: ProcessInfo.processInfo.environment), let http = passed.http {
            logger.info("Using the HTTP socket systemd passed", ["fd": http])
            return try HTTPServer(descriptor: http, limits: configuration.httpLimits, bodyLimit: bodyLimit, neverShed: neverShed)
        }
        guard let address = configuration.httpListen else { return nil }
        let server = try HTTPServer(descriptor: try address.listen(), limits: configuration.httpLimits, bodyLimit: bodyLimit,
                                    neverShed: neverShed)
        logger.info("HTTP server listening", ["address": address.description, "web_page": "http://\(address)\(base)/",
                                              "healthcheck": "http://\(address)\(base)/healthcheck"])
        return server
    }

    /// Every HTTP connection holds a descriptor (up to twice `http-max-connections`), besides the
    /// database's and the fetches': the soft limit (1,024 unless raised) goes up to the hard one.
    private static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The store, and this process's claim on its file (held as long as the store is used). A
    /// PostgreSQL database has no file to claim (several daemons may share one: docs/ARCHITECTURE.md,
    /// "Several daemons").
    private static func openStore(configuration: Configuration, logger: Logger) throws -> (FeedStore, DatabaseClaim?) {
        // Every connection the daemon opens from here on (the store's, its readers', the cluster's).
        DatabaseLimits.current = configuration.databaseLimits
        if !FeedStore.isFile(configuration.databasePath) {
            return (try FeedStore(path: configuration.databasePath, entryRules: EntryRuleMatcher(logger: logger)), nil)
        }
        let directory = FilePath.directory(of: configuration.databasePath)
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let claim = try DatabaseClaim.claim(databasePath: configuration.databasePath)
        return (try FeedStore(path: configuration.databasePath, entryRules: EntryRuleMatcher(logger: logger)), claim)
    }

    /// The system or user configuration file, when one exists.
    private static func defaultConfigFile(environment: [String: String]) -> String? {
        var candidates: [String] = []
        if let directory = environment["CONFIGURATION_DIRECTORY"]?.split(separator: ":").first {
            candidates.append("\(directory)/aggregatord.conf")
        }
        let configHome = environment["XDG_CONFIG_HOME"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        candidates.append(configHome + "/aggregator/aggregatord.conf")
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// `feeds.opml` of the checkout the binary was built in (`.build/<config>/aggregatord`), or the
    /// installed copy in `PREFIX/share/aggregator/`.
    static func bundledSeedOPML() -> String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/aggregator/feeds.opml")
        if FileManager.default.fileExists(atPath: installed.path) { return installed.path }
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            let seed = directory.appendingPathComponent("feeds.opml")
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               FileManager.default.fileExists(atPath: seed.path) {
                return seed.path
            }
        }
        return nil
    }
}
