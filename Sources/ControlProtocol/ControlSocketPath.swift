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
        return fallbackDirectory(userID: userID) + "/aggregatord.sock"
    }

    /// The directory of the last resort, in `/tmp` where any local user may make it first.
    public static func fallbackDirectory(userID: UInt32 = getuid()) -> String {
        "/tmp/aggregator-\(userID)"
    }

    /// Why the socket at `path` must not be used, when it lies in the fallback directory and that is
    /// not a directory of the user's own with mode 0700: another local user who made it first could
    /// listen there and receive the passwords `user set` sends (docs/SECURITY.md, "Local socket").
    public static func unsafeFallback(socket path: String, userID: UInt32 = getuid()) -> String? {
        let directory = fallbackDirectory(userID: userID)
        guard FilePath.directory(of: path) == directory else { return nil }
        var info = stat()
        guard lstat(directory, &info) == 0 else { return nil }  // not there yet: made with 0700 when listening
        if info.st_mode & S_IFMT != S_IFDIR {
            return "\(directory) is not a directory (a link or a file someone else may have made): remove it, "
                + "or set AGGREGATOR_SOCKET or XDG_RUNTIME_DIR"
        }
        if info.st_uid != userID || info.st_mode & 0o777 != 0o700 {
            return "\(directory) belongs to user \(info.st_uid) with mode \(String(info.st_mode & 0o777, radix: 8)), "
                + "not to this user (\(userID)) with mode 700: another user may have made it to receive what is sent "
                + "over the socket; remove it, or set AGGREGATOR_SOCKET or XDG_RUNTIME_DIR"
        }
        return nil
    }
}
