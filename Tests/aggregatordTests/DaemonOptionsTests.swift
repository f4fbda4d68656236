@testable import aggregatord
import Testing

@Suite struct DaemonOptionsTests {
    @Test func settingsAcceptSpaceAndEqualsForms() throws {
        let options = try DaemonOptions.parse(["--database", "/tmp/a.db", "--log-level=debug", "--config", "x.conf"])
        #expect(options == .run(configFile: "x.conf", once: false, settings: ["database": "/tmp/a.db", "log-level": "debug"]))
    }

    @Test func helpAndVersionWin() throws {
        #expect(try DaemonOptions.parse(["--database", "a", "--help"]) == .help)
        #expect(try DaemonOptions.parse(["--version"]) == .version)
    }

    @Test func unknownOptionsAndMissingValuesAreUsageErrors() {
        #expect(throws: UsageError("Unknown option '--databse'")) { try DaemonOptions.parse(["--databse", "x"]) }
        #expect(throws: UsageError("Missing value for '--socket'")) { try DaemonOptions.parse(["--socket"]) }
        #expect(throws: UsageError("Unexpected argument 'run'")) { try DaemonOptions.parse(["run"]) }
    }

    @Test func helpListsEveryConfigurationKey() {
        for key in ["--database", "--socket", "--seed-opml", "--log-level", "--config"] {
            #expect(DaemonOptions.helpText.contains(key))
        }
    }
}
