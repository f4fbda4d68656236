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
    ///
    /// Sanitizing the result again changes nothing. When libxml2 had to repair the input (mis-nested
    /// or broken tags), its repair of our output could differ from its first (found by fuzzing:
    /// nested links, text after a broken attribute), so such input is sanitized again until stable.
    /// So is input where an element left out had kept elements inside it: without it, the nesting
    /// can be one HTML does not allow (found by fuzzing: `<p>…<embed><p>` became `<p>…<p>`, which
    /// libxml2 reads as two paragraphs). Well-formed input, nearly every feed's, takes one pass, HTML5's
    /// elements (unknown to libxml2, an error it repairs nothing for) included.
    public static func sanitize(_ html: String, baseURL: String? = nil) -> String {
        var (output, repaired) = sanitizeOnce(html, baseURL: baseURL)
        var passes = 1
        while repaired, passes < 4 {
            let again = sanitizeOnce(output, baseURL: baseURL)
            if again.output == output { break }
            (output, repaired) = again
            passes += 1
        }
        return output
    }

    /// One pass, and whether libxml2 may have repaired the input (any error but an unknown tag).
    private static func sanitizeOnce(_ html: String, baseURL: String?) -> (output: String, repaired: Bool) {
        guard !html.isEmpty else { return ("", false) }
        var repaired = false
        // libxml2's SAX interface: no document tree is built (a tree made sanitizing 2.5x slower, measured).
        let writer = Writer(baseURL: baseURL.flatMap { URLResolver.isAcceptableBase($0) ? $0 : nil })
        var handler = htmlSAXHandler()
        // The magic number makes libxml2 report its errors to `serror`, where a repair is told from a
        // tag it does not know (HTML5's `article`, `figure`, …: read as they are, nothing repaired).
        handler.initialized = aggregator_sax2_magic()
        handler.serror = { context, error in
            guard let context, let error, error.pointee.code != Int32(XML_HTML_UNKNOWN_TAG.rawValue) else { return }
            Unmanaged<Writer>.fromOpaque(context).takeUnretainedValue().inputRepaired = true
        }
        handler.startElement = { context, name, attributes in
            Unmanaged<Writer>.fromOpaque(context!).takeUnretainedValue().start(name, attributes)
        }
        handler.endElement = { context, _ in Unmanaged<Writer>.fromOpaque(context!).takeUnretainedValue().end() }
        handler.characters = { context, text, length in
            guard let text, length > 0 else { return }
            Unmanaged<Writer>.fromOpaque(context!).takeUnretainedValue().text(UnsafeBufferPointer(start: text, count: Int(length)))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        let bytes = Array(html.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                withUnsafeMutablePointer(to: &handler) { sax in
                    let context = Unmanaged.passUnretained(writer).toOpaque()
                    guard let parser = htmlCreatePushParserCtxt(sax, context, nil, 0, nil, XML_CHAR_ENCODING_UTF8) else { return }
                    defer { htmlFreeParserCtxt(parser) }
                    _ = htmlCtxtUseOptions(parser, aggregator_html_options())
                    _ = htmlParseChunk(parser, chars.baseAddress, Int32(clamping: chars.count), 1)
                    repaired = writer.inputRepaired || writer.unwrappedAroundElements
                }
            }
        }
        writer.endDocument()
        return (String(decoding: writer.output, as: UTF8.self), repaired)
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
    /// Dropped together with everything inside them. Not `embed`: it is void in HTML, but libxml2's
    /// parser does not know it and nests what follows inside it, which would go too. Like any
    /// element not allowed, it is dropped and only that content kept.
    static let droppedWithContent: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "applet", "form", "input", "button",
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

    private static func isSourceDescriptor(_ text: Substring) -> Bool {
        guard let unit = text.last, unit == "w" || unit == "x", text.count <= 12 else { return false }
        let number = text.dropLast()
        return !number.isEmpty && Double(number) != nil && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }

    static func safeSourceSet(_ value: String, baseURL: String?) -> String? {
        var candidates: [String] = []
        for candidate in value.split(separator: ",") {
            let parts = candidate.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard let first = parts.first, let url = safeURL(String(first), isLink: false, baseURL: baseURL) else { return nil }
            // A descriptor is a width or a density ("640w", "1.5x"); anything else is junk a
            // browser would drop the candidate for (found by fuzzing: text kept as a descriptor).
            let descriptors = parts.dropFirst()
            guard descriptors.count <= 1, descriptors.allSatisfy(isSourceDescriptor) else { return nil }
            candidates.append(([url] + descriptors.map(String.init)).joined(separator: " "))
        }
        return candidates.isEmpty ? nil : candidates.joined(separator: ", ")
    }
}

/// `HTMLSanitizer`'s allowlist over a document given as elements and text rather than as HTML to parse:
/// a walk of a tree libxml2 built already (the article extractor's), written out without being
/// written and parsed again. Every `start` needs its `end`.
struct HTMLSanitizingBuilder {
    private let baseURL: String?
    private let writer: Writer

    /// Relative URLs resolve against `baseURL` when given.
    init(baseURL: String?) {
        self.baseURL = baseURL
        writer = Writer(baseURL: baseURL.flatMap { URLResolver.isAcceptableBase($0) ? $0 : nil })
    }

