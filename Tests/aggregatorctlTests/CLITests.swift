@testable import aggregatorctl
import ControlProtocol
import Testing

@Suite struct CLITests {
    /// Runs the CLI in-process and returns its status and what it printed.
    private func run(_ arguments: [String]) -> (status: ExitCode, output: String, error: String) {
        var output = ""
        var error = ""
        let status = withoutActuallyEscaping({ (text: String) in output += text }) { out in
            withoutActuallyEscaping({ (text: String) in error += text }) { err in
                CLI(standardOutput: out, standardError: err).run(arguments)
            }
        }
        return (status, output, error)
    }

    @Test func versionComesFromTheSharedConstant() {
        let result = run(["--version"])
        #expect(result.status == .success)
        #expect(result.output == "aggregatorctl \(AggregatorVersion.current)\n")
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func helpGoesToStandardOutput(arguments: [String]) {
        let result = run(arguments)
        #expect(result.status == .success)
        #expect(result.output.hasPrefix("OVERVIEW: aggregatorctl"))
        #expect(result.output.contains("USAGE: aggregatorctl"))
        #expect(result.error.isEmpty)
    }

    @Test func unknownCommandIsAUsageError() {
        let result = run(["frobnicate"])
        #expect(result.status == .usage)
        #expect(result.error.hasPrefix("Error: Unknown command 'frobnicate'"))
        #expect(result.error.contains("Usage: aggregatorctl"))
    }

    @Test func optionWithoutValueIsAUsageError() {
        let result = run(["--socket"])
        #expect(result.status == .usage)
        #expect(result.error.hasPrefix("Error: Missing value for '--socket'"))
    }

    @Test func argumentReaderHandlesEqualsAndDoubleDash() throws {
        var reader = ArgumentReader(["--category=World", "parse", "--json", "--", "--not-an-option"])
        #expect(try reader.option("--category") == "World")
        let json = reader.flag("--json")
        let command = reader.firstPositional()
        #expect(json)
        #expect(command == "parse")
        #expect(try reader.positionals() == ["--not-an-option"])
    }

    @Test func unknownOptionIsNamed() {
        let reader = ArgumentReader(["--verbos", "x"])
        #expect(throws: UsageError("Unknown option '--verbos'")) { try reader.positionals() }
    }

    /// A watch prints articles as they come: an order or a page would be dropped unseen, so they
    /// are refused before any daemon is reached; its help names every filter it takes.
    @Test(arguments: [["--sort", "title"], ["--limit", "5"], ["--cursor", "x"]])
    func watchRefusesOrderAndPaging(arguments: [String]) {
        let result = run(["--socket", "/nonexistent/aggregatord.sock", "watch"] + arguments)
        #expect(result.status == .usage)
        #expect(result.error.hasPrefix("Error: Unknown option '\(arguments[0])'"))
        let help = run(["help", "watch"]).output
        #expect(help.contains("--since WHEN") && help.contains("--before WHEN") && !help.contains("--sort"))
    }
}
