import ControlProtocol
import FoundationEssentials
import Glibc

/// Runs one `aggregatorctl` invocation; `main.swift` only calls this and exits with its status.
struct CLI {
    /// Where output goes: standard output and error in the tool, buffers in tests.
    var standardOutput: (String) -> Void
    var standardError: (String) -> Void
    /// Raw bytes for standard output (`parse --json` writes megabytes: no String round trip).
    var standardOutputBytes: ([UInt8]) -> Void
    /// The process environment (socket path, NO_COLOR).
    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Reads a password for `user set` (new) or `user fever on` (current): a prompt on a terminal,
    /// else standard input's first line.
    var readPassword: (PasswordReader.Kind) throws(UsageError) -> String = PasswordReader.read
    /// Whether standard output is a terminal (colour, progress lines, width-fitted columns).
    var isTerminal: Bool = isatty(STDOUT_FILENO) == 1
    /// The terminal's width in columns (`$COLUMNS` when the terminal does not say); nil when not a terminal.
    var terminalWidth: Int? {
        guard isTerminal else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

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
        let socket = try reader.option("--socket")
        let user = try reader.option("--user") ?? environment["AGGREGATOR_USER"].flatMap { $0.isEmpty ? nil : $0 }
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
        guard let spec = Command.all.first(where: { $0.name == command }), command != "help" else {
            throw UsageError("Unknown command '\(command)'")
        }
        reader.restrict(to: spec.optionNames)  // the options its help lists, and no others
        switch command {
        case "parse":
            let parse = try ParseCommand(arguments: &reader, json: json)
            return parse.run(output: standardOutputBytes, error: standardError)
        default:
            var daemonCommand = try DaemonCommand(name: command, arguments: &reader)
            _ = try reader.positionals()  // an option left over is one this command does not take
            if daemonCommand.needsPassword != .none, case .object(var params) = daemonCommand.params {
                params["password"] = .string(try readPassword(daemonCommand.needsPassword))
                daemonCommand.params = .object(params)
            }
            if !daemonCommand.secretsFromStandardInput.isEmpty, case .object(var params) = daemonCommand.params,
               case .object(var settings) = params["settings"] ?? [:] {
                for key in daemonCommand.secretsFromStandardInput {
                    guard let line = readLine(strippingNewline: true) else {
                        throw UsageError("No \(key) on standard input (a line each: the password first, then the cookie)")
                    }
                    settings[key] = .string(line.hasSuffix("\r") ? String(line.dropLast()) : line)
                }
                params["settings"] = .object(settings)
                daemonCommand.params = .object(params)
            }
            // Whom the command acts for (docs/ARCHITECTURE.md, "The service"); the daemon ignores it where
            // the server as a whole is meant.
            if let user, case .object(var params) = daemonCommand.params {
                params["user"] = .string(user)
                daemonCommand.params = .object(params)
            }
            return call(daemonCommand, socket: socket ?? ControlSocketPath.resolve(environment: environment), json: json)
        }
    }

    /// Runs a daemon command: exit 3 when the daemon is unreachable, 1 when it reports an error.
    private func call(_ command: DaemonCommand, socket: String, json: Bool) -> ExitCode {
        if let reason = ControlSocketPath.unsafeFallback(socket: socket) {
            standardError("Error: refusing to use \(socket): \(reason).\n")
            return .unreachable
        }
        let client: ControlClient
        do {
            client = try ControlClient(path: socket)
        } catch {
            standardError("Error: cannot reach aggregatord at \(socket) (\(error)).\n"
                + "  Start it with 'aggregatord' (or 'systemctl start aggregatord'), or pass --socket PATH.\n")
            return .unreachable
        }
        let output = HumanOutput(styled: isTerminal && environment["NO_COLOR"] == nil, width: terminalWidth)
        var failed = 0
        do {
            let result = try client.call(command.method.rawValue, command.params) { method, params in
                if method == ControlNotification.entryNew.rawValue {
                    standardOutput(json ? String(decoding: params.encoded(), as: UTF8.self) + "\n" : output.newEntryLine(params))
                    return
                }
                if method == ControlNotification.watchStarted.rawValue {
                    standardError("Watching for new articles (Ctrl-C stops).\n")
                    return
                }
                guard method == ControlNotification.refreshProgress.rawValue, !json, isTerminal else { return }
                if params["ok"]?.bool == false { failed += 1 }
                standardError("\r\u{1B}[2K" + output.progressLine(params, failed: failed))
            }
            if command.name == "refresh", isTerminal, !json { standardError("\r\u{1B}[2K") }
            let text = json ? String(decoding: result.encoded(pretty: true), as: UTF8.self) + "\n"
                            : output.render(command.name, result)
            if let file = command.outputFile, !json {
                guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8)) else {
                    standardError("Error: cannot write \(file)\n")
                    return .failure
                }
                standardOutput("Exported subscriptions to \(file)\n")
            } else {
                standardOutput(text)
            }
            if command.method == .tokenCreate, !json {
                standardError("Shown only this once: keep it where your app can read it (it is stored hashed).\n")
            }
            return .success
        } catch let error as JSONRPCError {
            standardError("Error: \(error.message)\n")
            return .failure
        } catch {
            standardError("Error: the connection to aggregatord at \(socket) broke (\(error))\n")
            return .unreachable
        }
    }
}
