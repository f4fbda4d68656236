import ControlProtocol
import Foundation
import TestSupport
import Testing

@Suite struct ControlCLITests {
    let cli = Binary("aggregatorctl")

    @Test func helpAndVersionExitZero() throws {
        let help = try cli.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("OVERVIEW: aggregatorctl"))
        let version = try cli.run(["--version"])
        #expect(version.output == "aggregatorctl \(AggregatorVersion.current)\n")
    }

    @Test func usageErrorsExitTwoOnStandardError() throws {
        let result = try cli.run(["--verbos"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("Usage: aggregatorctl"))
    }
}
