/// The schema, as an append-only list of steps applied up to `PRAGMA user_version`.
/// A step is never edited once shipped: change the schema by appending a step.
enum Migrations {
    static let steps: [String] = [
        // 1: feeds and their categories, with the fetch state the scheduler needs.
        """
        CREATE TABLE categories (
            id   INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE
        );
        CREATE TABLE feeds (
            id            INTEGER PRIMARY KEY,
            url           TEXT NOT NULL UNIQUE,
            title         TEXT,
            site_url      TEXT,
            category_id   INTEGER REFERENCES categories(id) ON DELETE SET NULL,
            added_at      INTEGER NOT NULL,
            etag          TEXT,
            last_modified TEXT,
            checked_at    INTEGER,
            next_check_at INTEGER,
            interval_s    INTEGER,
            error_count   INTEGER NOT NULL DEFAULT 0,
            last_error    TEXT,
            status        TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing', 'disabled'))
        );
        CREATE INDEX feeds_by_next_check ON feeds(next_check_at);
        CREATE INDEX feeds_by_category ON feeds(category_id);
        """,
    ]

    /// The schema version this build writes.
    static var currentVersion: Int64 { Int64(steps.count) }

    /// Brings the database up to `currentVersion`, one transaction per step.
    /// - Throws: `StoreError.Kind.newerSchema` when the file was written by a newer build.
    static func apply(to database: Database) throws(StoreError) {
        let version = try database.integer("PRAGMA user_version") ?? 0
        guard version <= currentVersion else {
            throw StoreError(.newerSchema, message: "database \(database.path) has schema version \(version), "
                + "newer than this build's \(currentVersion) (upgrade aggregatord, or restore an older backup)")
        }
        for (offset, sql) in steps.enumerated().dropFirst(Int(version)) {
            try database.transaction { () throws(StoreError) in
                try database.execute(sql)
                try database.execute("PRAGMA user_version = \(offset + 1)")
            }
        }
    }
}
