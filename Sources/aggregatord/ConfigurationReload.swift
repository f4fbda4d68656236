import AggregatorCore
import Foundation

/// SIGHUP: the configuration read again from the sources it came from (the same flags and environment,
/// the configuration file as it is now), and what a running daemon can change applied at once.
/// A file that cannot be read or holds a bad value is reported, and the running configuration kept.
struct ConfigurationReload {
    let configFile: String?
    let flags: [String: String]
    let environment: [String: String]
    /// What the daemon runs with now.
    private(set) var running: Configuration

    init(configFile: String?, flags: [String: String], environment: [String: String], running: Configuration) {
        self.configFile = configFile
        self.flags = flags
        self.environment = environment
        self.running = running
    }

    /// Reads the configuration again and applies the reloadable keys to the logger and the service.
    /// - Returns: false when the new configuration could not be used (the running one is kept).
    @discardableResult
    mutating func reload(logger: Logger, service: AggregatorService) async -> Bool {
        let next: Configuration
        do {
            next = try DaemonStartup.configuration(configFile: configFile, settings: flags, environment: environment)
        } catch {
            logger.error("Configuration reload failed; keeping the running configuration",
                         ["error": String(describing: error)])
            return false
        }
        let changed = next.changedKeys(from: running)
        let applied = changed.filter(Configuration.reloadableKeys.contains)
        let needRestart = changed.filter { !Configuration.reloadableKeys.contains($0) }

        logger.setMinimumLevel(next.logLevel)
        await service.apply(next)
        running = next.keepingStartOnlySettings(of: running)

        let values = next.settingValues
        logger.info("Configuration reloaded", [
            "changed": applied.isEmpty ? "none" : applied.map { "\($0)=\(values[$0] ?? "")" }.joined(separator: ","),
        ])
        if !needRestart.isEmpty {
            logger.warning("Changed settings that apply only after a restart",
                           ["keys": needRestart.joined(separator: ",")])
        }
        return true
    }
}
