import CSQLite
import Foundation

/// One SQLite connection, opened the way the store needs it: WAL, `synchronous=NORMAL`, foreign keys
/// on and a busy timeout.
final class SQLiteConnection: SQLConnection {
    let path: String
    private let handle: OpaquePointer
    var dialect: SQLDialect { .sqlite }
    var location: String { path }

    /// Opens (and with `create`, creates) the database file at `path`.
    /// - Throws: `StoreError` naming what is wrong with the file and what to do.
    init(path: String, create: Bool, readOnly: Bool) throws(StoreError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened, status == SQLITE_OK else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)  // SQLite hands out a handle even when opening fails
            throw Self.openError(path: path, code: status, message: message)
        }
        handle = opened
        do {
            sqlite3_busy_timeout(handle, 5_000)
            try configure(readOnly: readOnly)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    /// Closes the connection; statements must be finalized first (`Database` drops its cache).
    func close() {
        sqlite3_close_v2(handle)
    }

    /// The page size of a database this build creates (one that exists keeps its own). An entry's row
    /// holds a few KB (summary, content and their plain text): on 4 KB pages most rows run onto
    /// overflow pages, and every page is a WAL frame and a write of its own. On 16 KB pages a cold
    /// ingest of the N=1000 farm is 13–25 % faster (the file as large); at a million entries the file
    /// is 7 % smaller and queries as fast (measured).
    static let newPageSize = 16384

    private func configure(readOnly: Bool) throws(StoreError) {
        // Set before WAL mode, which fixes it. The first statement that reads the header follows: a file
        // that is not SQLite fails there, not at open.
        if !readOnly {
            try execute("PRAGMA page_size = \(Self.newPageSize)")
            try execute("PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA synchronous = NORMAL")
        try execute("PRAGMA foreign_keys = ON")
    }

    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw error(code: status, message: message.map { String(cString: $0) }, sql: sql)
        }
    }

    func prepare(_ sql: String) throws(StoreError) -> any SQLStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(code: status, message: nil, sql: sql)
        }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// IMMEDIATE takes the write lock at BEGIN: a transaction never fails half-way for want of it.
    func beginWrite() throws(StoreError) {
        try execute("BEGIN IMMEDIATE")
    }

    func changedRows() -> Int { Int(sqlite3_changes(handle)) }

    func drain() {}

    /// What `onCommit` calls, kept alive as long as the connection can call it.
    private var commitAction: CommitAction?

    private final class CommitAction {
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
    }

    /// Calls `action` at every commit of a write on this connection, just before the commit completes
    /// (SQLite's commit hook; it must not use the connection).
    func onCommit(_ action: @escaping () -> Void) {
        let box = CommitAction(action)
        commitAction = box
        sqlite3_commit_hook(handle, { context in
            Unmanaged<CommitAction>.fromOpaque(context!).takeUnretainedValue().action()
            return 0  // non-zero would turn the commit into a rollback
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Runs `body` with the raw connection, for the few C APIs that need it (backup).
    func withHandle<T>(_ body: (OpaquePointer) -> T) -> T { body(handle) }

    // MARK: - Errors

    func error(code: Int32, message: String?, sql: String?) -> StoreError {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        return Self.classify(path: path, code: code, message: text, sql: sql)
    }

    private static func openError(path: String, code: Int32, message: String) -> StoreError {
        if code & 0xff == SQLITE_CANTOPEN {
            return StoreError(.cannotOpen, code: code, message:
                "cannot open database \(path): \(message) (check that the directory exists and is writable)")
        }
        return classify(path: path, code: code, message: message, sql: nil)
    }

    static func classify(path: String, code: Int32, message: String, sql: String?) -> StoreError {
        switch code & 0xff {
        case SQLITE_NOTADB:
            return StoreError(.notADatabase, code: code, message:
                "\(path) is not an SQLite database (point --database at another file, or move this one away)")
        case SQLITE_CORRUPT:
            return StoreError(.corrupt, code: code, message:
                "database \(path) is corrupt: \(message) (restore it from a backup, or try sqlite3's .recover)")
        case SQLITE_READONLY:
            return StoreError(.readOnly, code: code, message:
                "database \(path) is read-only: \(message) (give the daemon's user write access to it and its directory)")
        default:
            let context = sql.map { " in `\($0.prefix(80))`" } ?? ""
            // Locked by another connection past the busy timeout: asking again later may work.
            let kind: StoreError.Kind = [SQLITE_BUSY, SQLITE_LOCKED].contains(code & 0xff) ? .busy : .failed
            return StoreError(kind, code: code, message: "database \(path): \(message)\(context)")
        }
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}

/// A compiled SQLite statement. Values are always bound, never interpolated into SQL.
final class SQLiteStatement: SQLStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .text(var text):
                // Bound by length from the string's own UTF-8: no temporary C string.
                status = text.withUTF8 { utf8 in
                    sqlite3_bind_text(handle, index, utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                      Int32(utf8.count), aggregator_sqlite_transient())
                }
            case .blob(let data):
                status = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), aggregator_sqlite_transient())
                }
            }
            guard status == SQLITE_OK else { throw connection.error(code: status, message: nil, sql: sql) }
        }
    }

    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(code: status, message: nil, sql: sql)
        }
    }

    func reset() { sqlite3_reset(handle) }

    func execute(_ values: [SQLValue]) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: bytes)
    }

    func blob(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func columnName(at column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    func value(at column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(at: column))
        case SQLITE_FLOAT: .real(double(at: column))
        case SQLITE_BLOB: .blob(blob(at: column))
        default: .text(text(at: column) ?? "")
        }
    }

    private var sql: String { String(cString: sqlite3_sql(handle)) }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}

extension SQLiteConnection {
    /// Copies the database to a new file at `path` with SQLite's online backup API, a few pages a
    /// step: writes wait for each short step, not for the whole copy.
    func backUpOnline(to path: String) throws(StoreError) -> Bool {
        var target: OpaquePointer?
        guard sqlite3_open_v2(path, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let target else {
            let message = target.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(target)
            throw StoreError(.cannotOpen, message: "cannot create backup \(path): \(message)")
        }
        defer { sqlite3_close_v2(target) }
        guard let backup = withHandle({ sqlite3_backup_init(target, "main", $0, "main") }) else {
            throw StoreError(.failed, message: "cannot back up to \(path): \(String(cString: sqlite3_errmsg(target)))")
        }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, 256)  // pages per step; the writer is held only that long
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            try? FileManager.default.removeItem(atPath: path)
            throw StoreError(.failed, code: status, message: "backup to \(path) failed: \(String(cString: sqlite3_errstr(status)))")
        }
        return true
    }
}
