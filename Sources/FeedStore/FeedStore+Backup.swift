import CSQLite
import Foundation

extension FeedStore {
    /// Copies the whole database to `path` with SQLite's online backup API: a consistent snapshot
    /// while the daemon keeps running (writes wait for each short step). On PostgreSQL, the copy is an
    /// SQLite file made by `DatabaseCopy` from one snapshot.
    /// - Throws: `StoreError` when the target cannot be written.
    public func backup(to path: String) throws(StoreError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.cannotOpen, message: "\(path) already exists (remove it or choose another name)")
        }
        guard let sqlite = database.connection as? SQLiteConnection else {
            try database.commitHeld()  // the copy holds what readers see
            do {
                _ = try DatabaseCopy.copy(from: self.path, to: path, whileInUse: true)
            } catch {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                throw error
            }
            return
        }
        var target: OpaquePointer?
        guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let target else {
            let message = target.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(target)
            throw StoreError(.cannotOpen, message: "cannot create backup \(path): \(message)")
        }
        defer { sqlite3_close_v2(target) }
        try database.commitHeld()  // the copy holds what readers see
        guard let backup = sqlite.withHandle({ sqlite3_backup_init(target, "main", $0, "main") }) else {
            throw StoreError(.sqlite, message: "cannot back up to \(path): \(String(cString: sqlite3_errmsg(target)))")
        }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, 256)  // pages per step; the writer is held only that long
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            try? FileManager.default.removeItem(atPath: path)
            throw StoreError(.sqlite, code: status, message: "backup to \(path) failed: \(String(cString: sqlite3_errstr(status)))")
        }
    }
}
