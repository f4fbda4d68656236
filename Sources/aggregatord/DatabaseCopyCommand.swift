import FeedStore
import Foundation

/// `aggregatord copy-database SOURCE TARGET`: runs `DatabaseCopy`, refusing a source or target an
/// aggregatord holds (its claim on an SQLite file; on PostgreSQL the copy checks the server's
/// sessions), and says what it copied.
enum DatabaseCopyCommand {
    /// - Returns: the exit status: 0 copied, 1 refused or failed.
    static func run(source: String, target: String) -> Int32 {
        func fail(_ message: String) -> Int32 {
            FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
            return 1
        }
        let targetExisted = FileManager.default.fileExists(atPath: target)
        var claims: [DatabaseClaim] = []
        for database in [source, target] where FeedStore.isFile(database) {
            do {
                if let claim = try DatabaseClaim.claim(databasePath: database) { claims.append(claim) }
            } catch {
                return fail("\(error)")
            }
        }
        if FeedStore.isFile(source), !FileManager.default.fileExists(atPath: source) {
            return fail("\(source) does not exist")
        }
        let started = Date()
        do {
            let counts = try DatabaseCopy.copy(from: source, to: target) { step in
                switch step {
                case .copied(let table, let rows):
                    FileHandle.standardError.write(Data("copied \(table): \(rows)\n".utf8))
                case .indexing(let entries):
                    FileHandle.standardError.write(Data("indexing \(entries) entries for search…\n".utf8))
                }
            }
            let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
            print("Copied \(FeedStore.location(of: source)) to \(FeedStore.location(of: target)) in \(seconds) s: \(counts.summary)")
        } catch {
            if FeedStore.isFile(target), !targetExisted { removeLeftovers(of: target) }
            return fail("\(error)")
        }
        withExtendedLifetime(claims) {}
        return 0
    }

    /// A failed copy into a new SQLite file leaves no file behind (one that existed is never touched).
    private static func removeLeftovers(of path: String) {
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
