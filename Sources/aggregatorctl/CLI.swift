import ControlProtocol

/// Runs one `aggregatorctl` invocation; `main.swift` only calls this and exits with its status.
struct CLI {
    /// Where output goes: standard output and error in the tool, buffers in tests.
    var standardOutput: (String) -> Void
    var standardError: (String) -> Void
    /// Raw bytes for standard output (`parse --json` writes megabytes: no String round trip).
    var standardOutputBytes: ([UInt8]) -> Void

    init(standardOutput: @escaping (String) -> Void, standardError: @escaping (String) -> Void,
         standardOutputBytes: (([UInt8]) -> Void)? = nil) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardOutputBytes = standardOutputBytes ?? { standardOutput(String(decoding: $0, as: UTF8.self)) }
    }

    /// Runs the command line `arguments` (program name excluded) and returns the exit status.
    func run(_ arguments: [String]) -> ExitCode {
        do {
            return try dispatch(arguments)
        } catch {
            standardError("Error: \(error)\nUsage: \(Help.usage)\n  See 'aggregatorctl --help'.\n")
            return .usage
        }
    }

    private func dispatch(_ arguments: [String]) throws(UsageError) -> ExitCode {
        var reader = ArgumentReader(arguments)
        if reader.flag("--version") {
            standardOutput("aggregatorctl \(AggregatorVersion.current)\n")
            return .success
        }
        let wantsHelp = reader.flag("-h", "--help")
        _ = try reader.option("--socket")
        let json = reader.flag("--json")
        guard let command = reader.firstPositional() else {
            if wantsHelp {
                standardOutput(Help.overview + "\n")
                return .success
            }
            throw UsageError("Missing expected argument 'COMMAND'")
        }
        if wantsHelp || command == "help" {
            let topic = command == "help" ? try reader.positionals().first : command
            guard let topic else {
                standardOutput(Help.overview + "\n")
                return .success
            }
            guard let text = Help.text(for: topic) else { throw UsageError("Unknown command '\(topic)'") }
            standardOutput(text + "\n")
            return .success
        }
        switch command {
        case "parse":
            let parse = try ParseCommand(arguments: &reader, json: json)
            return parse.run(output: standardOutputBytes, error: standardError)
        default:
            throw UsageError("Unknown command '\(command)'")
        }
    }
}
