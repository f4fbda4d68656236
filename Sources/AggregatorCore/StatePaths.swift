import ControlProtocol
import Foundation

/// Where the daemon keeps its database and socket when not told otherwise (docs/configuration.md, keys database and socket).
public struct StatePaths: Sendable, Equatable {
    /// `$STATE_DIRECTORY/aggregator.db` under systemd, else `$XDG_STATE_HOME/aggregator/aggregator.db`,
    /// else `~/.local/state/aggregator/aggregator.db`.
    public let defaultDatabase: String
    /// `$AGGREGATOR_SOCKET`, else `$RUNTIME_DIRECTORY/aggregatord.sock`, else
    /// `$XDG_RUNTIME_DIR/aggregator/aggregatord.sock`, else `/tmp/aggregator-$UID/aggregatord.sock`.
    public let defaultSocket: String

    public init(environment: [String: String], userID: UInt32 = getuid()) {
        // systemd passes a colon-separated list when a unit names several directories.
        func first(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value.split(separator: ":").first.map(String.init)
        }
        let home = first("HOME") ?? NSHomeDirectory()
        if let state = first("STATE_DIRECTORY") {
            defaultDatabase = state + "/aggregator.db"
        } else {
            let base = first("XDG_STATE_HOME") ?? home + "/.local/state"
            defaultDatabase = base + "/aggregator/aggregator.db"
        }
        defaultSocket = ControlSocketPath.resolve(environment: environment, userID: userID)
    }
}
