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

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String?) {
        guard var value else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            let base = UnsafeRawPointer(utf8.baseAddress)
            while index < utf8.count {
                // Skip eight bytes at a time when none of them can need escaping (the usual case).
                if let base, index + 8 <= utf8.count,
                   !Self.wordMayNeedEscape(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                index += 1
                // Escape quotes, backslashes and controls; also U+2028/U+2029 (E2 80 A8/A9), which break JavaScript.
                guard Self.byteMayNeedEscape[Int(byte)] else { continue }
                let position = index - 1
                if byte == 0xE2, !(position + 2 < utf8.count && utf8[position + 1] == 0x80
                                    && (utf8[position + 2] == 0xA8 || utf8[position + 2] == 0xA9)) { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                switch byte {
                case 0x22: raw("\\\"")
                case 0x5C: raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0xE2:
                    raw(utf8[position + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                    runStart = position + 3
                    index = position + 3
                    continue
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
                runStart = position + 1
            }
            if runStart < utf8.count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of eight bytes is a control, a quote, a backslash or 0xE2 (SWAR: no byte loop).
    @inline(__always)
    private static func wordMayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highs != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || hasZeroByte(word ^ (ones &* 0xE2))
    }

    /// Quotes, backslashes, controls, and 0xE2 (the lead byte of U+2028/U+2029).
    private static let byteMayNeedEscape: [Bool] = (0..<256).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }

    /// A moment as a quoted RFC 3339 UTC string, written digit by digit.
    mutating func timestamp(_ seconds: Int64?) {
        guard let seconds else {
            raw("null")
            return
        }
        let text = rfc3339(secondsSinceEpoch: seconds)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
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
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
