import Foundation

extension FeedStore {
    /// Copies the whole database to `path`, a consistent snapshot while the daemon keeps running: an
    /// SQLite file by SQLite's online backup (`SQLConnection.backUpOnline`); from PostgreSQL an SQLite
    /// file made by `DatabaseCopy` from one snapshot.
    /// - Throws: `StoreError` when the target cannot be written.
    public func backup(to path: String) throws(StoreError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.cannotOpen, message: "\(path) already exists (remove it or choose another name)")
        }
        try database.commitHeld()  // the copy holds what readers see
        if try database.connection.backUpOnline(to: path) { return }
        do {
            _ = try DatabaseCopy.copy(from: self.path, to: path, whileInUse: true)
        } catch {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw error
        }
    }
}