    /// Opens an element named `name` (lower case) with its attributes (names in lower case).
    func start(_ name: String, attributes: [(String, String)]) {
        writer.start(name) { each in
            for (key, value) in attributes { each(key, value) }
        }
    }

    func end() {
        writer.end()
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        writer.text(bytes)
    }

    /// The sanitized document. When an element left out had kept elements inside it, their nesting may
    /// be one HTML does not allow: the output is then sanitized again as text, as `sanitize` does.
    func finish() -> String {
        writer.endDocument()
        let output = String(decoding: writer.output, as: UTF8.self)
        return writer.unwrappedAroundElements ? HTMLSanitizer.sanitize(output, baseURL: baseURL) : output
    }
}

/// Writes what the allowlist keeps as libxml2 reports elements and text (every start has its end,
/// implied ones included).
private final class Writer {
    let baseURL: String?
    /// UTF-8 bytes: appending to a byte array is several times cheaper than to a String.
    var output: [UInt8] = []
    /// Names of the open elements, "" for one not written (unknown, or too deep).
    private var open: [String] = []
    /// How many open elements are inside one dropped with its content (0: writing).
    private var skipping = 0
    /// Whether an element was written directly inside one left out (its content kept) that was itself
    /// inside a written element: the output nests them in a way the input did not.
    private(set) var unwrappedAroundElements = false
    /// libxml2 reported an error other than an unknown tag: it may have repaired the input.
    var inputRepaired = false
    /// Text libxml2 reports before any element (`<<<` at the very start) goes in a paragraph of its
    /// own, as its tree would put it: sanitizing the output again then gives the same output.
    private var strayParagraph = false

    init(baseURL: String?) {
        self.baseURL = baseURL
    }

    /// An element as libxml2's SAX parser reports it: its name and a list of names and values.
    func start(_ rawName: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        start(rawName.map { String(cString: $0).lowercased() } ?? "") { each in
            var index = 0
            while let attributes, let rawKey = attributes[index] {
                let value = attributes[index + 1].map { String(cString: $0) } ?? ""
                index += 2
                each(String(cString: rawKey).lowercased(), value)
            }
        }
    }

    /// An element named `name` (lower case), its attributes given one by one (names in lower case).
    func start(_ name: String, attributes: (_ each: (String, String) -> Void) -> Void) {
        finish()
        if skipping > 0 || HTMLSanitizer.droppedWithContent.contains(name) {
            skipping += 1
            return
        }
        guard open.count < HTMLSanitizer.maximumDepth, let allowed = HTMLSanitizer.allowed[name] else {
            open.append("")  // html, body, font, center, unknown: content only
            return
        }
        if open.last?.isEmpty == true, open.contains(where: { !$0.isEmpty }) { unwrappedAroundElements = true }
        open.append(name)
        append("<" + name)
        attributes { key, value in
            guard allowed.contains(key) || HTMLSanitizer.everywhere.contains(key) else { return }
            var kept = value
            if HTMLSanitizer.urlAttributes.contains(key) {
                guard let url = HTMLSanitizer.safeURL(value, isLink: key == "href", baseURL: baseURL) else { return }
                kept = url
            } else if key == "srcset" {
                guard let set = HTMLSanitizer.safeSourceSet(value, baseURL: baseURL) else { return }
                kept = set
            }
            append(" " + key + "=\"")
            kept.withUTF8 { escape($0, quotes: true) }
            append("\"")
        }
        if name == "a" { append(" rel=\"noopener noreferrer\" referrerpolicy=\"no-referrer\"") }
        if name == "img" { append(" loading=\"lazy\" referrerpolicy=\"no-referrer\"") }
        append(">")
    }

    /// Closes every element still open: libxml2 stops reporting at some errors without ending the
    /// elements it started (found by fuzzing: a paragraph left open, closed by the second pass).
    func endDocument() {
        finish()
        while let name = open.popLast() {
            if !name.isEmpty, !HTMLSanitizer.void.contains(name) { append("</" + name + ">") }
        }
    }

    /// Closes the paragraph of stray text, if one is open.
    func finish() {
        guard strayParagraph else { return }
        strayParagraph = false
        append("</p>")
    }

    private func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    func end() {
        if skipping > 0 {
            skipping -= 1
            return
        }
        guard let name = open.popLast() else { return }
        if !name.isEmpty, !HTMLSanitizer.void.contains(name) { append("</" + name + ">") }
    }

    func text(_ characters: UnsafeBufferPointer<UInt8>) {
        guard skipping == 0, !characters.isEmpty else { return }
        // Inside only elements not written (html, body, unknown ones) is the top level too (found
        // by fuzzing: text after `<html>` was written bare, and came back in a paragraph).
        if !strayParagraph, open.allSatisfy(\.isEmpty) {
            append("<p>")
            strayParagraph = true
        }
        escape(characters, quotes: false)
    }

    /// Appends `bytes` (UTF-8) with `&`, `<`, `>` (and `"` in attributes) as references, control
    /// characters but tab, line feed and carriage return dropped.
    private func escape(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool) {
        var start = 0
        for (index, byte) in bytes.enumerated() {
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\"") where quotes: replacement = "&quot;"
            // Control characters HTML does not allow: libxml2 drops them when it reads the output
            // again, so they would make sanitizing twice differ (found by fuzzing).
            case 0...8, 11, 12, 14...31, 127: replacement = ""
            default: continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            replacement.withUTF8Buffer { output.append(contentsOf: $0) }
            start = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
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
