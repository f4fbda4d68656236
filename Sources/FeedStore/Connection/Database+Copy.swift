import Foundation

/// What `DatabaseCopy` needs of each backend: reading a source in one snapshot, its schema version,
/// its rows a table at a time, its id sequences, and the target's search index built in its own form.
extension Database {
    /// Starts the read-only snapshot a copy reads its source in.
    func beginSnapshot() throws(StoreError) {
        try execute(dialect == .sqlite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// The schema version the database holds (0: none), naming the connection a copy's on PostgreSQL.
    func schemaVersionForCopy() throws(StoreError) -> Int64? {
        let version = try SchemaKeeper(database: self).version()
        if dialect == .postgres { try execute("SET application_name = 'aggregatord copy-database'") }
        return version
    }

    /// How many daemons' connections use this database now; nil where the database says not (an
    /// SQLite file is held by its lock file instead).
    func daemonConnections() throws(StoreError) -> Int64? {
        guard dialect == .postgres else { return nil }
        return try integer("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'aggregatord'
            """)
    }

    /// Refuses a target that holds anything: a copy never merges into or overwrites data.
    static func requireEmpty(_ target: String) throws(StoreError) {
        if PostgresConnection.isURI(target) {
            let connection = try PostgresConnection(uri: target)
            let statement = try connection.prepare("""
                SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
                AND tablename IN ('aggregator_schema', 'feeds', 'entries', 'accounts')
                """)
            try statement.bind([])
            let found = try statement.step() ? statement.int64(at: 0) : 0
            statement.reset()
            guard found == 0 else {
                throw StoreError(.cannotOpen, message: "\(connection.location) already holds aggregator tables "
                    + "(copy into a new, empty database: createdb NAME)")
            }
        } else if let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? nil, size > 0 {
            throw StoreError(.cannotOpen, message: "\(target) already exists (copy into a new file, or remove it first)")
        }
    }

    /// Calls `body` with each row of `table`: SQLite steps through them; PostgreSQL's come through a
    /// cursor, a few thousand at a time (libpq holds a whole result in memory).
    func eachRow(of table: String, _ body: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        switch dialect {
        case .sqlite:
            try prepare("SELECT * FROM \(table)").query { row throws(StoreError) in try body(row) }
        case .postgres:
            try execute("DECLARE copying NO SCROLL CURSOR FOR SELECT * FROM \(table)")
            let fetch = try prepare("FETCH FORWARD 2000 FROM copying")
            var fetched: Int
            repeat {
                fetched = 0
                try fetch.query { row throws(StoreError) in
                    fetched += 1
                    try body(row)
                }
            } while fetched > 0
            try execute("CLOSE copying")
        }
    }

    /// The last id `table`'s sequence gave out (nil or 0: none).
    func lastSequencedID(of table: String) throws(StoreError) -> Int64? {
        switch dialect {
        case .sqlite: try integer("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(table)])
        case .postgres: try integer("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(table)_id_seq")
        }
    }

    /// Makes `table`'s sequence go on after `highest`.
    func resumeSequence(of table: String, after highest: Int64) throws(StoreError) {
        switch dialect {
        case .sqlite:
            try statement("DELETE FROM sqlite_sequence WHERE name = ?1").run([.text(table)])
            try statement("INSERT INTO sqlite_sequence(name, seq) VALUES (?1, ?2)").run([.text(table), .integer(highest)])
        case .postgres:
            _ = try integer("SELECT setval(pg_get_serial_sequence('\(table)', 'id'), ?1)", [.integer(highest)])
        }
    }
}
