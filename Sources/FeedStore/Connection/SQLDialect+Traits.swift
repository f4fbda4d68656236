import Foundation

/// What the store does differently because of what each backend costs (docs/ARCHITECTURE.md,
/// "Storage"): asked of the dialect, so that the store itself never asks which backend it is on.
extension SQLDialect {
    /// Whether a statement costs a round trip to a server (PostgreSQL): rows then go in a few
    /// statements of many (runs of 64, 16, 4 and 1: few shapes to prepare). On SQLite a statement
    /// costs no round trip, and one per row is faster (a warm round's joined UPDATE was 15 ms slower).
    var batchesRows: Bool { self == .postgres }

    /// Run once on each read connection: on SQLite a page cache of 16 MiB (the default is 2): an
    /// unread page reads a few thousand pages of the date index and state rows, which a 2 MiB cache
    /// read again from the OS at each request (Miniflux's unread page at 1,000,000 entries: 9–14 ms,
    /// 6.5–9 ms with it). Grown as pages are read; the pool keeps at most four readers.
    var readerSetup: String? { self == .sqlite ? "PRAGMA cache_size = -16384" : nil }

    /// Run at the start of a group commit of ingested feeds: on PostgreSQL what SQLite's
    /// `synchronous = NORMAL` promises, no more: a commit is not waited for on disk. A killed daemon
    /// loses nothing committed (the server has it); a crash of the server itself may lose its last
    /// fraction of a second, each feed whole, entries with their validators, so the next round
    /// fetches them again. Sessions and users' own changes still wait for the disk.
    var groupCommitSetup: String? { self == .postgres ? "SELECT set_config('synchronous_commit', 'off', true)" : nil }

    /// Whether the writer keeps a write-ahead log file of its own to checkpoint (SQLite's WAL;
    /// PostgreSQL's server checkpoints its own).
    var checkpointsItsLog: Bool { self == .sqlite }

    /// While walking an index, whether a category's members are best known by their first feed
    /// (`ArticleFilter.carried(byFeedsOf:members:)`): on PostgreSQL always; SQLite's walk of the
    /// dates finds a category's first page faster by the sources (0.16 against 0.29 ms).
    var findsCategoriesByFirstFeed: Bool { self == .postgres }

    /// The space the database at `path` takes: SQLite's file, or the database's size on the server.
    func size(of path: String, _ database: Database) -> Int? {
        switch self {
        case .sqlite: (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        case .postgres: (try? database.integer("SELECT pg_database_size(current_database())")).flatMap { $0.map(Int.init) }
        }
    }
}
