import Foundation
import Testing
@testable import FeedStore

/// The schema built on SQLite and the one built on PostgreSQL are the same (docs/ARCHITECTURE.md,
/// "Storage"): tables, columns and their kinds, nullability, defaults, primary keys, unique and
/// other indexes, foreign keys and triggers, each described as one line by each database's own
/// catalogue and compared as sets. A difference fails the test unless `Self.allowed` names it, with
/// the reason.
@Suite(.enabled(if: TestDatabase.isPostgres, "needs the PostgreSQL test cluster (make test-postgres)"))
struct SchemaParityTests {
    /// Differences that are meant: the side whose catalogue has the line, a text the line holds, why.
    static let allowed: [(side: String, containing: String, why: String)] = [
        ("sqlite", "_fts", "full-text search: SQLite's FTS5 tables and their shadow tables (SearchSQL)"),
        ("sqlite", "trigger entry_versions_", "SQLite's FTS5 index of entry versions is kept by triggers"),
        ("postgres", "entry_search", "full-text search: PostgreSQL's tsvector rows with a GIN index (SearchSQL)"),
        ("postgres", "entry_version_search", "the same for entry versions"),
        ("postgres", "aggregator_schema", "the schema version: SQLite keeps it in PRAGMA user_version"),
        ("postgres", "index feeds_due on", "only PostgreSQL's daemons claim due feeds (step 28, ClusterStore)"),
        ("sqlite", "unique accounts(name)", "a name is unique whatever its case: SQLite by NOCASE, PostgreSQL on aggregator_nocase(name)"),
        ("postgres", "unique accounts(<expression>)", "the same"),
        ("sqlite", "unique categories(account_id,name)", "the same, for an account's categories"),
        ("postgres", "unique categories(account_id,<expression>)", "the same"),
        ("sqlite", "primary key entry_versions(id)", "entry_versions has the same two unique keys, (id) and (entry_id, feed_id), "
            + "on both; which is the primary one differs (step 36 gave versions an id each its own way)"),
        ("sqlite", "unique entry_versions(entry_id,feed_id)", "the same"),
        ("postgres", "primary key entry_versions(entry_id,feed_id)", "the same"),
        ("postgres", "unique entry_versions(id)", "the same"),
    ]

    private static func isAllowed(_ difference: (side: String, line: String)) -> Bool {
        allowed.contains { $0.side == difference.side && difference.line.contains($0.containing) }
    }

    @Test func bothBackendsBuildTheSameSchema() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("parity.db").path
        _ = try FeedStore(path: file)
        let uri = try TestDatabase.fresh(orFile: file)
        _ = try FeedStore(path: uri)

