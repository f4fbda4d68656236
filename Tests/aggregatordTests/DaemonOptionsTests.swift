import AggregatorCore
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

    /// The longest flags once ran into their descriptions ("--deny-private-networkTrue to …").
    @Test func everyOptionHasItsOwnColumn() throws {
        let lines = DaemonOptions.helpText.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        let start = try #require(lines.firstIndex(of: Array("OPTIONS:"))) + 1
        let options = lines[start...].prefix { !$0.isEmpty }
        #expect(options.count == Configuration.keys.count + 4)
        // Where the first description starts; every other starts there too, after two spaces at least.
        let first = try #require(options.first)
        let column = try #require(first.indices.dropFirst(3).first { first[$0] != " " && first[$0 - 2..<$0] == [" ", " "] })
        for line in options {
            #expect(line.count > column && line[column - 2..<column] == [" ", " "] && line[column] != " ",
                    "\(String(line))")
        }
        for (key, _) in Configuration.keys {
            #expect(options.contains { String($0).hasPrefix("  --\(key) ") })
        }
    }
}
