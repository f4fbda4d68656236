import CLibPQ
import Foundation

/// A statement of the store run on PostgreSQL: prepared on the server at its first run, once for each
/// combination of parameter types it is given (a NULL's type is left to the server to infer), then
/// run with the values bound and its rows read from the result in text form.
final class PostgresStatement: SQLStatement {
    private let sql: String
    private let original: String
    private let connection: PostgresConnection
    /// Server-side names by parameter types, and the connection generation they were prepared in.
    private var prepared: [[Oid]: String] = [:]
    private var preparedGeneration = 0
    private var values: [SQLValue] = []
    private var result: OpaquePointer?
    private var row: Int32 = -1

    init(sql: String, original: String, connection: PostgresConnection) {
        self.sql = sql
        self.original = original
        self.connection = connection
    }

    deinit {
        if let result { PQclear(result) }
    }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        reset()
        self.values = values
    }

    func execute(_ values: [SQLValue]) throws(StoreError) {
        reset()
        self.values = values
        let alone = connection.isBetweenTransactions
        try retryingIfAlone(alone) { () throws(StoreError) in
            try connection.startSession()
            try connection.send(try name(), values, original: original)
        }
    }

    func step() throws(StoreError) -> Bool {
        if result == nil {
            let alone = connection.isBetweenTransactions
            try retryingIfAlone(alone) { () throws(StoreError) in
                try connection.startSession()  // a connection that cannot be made now is said at once
                do throws(StoreError) {
                    result = try connection.run(try name(), values, original: original)
                } catch let error where error.kind == .cannotOpen && alone && isRead {
                    // The connection dropped under a read of its own: nothing was changed, so it is asked
                    // once more, on a new connection (the failure reconnected), before anyone is told.
                    try connection.startSession()
                    result = try connection.run(try name(), values, original: original)
                }
            }
            row = -1
        }
        guard let result else { return false }
        row += 1
        return row < PQntuples(result)
    }

    /// Runs `run`; when it ran `alone`, a transaction of its own, again after conflicts (nothing of an
    /// undone run stayed).
    private func retryingIfAlone(_ alone: Bool, _ run: () throws(StoreError) -> Void) throws(StoreError) {
        if alone { try againAfterConflicts(run) } else { try run() }
    }

    /// The server-side statement for the bound values' types, prepared when first needed.
    private func name() throws(StoreError) -> String {
        if preparedGeneration != connection.generation {
            prepared.removeAll()
            preparedGeneration = connection.generation
        }
        let types = values.map(Self.type)
        if let name = prepared[types] { return name }
        let name = connection.nextStatementName()
        try connection.prepareOnServer(name, sql, types: types, original: original)
        prepared[types] = name
        return name
    }

    /// The statement only reads (a SELECT: the store's data-changing statements are INSERT, UPDATE,
    /// DELETE, or a WITH that holds one).
    private var isRead: Bool {
        original.drop { $0.isWhitespace }.prefix(6).uppercased() == "SELECT"
    }

    // int8, float8, text and bytea (pg_type's fixed oids); 0 lets the server infer a NULL's type.
    private static func type(of value: SQLValue) -> Oid {
        switch value {
        case .null: 0
        case .integer: 20
        case .real: 701
        case .text: 25
        case .blob: 17
        }
    }

    func reset() {
        if let result { PQclear(result) }
        result = nil
        row = -1
    }

    private func value(at column: Int32) -> UnsafeMutablePointer<CChar>? {
        guard let result, PQgetisnull(result, row, column) == 0 else { return nil }
        return PQgetvalue(result, row, column)
    }

    func isNull(at column: Int32) -> Bool {
        guard let result else { return true }
        return PQgetisnull(result, row, column) != 0
    }

    func int64(at column: Int32) -> Int64 {
        guard let bytes = value(at: column) else { return 0 }
        switch bytes.pointee {
        case CChar(UInt8(ascii: "t")): return 1  // a boolean, where SQLite has 1 and 0
        case CChar(UInt8(ascii: "f")): return 0
        default:
            let text = String(cString: bytes)
            return Int64(text) ?? Double(text).map { Int64($0) } ?? 0
        }
    }

    func double(at column: Int32) -> Double {
        value(at: column).flatMap { Double(String(cString: $0)) } ?? 0
    }

    func text(at column: Int32) -> String? {
        value(at: column).map { String(cString: $0) }
    }

    var columnCount: Int32 { result.map { PQnfields($0) } ?? 0 }

    func columnName(at column: Int32) -> String {
        result.flatMap { PQfname($0, column) }.map { String(cString: $0) } ?? ""
    }

    func value(at column: Int32) -> SQLValue {
        guard let result, !isNull(at: column) else { return .null }
        switch PQftype(result, column) {
        case 20, 21, 23: return .integer(int64(at: column))  // int8, int2, int4
        case 700, 701, 1700: return .real(double(at: column))  // float4, float8, numeric
        case 17: return .blob(blob(at: column))  // bytea
        case 16: return .integer(int64(at: column))  // boolean, as SQLite keeps it
        default: return .text(text(at: column) ?? "")
        }
    }

    func blob(at column: Int32) -> Data {
        guard let result, let bytes = value(at: column) else { return Data() }
        var length = 0
        guard let raw = PQunescapeBytea(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), &length) else {
            return Data()
        }
        defer { PQfreemem(raw) }
        _ = result
        return Data(bytes: raw, count: length)
    }
}

@available(*, unavailable)
extension PostgresStatement: Sendable {}
