import Foundation

/// The words in which the two databases' DDL differs. The schema (`Baseline`, `Migrations`) is
/// written once with them and rendered for each backend (docs/ARCHITECTURE.md, "Storage").
struct SchemaWords: Sendable {
    /// A 64-bit integer column: SQLite's INTEGER (an alias of the row id when it is the primary key).
    let integer: String
    let text: String
    let blob: String
    /// An id column given out by the database, never given out twice.
    let identity: String
    /// After a table's closing parenthesis: SQLite stores tables whose key is not one integer in
    /// that key's order (`WITHOUT ROWID`); PostgreSQL's tables are heaps either way.
    let keyedTable: String
    /// After a text column compared without regard to A–Z case: SQLite's NOCASE collation.
    /// PostgreSQL compares `aggregator_nocase(column)` in an index of its own (`Baseline`).
    let caseless: String
    fileprivate let dialect: SQLDialect

    /// `sql` in SQLite's rendering only (what the other backend does another way, or not at all).
    func sqlite(_ sql: String) -> String { dialect == .sqlite ? sql : "" }
    /// `sql` in PostgreSQL's rendering only.
    func postgres(_ sql: String) -> String { dialect == .postgres ? sql : "" }
}

/// How each backend keeps its schema version and runs migration steps (`Migrations.apply`).
struct SchemaKeeper {
    let database: Database

    /// Runs `body`, the whole migration: on PostgreSQL in one transaction (all or none) under an
    /// advisory lock, so that daemons starting together migrate once; a migration may rewrite every
    /// row and wait for another daemon's, so no statement or lock limit applies. SQLite's steps are
    /// transactions of their own (`step`): its file has one daemon.
    func migrating(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        guard database.dialect == .postgres else { return try body() }
        try database.transaction { () throws(StoreError) in
            try database.execute("""
                SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0;
                SELECT pg_advisory_xact_lock(7234001);
                CREATE TABLE IF NOT EXISTS aggregator_schema (version bigint NOT NULL);
                """)
            try body()
        }
    }

    /// The version the database holds (0: none).
    func version() throws(StoreError) -> Int64 {
        switch database.dialect {
        case .sqlite: return try database.integer("PRAGMA user_version") ?? 0
        case .postgres:
            guard try database.integer("SELECT CASE WHEN to_regclass('aggregator_schema') IS NULL THEN 0 ELSE 1 END") == 1
            else { return 0 }
            return try database.integer("SELECT max(version) FROM aggregator_schema") ?? 0
        }
    }

    /// Runs one step, `body`, and records `version`. A step that rebuilds SQLite tables runs with
    /// foreign keys off (a no-op inside a transaction: switched around it) and checked before it
    /// commits, as SQLite's ALTER TABLE documentation says.
    func step(to version: Int64, rebuildsTables: Bool, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        guard database.dialect == .sqlite else {
            try body()
            return try database.execute("DELETE FROM aggregator_schema; INSERT INTO aggregator_schema(version) VALUES (\(version))")
        }
        if rebuildsTables { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if rebuildsTables { try? database.execute("PRAGMA foreign_keys = ON") } }
        try database.transaction { () throws(StoreError) in
            try body()
            if rebuildsTables, try database.integer("PRAGMA foreign_key_check") != nil {
                throw StoreError(.corrupt, message: "database \(database.location): migration \(version) "
                    + "found rows that point at missing rows (restore it from a backup)")
            }
            try database.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Whether databases of this backend exist from before `Baseline.version` (SQLite's files, made
    /// by the steps one by one). A PostgreSQL database always began at the baseline.
    var mayPredateBaseline: Bool { database.dialect == .sqlite }

    /// After a new database was made: an SQLite file is left without the pages its steps freed.
    func compactNew() throws(StoreError) {
        guard database.dialect == .sqlite, try database.integer("PRAGMA freelist_count") ?? 0 > 0 else { return }
        try database.execute("VACUUM")
    }
}

extension SQLDialect {
    /// The schema's words in this backend's terms.
    var schemaWords: SchemaWords {
        switch self {
        case .sqlite:
            SchemaWords(integer: "INTEGER", text: "TEXT", blob: "BLOB", identity: "INTEGER PRIMARY KEY AUTOINCREMENT",
                        keyedTable: " WITHOUT ROWID", caseless: " COLLATE NOCASE", dialect: self)
        case .postgres:
            SchemaWords(integer: "bigint", text: "text", blob: "bytea", identity: "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                        keyedTable: "", caseless: "", dialect: self)
        }
    }
}
