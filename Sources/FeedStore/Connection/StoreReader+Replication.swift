/// Where a PostgreSQL primary's write-ahead log is and how far a standby has replayed it, as byte
/// positions (`pg_lsn` minus `0/0`): how reads served by standbys (`database-read`) see what the
/// account asking wrote (docs/RELIABILITY.md, "Reading from standbys"). PostgreSQL only: the
/// configuration refuses `database-read` beside an SQLite database.
extension StoreReader {
    /// The daemons' channel for "this account wrote up to this position" (`announcingWrite`).
    public static let writesChannel = "aggregator_writes"

    /// The primary's log position now, which every transaction committed before this call lies
    /// below; with `account`, the other daemons hear on `writesChannel` that the account wrote up to
    /// it, in the same statement (before the write is answered).
    public func primaryPosition(announcingWriteOf account: AccountID? = nil) throws(StoreError) -> Int64 {
        var position: Int64 = 0
        if let account {
            try database.statement("""
                SELECT l, pg_notify('\(Self.writesChannel)', ?1 || ':' || l) FROM
                (SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint AS l) AS now
                """).query([.text(account.description)]) { position = $0.int64(at: 0) }
        } else {
            try database.statement("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint").query { position = $0.int64(at: 0) }
        }
        return position
    }

    /// How far this standby has replayed its primary's log; nil when it is not replaying (it was
    /// promoted, or it is a primary): then it holds every write there is.
    public func replayPosition() throws(StoreError) -> Int64? {
        var position: Int64?
        try database.statement("""
            SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END
            """).query { position = $0.optionalInt64(at: 0) }
        return position
    }
}
