import Glibc

/// Where the control socket lives when not told; the daemon and the CLI agree on it.
public enum ControlSocketPath {
    /// `$AGGREGATOR_SOCKET`, else `$RUNTIME_DIRECTORY/aggregatord.sock` under systemd, else
    /// `$XDG_RUNTIME_DIR/aggregator/aggregatord.sock`, else `/tmp/aggregator-$UID/aggregatord.sock`.
    public static func resolve(environment: [String: String], userID: UInt32 = getuid()) -> String {
        func first(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value.split(separator: ":").first.map(String.init)
        }
        if let socket = first("AGGREGATOR_SOCKET") { return socket }
        if let runtime = first("RUNTIME_DIRECTORY") { return runtime + "/aggregatord.sock" }
        if let runtime = first("XDG_RUNTIME_DIR") { return runtime + "/aggregator/aggregatord.sock" }
        return "/tmp/aggregator-\(userID)/aggregatord.sock"
    }
}
