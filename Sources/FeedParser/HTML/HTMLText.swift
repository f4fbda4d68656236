import FoundationEssentials
import Glibc

/// Turns HTML into plain text for the full-text index and snippets.
///
/// One pass over the UTF-8 bytes, building nothing: libxml2's HTML parser built a document tree for
/// every summary and content, a fifth of a cold refresh round's parse side (measured). Where the two
/// differ (broken markup), this one keeps the text and drops what looks like a tag.
public enum HTMLText {
    /// The readable text of `html`: tags dropped, entities decoded, scripts and styles skipped,
    /// block elements separated by a space and whitespace runs collapsed to one space.
    public static func plainText(fromHTML html: String) -> String {
        guard FastText.contains(UInt8(ascii: "<"), in: html) || FastText.contains(UInt8(ascii: "&"), in: html) else {
            return collapse(html)
        }
        var text = CollapsingText()
        var source = html
        source.withUTF8 { bytes in
            text.reserve(bytes.count)
            var index = 0
            while index < bytes.count {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "&") { end += 1 }
                text.append(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                guard end < bytes.count else { break }
                index = bytes[end] == UInt8(ascii: "<") ? skipMarkup(bytes, at: end, into: &text)
                                                         : decodeReference(bytes, at: end, into: &text)
            }
        }
        return text.string
    }

    /// Trims and collapses every whitespace run (including no-break spaces) to one space.
    static func collapse(_ text: String) -> String {
        FastText.collapsed(text)
    }

    private static let skipped: Set<UInt128> = Set(["script", "style", "noscript", "template"].compactMap { key(Array($0.utf8)[...]) })
    private static let blocks: Set<UInt128> = Set([
        "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
        "table", "tr", "td", "th", "section", "article", "header", "footer", "figure", "figcaption",
        "dd", "dt", "dl", "hr", "aside", "nav",
    ].compactMap { key(Array($0.utf8)[...]) })

    /// A tag name of up to 16 bytes as one number, ASCII letters lower-cased (digits unchanged): looked
    /// up without making an array of each tag's name. Nil when longer: no name in the sets above is.
    private static func key<Name: Collection<UInt8>>(_ name: Name) -> UInt128? {
        guard name.count <= 16 else { return nil }
        var key: UInt128 = 0
        for byte in name { key = key << 8 | UInt128(byte | 0x20) }
        return key
    }

    /// Skips a comment, a tag (or a whole script/style element) at `start`, or keeps a `<` that starts
    /// none; CDATA sections keep their text. Returns where to go on.
    private static func skipMarkup(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, into output: inout CollapsingText) -> Int {
        let next = start + 1 < bytes.count ? bytes[start + 1] : 0
        if next == UInt8(ascii: "!"), matches("<!--", bytes, at: start) {
            return firstIndex(of: "-->", in: bytes, from: start + 4).map { $0 + 3 } ?? bytes.count
        }
        if next == UInt8(ascii: "!"), matches("<![CDATA[", bytes, at: start) {
            let close = firstIndex(of: "]]>", in: bytes, from: start + 9)
            output.append(UnsafeBufferPointer(rebasing: bytes[(start + 9)..<(close ?? bytes.count)]))
            return close.map { $0 + 3 } ?? bytes.count
        }
        var index = start + 1
        let closing = index < bytes.count && bytes[index] == UInt8(ascii: "/")
        if closing { index += 1 }
        let nameStart = index
        // A tag name starts with a letter ("<3" is text).
        if index < bytes.count, isLetter(bytes[index]) {
            while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        }
        let startsTag = index > nameStart || (!closing && index < bytes.count
            && (bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "?")))
        guard startsTag else {
            output.append("<")
            return start + 1
        }
        let name = key(bytes[nameStart..<index])
        if let name, blocks.contains(name) { output.space() }
        // Scripts and styles hold no readable text: skip to their end tag.
        guard !closing, let name, skipped.contains(name) else { return tagEnd(bytes, from: index) }
        let length = index - nameStart
        var search = index
        while let close = firstIndex(of: "</", in: bytes, from: search) {
            let after = close + 2
            if after + length <= bytes.count, key(bytes[after..<(after + length)]) == name {
                return tagEnd(bytes, from: after + length)
            }
            search = after
        }
        return bytes.count
    }

    /// After the `>` that ends a tag, skipping quoted attribute values.
    private static func tagEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    /// Decodes `&name;`, `&#38;` or `&#x26;` at `start` (HTML 4 names), or keeps the `&`.
    private static func decodeReference(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, into output: inout CollapsingText) -> Int {
        var index = start + 1
        let limit = min(bytes.count, start + 40)
        while index < limit, bytes[index] != UInt8(ascii: ";"), isReferenceByte(bytes[index]) { index += 1 }
        if index < limit, bytes[index] == UInt8(ascii: ";"), index > start + 1,
           let decoded = HTMLEntities.decodeReference(Substring(String(decoding: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<index]), as: UTF8.self))) {
            output.append(decoded)
            return index + 1
        }
        output.append("&")
        return start + 1
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isReferenceByte(_ byte: UInt8) -> Bool {
        isNameByte(byte) || byte == UInt8(ascii: "#")
    }

    private static func matches(_ text: StaticString, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        text.withUTF8Buffer { needle in
            start + needle.count <= bytes.count && bytes[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    /// Where the first `text` at or after `start` begins, or nil (memchr finds the first byte).
    private static func firstIndex(of text: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let first = text.utf8Start.pointee
        var index = start
        while index < bytes.count, let hit = memchr(base + index, Int32(first), bytes.count - index) {
            let position = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            if matches(text, bytes, at: position) { return position }
            index = position + 1
        }
        return nil
    }
}
