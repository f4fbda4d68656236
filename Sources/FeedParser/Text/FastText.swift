/// Whitespace handling on UTF-8 bytes: the parser's hot path, where going through Unicode scalars
/// cost more than the XML parsing itself.
enum FastText {
    @inline(__always)
    static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C
    }

    /// The string of `bytes` without leading and trailing whitespace (ASCII and no-break spaces).
    static func trimmedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0
        var end = bytes.count
        while start < end {
            if isASCIIWhitespace(bytes[start]) { start += 1 }
            else if bytes[start] == 0xC2, start + 1 < end, bytes[start + 1] == 0xA0 { start += 2 }
            else { break }
        }
        while end > start {
            if isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
            else if end - 2 >= start, bytes[end - 2] == 0xC2, bytes[end - 1] == 0xA0 { end -= 2 }
            else { break }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    static func trimmed(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { utf8 in
            guard let first = utf8.first, let last = utf8.last else { return "" }
            // Most values have nothing to trim: keep the string as it is.
            if !isASCIIWhitespace(first) && !isASCIIWhitespace(last) && first != 0xC2 && last != 0xA0 { return text }
            return trimmedString(utf8)
        }
    }

    /// Trims and collapses every whitespace run (ASCII and no-break spaces) to one space.
    static func collapsed(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { utf8 in
            // Most titles have single spaces only: check before building anything.
            var previousWasSpace = true
            var needsWork = false
            for byte in utf8 {
                let isSpace = isASCIIWhitespace(byte)
                if (isSpace && (byte != 0x20 || previousWasSpace)) || byte == 0xC2 {
                    needsWork = true
                    break
                }
                previousWasSpace = isSpace
            }
            if !needsWork && !previousWasSpace { return text }
            var output: [UInt8] = []
            output.reserveCapacity(utf8.count)
            var pendingSpace = false
            var index = 0
            var changed = false
            while index < utf8.count {
                let byte = utf8[index]
                var width = 0
                if isASCIIWhitespace(byte) { width = 1 }
                else if byte == 0xC2, index + 1 < utf8.count, utf8[index + 1] == 0xA0 { width = 2 }
                if width > 0 {
                    if byte != 0x20 || pendingSpace || output.isEmpty { changed = true }
                    pendingSpace = !output.isEmpty
                    index += width
                    continue
                }
                if pendingSpace { output.append(0x20) }
                pendingSpace = false
                output.append(byte)
                index += 1
            }
            if pendingSpace { changed = true }
            return changed ? String(decoding: output, as: UTF8.self) : text
        }
    }
}
