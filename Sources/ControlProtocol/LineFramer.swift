import FoundationEssentials

/// Splits a byte stream into newline-terminated frames (one JSON-RPC object per line).
///
/// Bytes arrive in arbitrary pieces from a socket; `append` buffers them and returns every complete
/// line, without its `\n` (and without a `\r` before it). A line longer than `maximumLineLength`
/// is an error: the peer is misbehaving and the connection should be answered and closed.
public struct LineFramer: Sendable {
    /// A line grew past the limit before its newline arrived.
    public struct LineTooLong: Error, Equatable, CustomStringConvertible {
        public let limit: Int
        public var description: String { "line longer than \(limit) bytes" }
    }

    /// Largest accepted line in bytes, newline excluded.
    public let maximumLineLength: Int
    private var pending = Data()

    /// Creates a framer; the default limit is the protocol's 1 MiB.
    public init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// Bytes received but not yet part of a complete line.
    public var bufferedByteCount: Int { pending.count }

    /// Adds `bytes` and returns the lines they complete, in order.
    /// - Throws: `LineTooLong` when a line exceeds the limit; the buffer is then discarded.
    public mutating func append(_ bytes: Data) throws(LineTooLong) -> [Data] {
        pending.append(bytes)
        var lines: [Data] = []
        var lineStart = pending.startIndex
        while let newline = pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            var lineEnd = newline
            if lineEnd > lineStart, pending[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            guard lineEnd - lineStart <= maximumLineLength else {
                pending.removeAll()
                throw LineTooLong(limit: maximumLineLength)
            }
            lines.append(Data(pending[lineStart..<lineEnd]))
            lineStart = newline + 1
        }
        pending = Data(pending[lineStart...])
        guard pending.count <= maximumLineLength else {
            pending.removeAll()
            throw LineTooLong(limit: maximumLineLength)
        }
        return lines
    }
}
