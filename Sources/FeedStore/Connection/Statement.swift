import Foundation

/// A compiled SQL statement of either backend. Values are always bound, never interpolated into SQL.
final class Statement {
    private let compiled: any SQLStatement

    init(_ compiled: any SQLStatement) {
        self.compiled = compiled
    }

    /// Clears earlier bindings and binds `values` to `?1`, `?2`, … in order.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        try compiled.bind(values)
    }

    /// Advances to the next row; false when there are no more.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        try compiled.step()
    }

    /// Binds `values` and runs the statement to completion.
    func run(_ values: [SQLValue] = []) throws(StoreError) {
        try compiled.execute(values)
    }

    /// Binds `values` and calls `row` for each result row.
    func query(_ values: [SQLValue] = [], row: (Statement) throws(StoreError) -> Void) throws(StoreError) {
        try bind(values)
        defer { compiled.reset() }
        while try step() { try row(self) }
    }

    func int64(at column: Int32) -> Int64 { compiled.int64(at: column) }

    func optionalInt64(at column: Int32) -> Int64? {
        compiled.isNull(at: column) ? nil : compiled.int64(at: column)
    }

    func optionalDouble(at column: Int32) -> Double? {
        compiled.isNull(at: column) ? nil : compiled.double(at: column)
    }

    func text(at column: Int32) -> String? { compiled.text(at: column) }

    func blob(at column: Int32) -> Data { compiled.blob(at: column) }

    var columnCount: Int32 { compiled.columnCount }
    func columnName(at column: Int32) -> String { compiled.columnName(at: column) }
    func value(at column: Int32) -> SQLValue { compiled.value(at: column) }
}

@available(*, unavailable)
extension Statement: Sendable {}
