import CLibXML2

/// Makes a feed's HTML safe to hand to a browser or an app: an allowlist of elements and
/// attributes over libxml2's lenient HTML parser, written out again as well-formed HTML.
///
/// Kept: text, formatting, headings, lists, quotes, code, tables, links, images, audio and video.
/// Dropped with their content: scripts, styles, frames, objects, forms, SVG and MathML. Any other
/// element is dropped but its content kept. Attributes: only those listed per element, never an
/// event handler or `style`; URLs only http(s) (and `mailto:` for links), relative ones resolved
/// against the entry's URL. Links get `rel="noopener noreferrer"`, images `loading="lazy"`.
public enum HTMLSanitizer {
    /// The sanitized form of `html`; relative URLs resolve against `baseURL` when given.
    public static func sanitize(_ html: String, baseURL: String? = nil) -> String {
        guard !html.isEmpty else { return "" }
        let bytes = Array(html.utf8)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                htmlReadMemory($0.baseAddress, Int32(clamping: $0.count), nil, "UTF-8", aggregator_html_options())
            }
        }
        guard let document else { return "" }
        defer { xmlFreeDoc(document) }
        var writer = Writer(baseURL: baseURL.flatMap { URLResolver.isAcceptableBase($0) ? $0 : nil })
        writer.walk(document.pointee.children, depth: 0)
        return writer.output
    }

    /// Elements kept, each with the attributes it may keep (besides `title`, `lang` and `dir`).
    static let allowed: [String: Set<String>] = {
        var allowed: [String: Set<String>] = [:]
        for name in ["abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "br", "caption", "cite",
                     "code", "dd", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1", "h2",
                     "h3", "h4", "h5", "h6", "header", "hr", "i", "kbd", "mark", "p", "picture", "pre", "rp", "rt", "ruby",
                     "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary", "sup", "table",
                     "tbody", "tfoot", "thead", "tr", "tt", "u", "ul", "var", "wbr"] {
            allowed[name] = []
        }
        allowed["a"] = ["href"]
        allowed["img"] = ["src", "srcset", "sizes", "alt", "width", "height"]
        allowed["audio"] = ["src", "controls"]
        allowed["video"] = ["src", "poster", "controls", "width", "height"]
        allowed["source"] = ["src", "srcset", "sizes", "type", "media"]
        allowed["blockquote"] = ["cite"]
        allowed["q"] = ["cite"]
        allowed["del"] = ["cite", "datetime"]
        allowed["ins"] = ["cite", "datetime"]
        allowed["time"] = ["datetime"]
        allowed["ol"] = ["start", "reversed", "type"]
        allowed["li"] = ["value"]
        allowed["td"] = ["colspan", "rowspan", "headers"]
        allowed["th"] = ["colspan", "rowspan", "headers", "scope"]
        allowed["col"] = ["span"]
        allowed["colgroup"] = ["span"]
        return allowed
    }()

    static let everywhere: Set<String> = ["title", "lang", "dir"]
    /// Dropped together with everything inside them.
    static let droppedWithContent: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input", "button",
        "select", "textarea", "option", "svg", "math", "template", "noscript", "head", "title", "meta", "link", "base",
        "noembed", "noframes", "xmp", "plaintext", "portal", "dialog",
    ]
    static let void: Set<String> = ["br", "hr", "img", "wbr", "col", "source"]
    static let urlAttributes: Set<String> = ["href", "src", "cite", "poster"]
    /// Deeper nesting than this keeps only the text (no stack overflow on hostile documents).
    static let maximumDepth = 200

    /// `url` if it may be kept in an attribute (`isLink`: an `href`, where `mailto:` is fine too), resolved
    /// against `baseURL`; nil for `javascript:`, `data:` and every other scheme.
    static func safeURL(_ url: String, isLink: Bool, baseURL: String?) -> String? {
        // Browsers ignore ASCII whitespace and control characters around and inside a scheme.
        let trimmed = String(String.UnicodeScalarView(url.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
        guard !trimmed.isEmpty else { return nil }
        let beforeColon = trimmed.prefix { $0 != ":" && $0 != "/" && $0 != "?" && $0 != "#" }
        if beforeColon.count < trimmed.count, trimmed[beforeColon.endIndex] == ":" {
            let scheme = beforeColon.lowercased()
            guard scheme == "http" || scheme == "https" || (isLink && scheme == "mailto") else { return nil }
            return url.trimmingSpaces
        }
        // Relative (or scheme-relative): resolved when there is a base; left relative otherwise.
        return baseURL.map { URLResolver.resolve(url.trimmingSpaces, against: $0) } ?? url.trimmingSpaces
    }

    static func safeSourceSet(_ value: String, baseURL: String?) -> String? {
        var candidates: [String] = []
        for candidate in value.split(separator: ",") {
            let parts = candidate.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard let first = parts.first, let url = safeURL(String(first), isLink: false, baseURL: baseURL) else { return nil }
            candidates.append(([url] + parts.dropFirst().map(String.init)).joined(separator: " "))
        }
        return candidates.isEmpty ? nil : candidates.joined(separator: ", ")
    }
}

/// Walks the parsed document and writes what the allowlist keeps.
private struct Writer {
    let baseURL: String?
    var output = ""

    mutating func walk(_ first: xmlNodePtr?, depth: Int) {
        var node = first
        while let current = node {
            visit(current, depth: depth)
            node = current.pointee.next
        }
    }

    private mutating func visit(_ node: xmlNodePtr, depth: Int) {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            if let content = node.pointee.content { output += Self.escaped(String(cString: content), quotes: false) }
            return
        case XML_ELEMENT_NODE:
            break
        default:
            return  // comments, processing instructions, doctypes
        }
        let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
        guard !HTMLSanitizer.droppedWithContent.contains(name) else { return }
        guard depth < HTMLSanitizer.maximumDepth, let attributes = HTMLSanitizer.allowed[name] else {
            walk(node.pointee.children, depth: depth + 1)  // html, body, font, center, unknown: content only
            return
        }
        output += "<" + name
        var attribute = node.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            guard let rawName = current.pointee.name else { continue }
            let key = String(cString: rawName).lowercased()
            guard attributes.contains(key) || HTMLSanitizer.everywhere.contains(key) else { continue }
            guard var value = Self.value(of: current) else { continue }
            if HTMLSanitizer.urlAttributes.contains(key) {
                guard let url = HTMLSanitizer.safeURL(value, isLink: key == "href", baseURL: baseURL) else { continue }
                value = url
            } else if key == "srcset" {
                guard let set = HTMLSanitizer.safeSourceSet(value, baseURL: baseURL) else { continue }
                value = set
            }
            output += " \(key)=\"\(Self.escaped(value, quotes: true))\""
        }
        if name == "a" { output += " rel=\"noopener noreferrer\" referrerpolicy=\"no-referrer\"" }
        if name == "img" { output += " loading=\"lazy\" referrerpolicy=\"no-referrer\"" }
        output += ">"
        guard !HTMLSanitizer.void.contains(name) else { return }
        walk(node.pointee.children, depth: depth + 1)
        output += "</\(name)>"
    }

    private static func value(of attribute: xmlAttrPtr) -> String? {
        guard let text = xmlNodeGetContent(UnsafeMutableRawPointer(attribute).assumingMemoryBound(to: xmlNode.self)) else {
            return ""
        }
        defer { aggregator_xml_free(text) }
        return String(cString: text)
    }

    static func escaped(_ text: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "\u{0}": continue
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

private extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
