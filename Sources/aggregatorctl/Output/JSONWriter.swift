import ControlProtocol
import FeedParser

/// Writes compact JSON into a byte buffer by hand: the schema fixes the key order, and this is the
/// hot path when `parse` checks thousands of files.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends a copy of bytes already written (a value written twice is escaped once).
    mutating func repeatBytes(_ range: Range<Int>) {
        bytes.append(contentsOf: bytes[range])
    }

    mutating func raw(_ text: StaticString) {
        // Keys and brackets are a few bytes: appended one by one, they skip the bulk copy's setup.
        let start = text.utf8Start
        for offset in 0..<text.utf8CodeUnitCount { bytes.append(start[offset]) }
    }

    mutating func string(_ value: String?) {
        guard let value else {
            raw("null")
            return
        }
        JSONText.appendString(value, to: &bytes)
    }

    /// A moment as a quoted RFC 3339 UTC string, written digit by digit.
    mutating func timestamp(_ seconds: Int64?) {
        guard let seconds else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        appendRFC3339(secondsSinceEpoch: seconds, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int?) {
        guard let value else {
            raw("null")
            return
        }
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `"key":`, with a comma before every key but the first of an object.
    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }
}
