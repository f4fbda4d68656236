/// Titles are plain text; these decide when a title is really HTML and reduce it to text (SCHEMA.md §5).
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
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else { return false }
        var sawMarker = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "<" {
                let after = text.index(after: index)
                guard let close = text[after...].firstIndex(of: ">") else { return sawMarker }
                var tag = text[after..<close]
                if tag.hasPrefix("!--") || tag.hasPrefix("!") || tag.hasPrefix("?") {
                    index = text.index(after: close)
                    continue
                }
                if tag.hasPrefix("/") {
                    tag = tag.dropFirst()
                    sawMarker = true
                }
                let name = tag.prefix { $0.isLetter || $0.isNumber || $0 == "-" }.lowercased()
                guard allowedElements.contains(name) else { return false }
                index = text.index(after: close)
            } else if character == "&" {
                let after = text.index(after: index)
                let body = text[after...].prefix { $0 != ";" && !$0.isWhitespace && $0 != "&" && $0 != "<" }
                let end = body.endIndex
                if end < text.endIndex, text[end] == ";", !body.isEmpty {
                    if body.hasPrefix("#") {
                        sawMarker = true
                    } else if HTMLEntities.character(named: String(body)) != nil {
                        sawMarker = true
                    } else {
                        return false
                    }
                    index = text.index(after: end)
                } else {
                    index = after
                }
            } else {
                index = text.index(after: index)
            }
        }
        return sawMarker
    }

    /// The text of an HTML title: tags and comments removed (no spaces inserted), references decoded.
    static func strip(_ html: String) -> String {
        var result = ""
        var index = html.startIndex
        while index < html.endIndex {
            if html[index] == "<" {
                let after = html.index(after: index)
                if html[after...].hasPrefix("!--"), let end = html[after...].range(of: "-->") {
                    index = end.upperBound
                    continue
                }
                let next = html[after...].first
                if let next, next.isLetter || next == "/" || next == "!" || next == "?",
                   let close = html[after...].firstIndex(of: ">") {
                    index = html.index(after: close)
                    continue
                }
            }
            result.append(html[index])
            index = html.index(after: index)
        }
        return HTMLEntities.decode(result)
    }
}
