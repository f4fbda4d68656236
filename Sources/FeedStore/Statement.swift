import CSQLite
import Foundation

/// A compiled SQL statement. Values are always bound, never interpolated into SQL.
final class Statement {
    private let handle: OpaquePointer
    private unowned let database: Database

    init(handle: OpaquePointer, database: Database) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears earlier bindings and binds `values` to `?1`, `?2`, … in order.
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
            guard status == SQLITE_OK else { throw database.error(code: status, message: nil, sql: sql) }
        }
    }

    /// Advances to the next row; false when there are no more.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw database.error(code: status, message: nil, sql: sql)
        }
    }

    /// Binds `values` and runs the statement to completion.
    func run(_ values: [SQLValue] = []) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `values` and calls `row` for each result row.
    func query(_ values: [SQLValue] = [], row: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(at column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
    }

    func optionalDouble(at column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
    }

    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: bytes)
    }

    func blob(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    private var sql: String { String(cString: sqlite3_sql(handle)) }
}

@available(*, unavailable)
extension Statement: Sendable {}

/// A value bound to a statement parameter.
enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The placeholders of an `IN (…)` list of `ids`, whose values are appended to `values` (bound,
    /// never written into the SQL): `?3,?4,?5`.
    static func placeholders(for ids: some Sequence<Int64>, appendingTo values: inout [SQLValue]) -> String {
        ids.map { id -> String in
            values.append(.integer(id))
            return "?\(values.count)"
        }.joined(separator: ",")
    }

    init(_ text: String?) { self = text.map(SQLValue.text) ?? .null }
    init(_ number: Int64?) { self = number.map(SQLValue.integer) ?? .null }
    init(_ flag: Bool) { self = .integer(flag ? 1 : 0) }
}
