/// Titles are plain text; these decide when a title is really HTML and reduce it to text.
enum HTMLTitle {
    /// feedparser's allow-list of HTML element names.
    static let allowedElements: Set<String> = [
        "a", "abbr", "acronym", "address", "area", "article", "aside", "audio", "b", "big", "blockquote", "br",
        "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "command", "datagrid",
        "datalist", "dd", "del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "event-source",
        "fieldset", "figcaption", "figure", "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "i", "img", "input", "ins", "kbd", "keygen", "label", "legend", "li", "m", "map", "menu",
        "meter", "multicol", "nav", "nextid", "noscript", "ol", "optgroup", "option", "output", "p", "pre",
        "progress", "q", "s", "samp", "section", "select", "small", "sound", "source", "spacer", "span",
        "strike", "strong", "sub", "sup", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "time",
        "tr", "tt", "u", "ul", "var", "video",
    ]

    /// Whether a non-Atom title's text is HTML: it has an end tag or a character reference, every tag
    /// is an allowed HTML element and every named reference an HTML 4 entity.
    static func looksLikeHTML(_ text: String) -> Bool {
        // The markers are found on the UTF-8 bytes (a title is scanned for every entry); only the short
        // names after them are read as characters.
        let isMarker = { (byte: UInt8) in byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") }
        var source = text
        guard source.withUTF8({ $0.contains(where: isMarker) }) else { return false }  // most titles
        let utf8 = text.utf8
        var sawMarker = false
        var index = utf8.startIndex
        while let marker = utf8[index...].firstIndex(where: isMarker) {
            let after = utf8.index(after: marker)
            if utf8[marker] == UInt8(ascii: "<") {
                guard let close = utf8[after...].firstIndex(of: UInt8(ascii: ">")) else { return sawMarker }
                var tag = text[after..<close]
                index = utf8.index(after: close)
                if tag.hasPrefix("!--") || tag.hasPrefix("!") || tag.hasPrefix("?") { continue }
                if tag.hasPrefix("/") {
                    tag = tag.dropFirst()
                    sawMarker = true
                }
                let name = tag.prefix { $0.isLetter || $0.isNumber || $0 == "-" }.lowercased()
                guard allowedElements.contains(name) else { return false }
            } else {
                let body = text[after...].prefix { $0 != ";" && !$0.isWhitespace && $0 != "&" && $0 != "<" }
                let end = body.endIndex
                guard end < text.endIndex, text[end] == ";", !body.isEmpty else {
                    index = after
                    continue
                }
                guard body.hasPrefix("#") || HTMLEntities.character(named: String(body)) != nil else { return false }
                sawMarker = true
                index = utf8.index(after: end)
            }
        }
        return sawMarker
    }

    /// The text of an HTML title: tags and comments removed (no spaces inserted), references decoded.
    static func strip(_ html: String) -> String {
        let bytes = Array(html.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count {
                if bytes[(index + 1)...].starts(with: Array("!--".utf8)),
                   let end = find(Array("-->".utf8), in: bytes, from: index + 4) {
                    index = end + 3
                    continue
                }
                let next = bytes[index + 1]
                let startsTag = (65...90).contains(next) || (97...122).contains(next) || next == UInt8(ascii: "/")
                    || next == UInt8(ascii: "!") || next == UInt8(ascii: "?")
                if startsTag, let close = tagEnd(in: bytes, from: index + 1) {
                    index = close + 1
                    continue
                }
            }
            output.append(bytes[index])
            index += 1
        }
        return HTMLEntities.decode(String(decoding: output, as: UTF8.self))
    }

    /// The `>` that ends a tag: one inside a quoted attribute value does not (`alt="cat<br />dog"`
    /// left `dog">` in a title); the first `>` when the quotes never close.
    private static func tagEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var quote: UInt8?
        for index in start..<bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index
            }
        }
        return bytes[start...].firstIndex(of: UInt8(ascii: ">"))
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
