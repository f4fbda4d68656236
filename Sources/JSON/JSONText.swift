import FoundationEssentials

/// JSON text written by hand into bytes: sorted keys, unescaped slashes (STYLE.md). Going through
/// `JSONSerialization` cost ~15 µs a value (0.9 s for the 5,000 feeds of `feeds.list`).
public enum JSONText {
    /// `value` as a quoted JSON string appended to `bytes`: quotes, backslashes and controls escaped,
    /// and U+2028/U+2029, which break JavaScript.
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            let count = utf8.count
            var runStart = 0
            var index = 0
            while index < count {
                // Eight bytes at a time; the mask's lowest bit marks the first byte to look at.
                if index + 8 <= count {
                    let mask = escapeCandidates(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    if mask == 0 {
                        index += 8
                        continue
                    }
                    index += mask.littleEndian.trailingZeroBitCount / 8
                } else if !mayNeedEscape(base[index]) {
                    index += 1
                    continue
                }
                let position = index
                let byte = base[position]
                index += 1
                if byte >= 0x80, !(byte == 0xE2 && position + 2 < count && base[position + 1] == 0x80
                                   && (base[position + 2] == 0xA8 || base[position + 2] == 0xA9)) { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                switch byte {
                case 0x22: append("\\\"", to: &bytes)
                case 0x5C: append("\\\\", to: &bytes)
                case 0x0A: append("\\n", to: &bytes)
                case 0x0D: append("\\r", to: &bytes)
                case 0x09: append("\\t", to: &bytes)
                case 0xE2:
                    append(base[position + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: &bytes)
                    index = position + 3
                default:
                    let hex: StaticString = "0123456789abcdef"
                    let digits = hex.utf8Start
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
                }
                runStart = index
            }
            if runStart < count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON number: integers as integers, others in Swift's shortest round-trip form; non-finite
    /// values (which JSON cannot hold) as null.
    public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        if value.rounded() == value, abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else if value.isFinite {
            bytes.append(contentsOf: String(value).utf8)
        } else {
            append("null", to: &bytes)
        }
    }

    static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The high bit of each of eight bytes that is a control, a quote, a backslash or not ASCII (SWAR:
    /// no byte loop; the rare non-ASCII byte is then checked for U+2028/U+2029 one by one). Bits above
    /// the lowest may be false alarms (a borrow carries up); the lowest never is.
    @inline(__always)
    private static func escapeCandidates(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let controlsOrHigh = ((word &- ones &* 0x20) | word) & highs
        return controlsOrHigh | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
    }

    /// Quotes, backslashes, controls, and 0xE2 (the lead byte of U+2028/U+2029).
    @inline(__always)
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2
    }
}

extension JSONValue {
    /// JSON text with sorted keys and unescaped slashes; `pretty` indents by two spaces, for people.
    public func encoded(pretty: Bool = false) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        write(to: &bytes, indent: pretty ? 0 : nil)
        return Data(bytes)
    }

    /// - Parameter indent: the depth when pretty-printing, nil for compact text.
    private func write(to bytes: inout [UInt8], indent: Int?) {
        switch self {
        case .null: JSONText.append("null", to: &bytes)
        case .bool(let value): value ? JSONText.append("true", to: &bytes) : JSONText.append("false", to: &bytes)
        case .number(let value): JSONText.appendNumber(value, to: &bytes)
        case .string(let value): JSONText.appendString(value, to: &bytes)
        case .array(let values):
            writeContainer(values.count, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), to: &bytes, indent: indent) { index, bytes in
                values[index].write(to: &bytes, indent: indent.map { $0 + 1 })
            }
        case .object(let values):
            let keys = values.keys.sorted()
            writeContainer(keys.count, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), to: &bytes, indent: indent) { index, bytes in
                JSONText.appendString(keys[index], to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if indent != nil { bytes.append(UInt8(ascii: " ")) }
                values[keys[index]]!.write(to: &bytes, indent: indent.map { $0 + 1 })
            }
        }
    }

    private func writeContainer(_ count: Int, open: UInt8, close: UInt8, to bytes: inout [UInt8], indent: Int?,
                                element: (Int, inout [UInt8]) -> Void) {
        bytes.append(open)
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let indent { Self.newline(indent + 1, &bytes) }
            element(index, &bytes)
        }
        if let indent, count > 0 { Self.newline(indent, &bytes) }
        bytes.append(close)
    }

    private static func newline(_ depth: Int, _ bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }
}
