import Dispatch
import Foundation
import Synchronization

/// Copies committed pages from the write-ahead log into the database file on a thread and connection
/// of its own, at most a few times a second, and only after commits: an idle store costs nothing.
/// Left to SQLite, the writer does this inside whichever commit crosses 1,000 pages: ~15 % of a cold
/// refresh round's ingest, and 35–45 ms added to every other bulk mark at a million entries. The
/// writer keeps a higher limit of its own in case this one falls behind.
final class Checkpointer: Sendable {
    /// The writer checkpoints by itself only once the WAL holds this much.
    static let writerLimitBytes = 32 << 20
    private static let interval = DispatchTimeInterval.milliseconds(200)

    /// Shared with the thread, which must not hold the checkpointer itself (its deinit stops the thread).
    private final class Signals: Sendable {
        let stopping = Atomic<Bool>(false)
        /// Signalled at every commit (and to stop).
        let commits = DispatchSemaphore(value: 0)
        /// Signalled to stop: ends the pause between checkpoints early.
        let stop = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    private let signals = Signals()

    /// Starts checkpointing the database at `path` (which must exist: the writer opens it first).
    /// - Throws: `StoreError` when the thread's connection cannot be opened.
    init(path: String) throws(StoreError) {
        // The connection is opened, used and closed on the thread alone; only the outcome of opening it
        // comes back.
        let opened = Mutex<Result<Void, StoreError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [signals] in
            defer { signals.finished.signal() }
            let connection: Database
            do throws(StoreError) {
                connection = try Database(path: path, create: false)
                opened.withLock { $0 = .success(()) }
                ready.signal()
            } catch {
                opened.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            while !signals.stopping.load(ordering: .relaxed) {
                signals.commits.wait()  // asleep until a commit
                // The pause lets the commit that woke us complete, and the commits of a busy moment
                // share one checkpoint.
                _ = signals.stop.wait(timeout: .now() + Self.interval)
                // Stopping: the log is left for the next open (or SQLite's own checkpoint at close) rather
                // than copied now, at the end of a `--once` round.
                if signals.stopping.load(ordering: .relaxed) { break }
                while signals.commits.wait(timeout: .now()) == .success {}
                // PASSIVE never waits for readers or the writer: it copies what it can and returns.
                try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            }
        }
        thread.name = "store-checkpoint"
        thread.start()
        ready.wait()
        if case .failure(let error) = opened.withLock({ $0 }) {
            signals.finished.wait()
            signals.stopping.store(true, ordering: .relaxed)  // the thread has ended: deinit has nothing to stop
            throw error
        }
    }

    /// Has the next checkpoint follow a commit on `database` (the writer's connection).
    func watchCommits(of database: Database) {
        database.onCommit { [signals] in signals.commits.signal() }
    }

    /// Stops the thread and waits for it; its connection closes with it.
    func stop() {
        guard !signals.stopping.exchange(true, ordering: .relaxed) else { return }
        signals.stop.signal()
        signals.commits.signal()
        signals.finished.wait()
    }

    deinit {
        stop()
    }
}
