/// Rewrites character and entity references into numeric references before libxml2 sees them.
///
/// Feeds are full of `&eacute;` without a DTD, bare `&` in "AT&T" and other references XML does
/// not define. libxml2 reports those as errors and, once a document is not well-formed, drops
/// every later named reference, even `&amp;`. Numeric references always reach the characters
/// callback, so: HTML 4 and XML names become their code point, unknown names and bare `&` become
/// a literal `&` (`&#38;`). CDATA sections, comments, processing instructions and the DOCTYPE are
/// left alone, and no declared entity is ever expanded.
enum ReferenceRewriter {
    /// The rewritten document, or nil when it needs no change.
    static func rewrite(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.contains(UInt8(ascii: "&")) else { return nil }
        var output: [UInt8] = []
        var copiedUpTo = 0
        var index = 0
        let count = bytes.count

        func starts(_ literal: StaticString, at position: Int) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard position + length <= count else { return false }
            return literal.withUTF8Buffer { pattern in
                (0..<length).allSatisfy { bytes[position + $0] == pattern[$0] }
            }
        }
        func skip(past terminator: StaticString, from position: Int) -> Int {
            var scan = position
            let first = terminator.withUTF8Buffer { $0[0] }
            while scan < count {
                if bytes[scan] == first, starts(terminator, at: scan) { return scan + terminator.utf8CodeUnitCount }
                scan += 1
            }
            return count
        }
        func replace(from start: Int, to end: Int, with replacement: [UInt8]) {
            if output.isEmpty { output.reserveCapacity(count + 256) }
            output.append(contentsOf: bytes[copiedUpTo..<start])
            output.append(contentsOf: replacement)
            copiedUpTo = end
        }

        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts("<![CDATA[", at: index) { index = skip(past: "]]>", from: index + 9); continue }
                if starts("<!--", at: index) { index = skip(past: "-->", from: index + 4); continue }
                if starts("<?", at: index) { index = skip(past: "?>", from: index + 2); continue }
                if starts("<!DOCTYPE", at: index) { index = skipDoctype(bytes, from: index + 9); continue }
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "&") else {
                index += 1
                continue
            }
            let (replacement, end) = reference(in: bytes, at: index)
            if let replacement { replace(from: index, to: end, with: replacement) }
            index = end
        }
        guard !output.isEmpty || copiedUpTo > 0 else { return nil }
        output.append(contentsOf: bytes[copiedUpTo..<count])
        return output
    }

    /// The numeric form of the reference at `start` (nil to keep it) and where it ends.
    private static func reference(in bytes: UnsafeRawBufferPointer, at start: Int) -> ([UInt8]?, Int) {
        let literalAmpersand = Array("&#38;".utf8)
        var end = start + 1
        let count = bytes.count
        if end < count, bytes[end] == UInt8(ascii: "#") {
            end += 1
            let hex = end < count && (bytes[end] == UInt8(ascii: "x") || bytes[end] == UInt8(ascii: "X"))
            if hex { end += 1 }
            var value: UInt32 = 0
            let digitsStart = end
            while end < count, end - digitsStart < 8, let digit = digitValue(bytes[end], hex: hex) {
                value = value * (hex ? 16 : 10) + digit
                end += 1
            }
            if end > digitsStart, end < count, bytes[end] == UInt8(ascii: ";"), isXMLCharacter(value) {
                // XML wants a lower-case x in hexadecimal references; feeds write &#X41; too.
                return (bytes[start + 2] == UInt8(ascii: "X") ? Array("&#\(value);".utf8) : nil, end + 1)
            }
            return (literalAmpersand, start + 1)
        }
        while end < count, end - start <= 32, isNameByte(bytes[end], first: end == start + 1) { end += 1 }
        guard end > start + 1, end < count, bytes[end] == UInt8(ascii: ";") else {
            return (literalAmpersand, start + 1)
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<end]), as: UTF8.self)
        let scalarValue: UInt32?
        switch name {
        case "amp": scalarValue = 38
        case "lt": scalarValue = 60
        case "gt": scalarValue = 62
        case "quot": scalarValue = 34
        case "apos": scalarValue = 39
        default: scalarValue = HTMLEntities.character(named: name)?.unicodeScalars.first?.value
        }
        guard let scalarValue else { return (literalAmpersand, start + 1) }
        return (Array("&#\(scalarValue);".utf8), end + 1)
    }

    /// Skips `<!DOCTYPE …>` including an internal subset in brackets.
    private static func skipDoctype(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        var inSubset = false
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: "]") {
                inSubset = false
            } else if byte == UInt8(ascii: ">"), !inSubset {
                return index + 1
            }
            index += 1
        }
        return index
    }

    private static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case 48...57: return UInt32(byte - 48)
        case 97...102 where hex: return UInt32(byte - 87)
        case 65...70 where hex: return UInt32(byte - 55)
        default: return nil
        }
    }

    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        let isLetter = (65...90).contains(byte) || (97...122).contains(byte)
        return first ? isLetter : isLetter || (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    /// XML 1.0's Char production: what a numeric reference may name.
    private static func isXMLCharacter(_ value: UInt32) -> Bool {
        value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
            || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
    }
}
