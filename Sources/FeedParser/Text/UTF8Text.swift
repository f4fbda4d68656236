/// UTF-8 validation and string building for the parser's hot path.
///
/// The standard library validates every string it builds from bytes, one scalar at a time once a
/// string holds a single non-ASCII character; a feed's content usually holds a few, and that check
/// cost a twentieth of the parse (measured). Here validation skips ASCII eight bytes at a time,
/// and a string proved valid is copied without a second check.
enum UTF8Text {
    /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values above
    /// U+10FFFF), and whether they are plain ASCII.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> (isValid: Bool, isASCII: Bool) {
        guard let base = bytes.baseAddress else { return (true, true) }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        var isASCII = true
        while index < count {
            // ASCII 32 and then 8 bytes at a time: most of a feed is markup and ASCII text.
            if index + 32 <= count {
                let words = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
                if words & highBits == 0 {
                    index += 32
                    continue
                }
            }
            if index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highBits == 0 {
                index += 8
                continue
            }
            let byte = base[index]
            if byte < 0x80 {
                index += 1
                continue
            }
            isASCII = false
            let length: Int
            let minimum: UInt32
            var value: UInt32
            switch byte {
            case 0xC2...0xDF: length = 2; value = UInt32(byte & 0x1F); minimum = 0x80
            case 0xE0...0xEF: length = 3; value = UInt32(byte & 0x0F); minimum = 0x800
            case 0xF0...0xF4: length = 4; value = UInt32(byte & 0x07); minimum = 0x10000
            default: return (false, false)
            }
            guard index + length <= count else { return (false, false) }
            for offset in 1..<length {
                let continuation = base[index + offset]
                guard continuation & 0xC0 == 0x80 else { return (false, false) }
                value = value << 6 | UInt32(continuation & 0x3F)
            }
            guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return (false, false) }
            index += length
        }
        return (true, isASCII)
    }

    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The string of `bytes`; ill-formed sequences (which libxml2 never hands over for a document
    /// already decoded to UTF-8, but a caller might) become U+FFFD as with `String(decoding:as:)`.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let (isValid, isASCII) = validate(bytes)
        guard isValid else { return String(decoding: bytes, as: UTF8.self) }
        // Safe: just proved well-formed, which is all the unchecked initializer assumes.
        return unsafe String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: isASCII))
    }

    static func string(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { string($0) }
    }
}