        let sqlite = try Set(run("/usr/bin/python3", ["-c", Self.describeSQLite, file]).split(separator: "\n").map(String.init))
        let postgres = try Set(run("/usr/bin/psql", ["-qXAt", uri, "-c", Self.describePostgres]).split(separator: "\n").map(String.init))
        #expect(sqlite.count > 100 && postgres.count > 100, "both catalogues read")
        let differences = sqlite.subtracting(postgres).map { (side: "sqlite", line: $0) }
            + postgres.subtracting(sqlite).map { (side: "postgres", line: $0) }
        let unexpected = differences.filter { !Self.isAllowed($0) }.map { "\($0.side): \($0.line)" }.sorted()
        #expect(unexpected.isEmpty, "\(unexpected.count) differences:\n\(unexpected.joined(separator: "\n"))")
        let stale = Self.allowed.filter { rule in !differences.contains { $0.side == rule.side && $0.line.contains(rule.containing) } }
        #expect(stale.isEmpty, "allowed differences that are gone (remove them): \(stale.map(\.containing))")
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw StoreError(.failed, message: "\(tool) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Column kinds as both spell them: integer, text, real, blob.
    private static let kinds = """
        {"integer": "integer", "int": "integer", "bigint": "integer", "smallint": "integer", "boolean": "integer",
         "text": "text", "real": "real", "double precision": "real", "blob": "blob", "bytea": "blob", "": "any"}
        """

    /// One line per fact, from SQLite's catalogue (Python's sqlite3: no CLI needed).
    private static let describeSQLite = """
        import json, re, sqlite3, sys
        kinds = json.loads('''\(kinds)''')
        db = sqlite3.connect(sys.argv[1])
        def default(text):
            if text is None: return "null"
            text = text.strip().strip("()").lower()
            return re.sub(r"^'(.*)'$", r"\\1", text)
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for t in tables:
            print(f"table {t}")
            columns = db.execute(f"PRAGMA table_info('{t}')").fetchall()
            for _, name, kind, notnull, value, pk in columns:
                print(f"column {t}.{name} {kinds.get(kind.lower(), kind.lower())}{' not null' if notnull or pk else ''} default {default(value)}")
            key = [name for _, name, _, _, _, pk in sorted(columns, key=lambda c: c[5]) if pk]
            if key: print(f"primary key {t}({','.join(key)})")
            for _, index, unique, origin, partial in db.execute(f"PRAGMA index_list('{t}')"):
                if origin == "pk": continue
                names = ",".join(c[2] or "<expression>" for c in db.execute(f"PRAGMA index_info('{index}')"))
                where = " partial" if partial else ""
                print(f"unique {t}({names}){where}" if unique else f"index {index} on {t}({names}){where}")
            for _, _, parent, column, target, _, delete, _ in db.execute(f"PRAGMA foreign_key_list('{t}')"):
                print(f"foreign key {t}({column}) -> {parent}({target or 'id'}) on delete {delete.lower()}")
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            print(f"trigger {name}")
        """

    /// The same lines from PostgreSQL's catalogue.
    private static let describePostgres = """
        WITH kinds(pg, kind) AS (VALUES ('bigint', 'integer'), ('integer', 'integer'), ('smallint', 'integer'),
            ('boolean', 'integer'), ('text', 'text'), ('double precision', 'real'), ('real', 'real'), ('bytea', 'blob')),
        tables AS (SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')),
        indexes AS (
            SELECT t.relname AS t, i.relname AS index, x.indisunique AS is_unique, x.indisprimary AS is_primary,
                   x.indpred IS NOT NULL AS is_partial,
                   (SELECT string_agg(coalesce(a.attname, '<expression>'), ',' ORDER BY k.n)
                    FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                    LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS names
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN tables t ON t.oid = x.indrelid)
        SELECT 'table ' || relname FROM tables
        UNION ALL
        SELECT 'column ' || c.table_name || '.' || c.column_name || ' ' || coalesce(k.kind, c.data_type)
               || CASE WHEN c.is_nullable = 'NO' THEN ' not null' ELSE '' END || ' default '
               || coalesce(lower(regexp_replace(regexp_replace(c.column_default, '::[a-z ]+', '', 'g'), '^''(.*)''$', '\\1')), 'null')
        FROM information_schema.columns c LEFT JOIN kinds k ON k.pg = c.data_type
        WHERE c.table_schema = 'public'
        UNION ALL
        SELECT CASE WHEN is_primary THEN 'primary key ' || t || '(' || names || ')'
                    WHEN is_unique THEN 'unique ' || t || '(' || names || ')' || CASE WHEN is_partial THEN ' partial' ELSE '' END
                    ELSE 'index ' || index || ' on ' || t || '(' || names || ')' || CASE WHEN is_partial THEN ' partial' ELSE '' END END
        FROM indexes
        UNION ALL
        SELECT 'foreign key ' || t.relname || '(' || a.attname || ') -> ' || p.relname || '(' || b.attname || ') on delete '
               || CASE f.confdeltype WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'r' THEN 'restrict'
                                     WHEN 'd' THEN 'set default' ELSE 'no action' END
        FROM pg_constraint f JOIN tables t ON t.oid = f.conrelid JOIN pg_class p ON p.oid = f.confrelid
        JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = f.conkey[1]
        JOIN pg_attribute b ON b.attrelid = f.confrelid AND b.attnum = f.confkey[1]
        WHERE f.contype = 'f'
        UNION ALL
        SELECT 'trigger ' || tgname FROM pg_trigger g JOIN tables t ON t.oid = g.tgrelid WHERE NOT g.tgisinternal
        """
}
