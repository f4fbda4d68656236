import ControlProtocol

/// The text of `--help` and `help COMMAND`: only commands that exist are listed.
enum Help {
    static let usage = "aggregatorctl [--socket PATH] [--json] COMMAND [ARGS]"

    static var overview: String {
        """
        OVERVIEW: aggregatorctl \(AggregatorVersion.current), the command-line client of aggregatord

        USAGE: \(usage)

        OPTIONS:
          --socket PATH     Control socket of the daemon (default: $AGGREGATOR_SOCKET, then the daemon's default)
          --json            Print results as JSON
          --version         Show the version
          -h, --help        Show this help

        COMMANDS:
        \(Command.all.map { "  " + $0.name.padding(to: 16) + "  " + $0.summary }.joined(separator: "\n"))

          See 'aggregatorctl help COMMAND' for a command's own help.
        """
    }

    /// The help of one command, or nil when there is no such command.
    static func text(for name: String) -> String? {
        guard let command = Command.all.first(where: { $0.name == name }) else { return nil }
        return """
            OVERVIEW: \(command.summary)

            USAGE: aggregatorctl \(command.usage)
            \(command.details.isEmpty ? "" : "\n" + command.details)
            """
    }
}

/// A command `aggregatorctl` knows: its name, one-line summary, usage and option details.
struct Command {
    let name: String
    let summary: String
    let usage: String
    let details: String

    static let all: [Command] = [
        ParseCommand.command,
        Command(name: "help", summary: "Show help for aggregatorctl or one of its commands",
                usage: "help [COMMAND]", details: ""),
    ]
}

extension String {
    /// The string left-aligned in a column `width` characters wide.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
