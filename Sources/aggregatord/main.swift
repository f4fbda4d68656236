import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import Glibc

// Parse options, build the pieces, run until SIGINT/SIGTERM (SIGHUP reloads the configuration).
let options: DaemonOptions
do {
    options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\nUsage: \(DaemonOptions.usage)\n".utf8))
    exit(2)
}

switch options {
case .help:
    print(DaemonOptions.helpText)
case .version:
    print("aggregatord \(AggregatorVersion.current)")
case .copyDatabase(let source, let target):
    exit(DatabaseCopyCommand.run(source: source, target: target))
case .run(let configFile, let once, let settings):
    ServerAllocator.configure()
    let environment = ProcessInfo.processInfo.environment
    let bootLogger = Logger(journald: environment["JOURNAL_STREAM"] != nil)
    do {
        let configuration = try DaemonStartup.configuration(
            configFile: configFile, settings: settings, environment: environment)
        let logger = Logger(minimumLevel: configuration.logLevel, component: "daemon",
                            journald: environment["JOURNAL_STREAM"] != nil)
        if once {
            exit(try await DaemonStartup.refreshOnce(configuration: configuration, logger: logger) ? 0 : 1)
        }
        let reload = ConfigurationReload(configFile: configFile, flags: settings, environment: environment,
                                         running: configuration)
        try await DaemonStartup.run(reload, logger: logger)
    } catch {
        bootLogger.error("Cannot start", ["error": String(describing: error)])
        exit(1)
    }
}
