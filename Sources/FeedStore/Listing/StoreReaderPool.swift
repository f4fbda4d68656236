import Synchronization

/// Read connections kept open between requests and lent to one caller at a time: opening one (and
/// preparing its statements again) cost more than most of the queries run on it.
public final class StoreReaderPool: Sendable {
    /// A reader while it is idle in the pool: owned by nobody, so it may move to another thread.
    private struct Idle: @unchecked Sendable {
        let reader: StoreReader
    }

    public let path: String
    private let idle = Mutex<[Idle]>([])
    private let keep: Int
    private let standby: Bool

    /// - Parameters:
    ///   - keep: how many idle readers stay open (more are opened when needed, then closed).
    ///   - standby: whether `path` is a PostgreSQL standby's (`StoreReader.init(path:standby:)`).
    public init(path: String, keep: Int = 4, standby: Bool = false) {
        self.path = path
        self.keep = keep
        self.standby = standby
    }

    /// Runs `body` with a reader of its own.
    public func withReader<T>(_ body: (StoreReader) throws -> T) throws -> T {
        let reader = try idle.withLock { $0.popLast() }?.reader ?? StoreReader(path: path, standby: standby)
        defer {
            let returned = Idle(reader: reader)
            idle.withLock { if $0.count < keep { $0.append(returned) } }
        }
        return try body(reader)
    }
}
