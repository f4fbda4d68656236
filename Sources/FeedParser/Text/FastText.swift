import Glibc

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
        return UTF8Text.string(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// Whether `text` holds the byte `byte` (an ASCII character), looked for by memchr: the
    /// UTF-8 view's own `contains` steps through an iterator, byte by byte.
    static func contains(_ byte: UInt8, in text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return false }
            return memchr(base, Int32(byte), utf8.count) != nil
        }
    }

    /// `text` lower-cased, then trimmed: an attribute value compared with `"html"` or `"alternate"`.
    /// Such values nearly always are already, and are then returned without building a string.
    static func lowercasedToken(_ text: String) -> String {
        var copy = text
        let isAlready = copy.withUTF8 { utf8 in
            guard let first = utf8.first, let last = utf8.last else { return true }
            return !isASCIIWhitespace(first) && !isASCIIWhitespace(last)
                && utf8.allSatisfy { $0 < 0x80 && !(65...90).contains($0) }
        }
        return isAlready ? text : text.lowercased().trimmingWhitespace
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
            var output = CollapsingText()
            output.reserve(utf8.count)
            output.append(utf8)
            return output.string
        }
    }
}

/// Text written with every whitespace run (ASCII and no-break spaces) as one space, none at the
/// edges: collapsing as it is written saves a second pass and a string.
struct CollapsingText {
    private var bytes: [UInt8] = []
    private var pendingSpace = false

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// A space between what came before and what follows (a block element's edge).
    mutating func space() { pendingSpace = !bytes.isEmpty }

    mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let base = run.baseAddress else { return }
        let count = run.count
        var index = 0
        while index < count {
            if Self.spaceLength(base, at: index, count: count) > 0 {
                space()
                index += Self.spaceLength(base, at: index, count: count)
                continue
            }
            // A word goes in with one copy: appending byte by byte was a tenth of a long article's time.
            var end = index + 1
            while end < count, Self.spaceLength(base, at: end, count: count) == 0 { end += 1 }
            if pendingSpace {
                bytes.append(0x20)
                pendingSpace = false
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + index, count: end - index))
            index = end
        }
    }

    /// The bytes of the whitespace at `index` (an ASCII space, or the two of a no-break space), or 0.
    @inline(__always)
    private static func spaceLength(_ base: UnsafePointer<UInt8>, at index: Int, count: Int) -> Int {
        let byte = base[index]
        if FastText.isASCIIWhitespace(byte) { return 1 }
        return byte == 0xC2 && index + 1 < count && base[index + 1] == 0xA0 ? 2 : 0
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    var string: String { UTF8Text.string(bytes) }
}
