import Foundation
import Synchronization

/// How long the database may keep the daemon waiting (docs/RELIABILITY.md, "A busy database"): on
/// PostgreSQL, each session's `statement_timeout`, `lock_timeout` and
/// `idle_in_transaction_session_timeout`, from the keys `db-statement-timeout`, `db-lock-timeout` and
/// `db-idle-in-transaction-timeout`. A statement that runs into one fails with a `busy` error, which
/// users see as "database busy" (HTTP 503 with Retry-After, the CLI's exit 1), rather than a request
/// that waits as long as a lock held elsewhere. Nil: no limit. Process-wide, set by the daemon before
/// it opens the database; other commands (`copy-database`) keep none, as their long statements
/// (building a search index) are meant to run.
public struct DatabaseLimits: Sendable, Equatable {
    public var statementTimeout: Duration?
    public var lockTimeout: Duration?
    public var idleInTransactionTimeout: Duration?

    public init(statementTimeout: Duration? = nil, lockTimeout: Duration? = nil, idleInTransactionTimeout: Duration? = nil) {
        self.statementTimeout = statementTimeout
        self.lockTimeout = lockTimeout
        self.idleInTransactionTimeout = idleInTransactionTimeout
    }

    /// The daemon's defaults: a statement may run 30 s, wait 10 s for a lock, and a transaction may
    /// stay idle 60 s.
    public static let daemonDefaults = DatabaseLimits(statementTimeout: .seconds(30), lockTimeout: .seconds(10),
                                                      idleInTransactionTimeout: .seconds(60))

    /// The limits every connection opened from now on takes.
    public static var current: DatabaseLimits {
        get { shared.withLock { $0 } }
        set { shared.withLock { $0 = newValue } }
    }

    private static let shared = Mutex(DatabaseLimits())

    /// The session settings that state them, in milliseconds (0: none).
    public var settings: String {
        [("statement_timeout", statementTimeout), ("lock_timeout", lockTimeout),
         ("idle_in_transaction_session_timeout", idleInTransactionTimeout)]
            .map { name, limit in
                let milliseconds = limit.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 } ?? 0
                return "SET \(name) = \(milliseconds)"
            }
            .joined(separator: "; ")
    }
}
