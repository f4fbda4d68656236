import Foundation
import Glibc

/// This process's exclusive claim on a database, held from before it is opened until the process
/// ends: a second daemon (or `--once`) on the same file would fetch every feed twice and contend
/// for its writer. An `flock` on `DATABASE.lock`, which the kernel drops when the process dies,
/// however it dies; the file holds the owner's pid for the message. (Not on the database itself:
/// closing any descriptor of that file would drop SQLite's own POSIX locks.)
final class DatabaseClaim {
    private let descriptor: Int32

    /// - Returns: nil when the lock file cannot be made (a read-only directory): opening the
    ///   database then fails with its own, clearer message.
    /// - Throws: `DatabaseInUse` when another process holds the claim.
    static func claim(databasePath: String) throws -> DatabaseClaim? {
        let path = databasePath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let owner = Self.readOwner(descriptor)
            close(descriptor)
            throw DatabaseInUse(databasePath: databasePath, owner: owner)
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 { _ = pwrite(descriptor, pid, pid.count, 0) }
        return DatabaseClaim(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)  // releases the lock
    }

    private static func readOwner(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Another process is running on the same database.
struct DatabaseInUse: Error, CustomStringConvertible {
    let databasePath: String
    let owner: Int32?

    var description: String {
        "database \(databasePath) is in use by another aggregatord" + (owner.map { " (pid \($0))" } ?? "")
            + "; stop it first, give this one its own --database, or refresh through it with "
            + "'aggregatorctl refresh --wait'"
    }
}
