import CLibXML2
import FoundationEssentials

/// The readable structure of an article's HTML, for a text view: headings, paragraphs, list items,
/// quotes, code and rules, in order, each with its inline text, and the links as footnotes.
public struct ArticleText: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case heading(level: Int)
        case paragraph
        /// `marker` is "•" or "3.".
        case listItem(marker: String)
        /// Preformatted text, kept as written (in `Block.code`).
        case code
        case rule
    }

    public enum Inline: Sendable, Equatable {
        case text(String)
        case strong(String)
        case code(String)
        /// Link text and the footnote number of its target (1-based, into `links`).
        case link(String, footnote: Int)
        case lineBreak
    }

    public struct Block: Sendable, Equatable {
        public var kind: Kind
        public var inlines: [Inline] = []
        /// For `code`: the text, line breaks kept.
        public var code = ""
        /// How many lists and quotes it is inside.
        public var listDepth = 0
        public var quoteDepth = 0
    }

    public private(set) var blocks: [Block] = []
    /// Link and image targets, absolute when a base URL was given; footnote n is `links[n - 1]`.
    public private(set) var links: [String] = []

    /// Reads `html` with libxml2's lenient HTML parser; relative links resolve against `baseURL`.
    public init(html: String, baseURL: String? = nil) {
        let bytes = Array(html.utf8)
        guard !bytes.isEmpty else { return }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                htmlReadMemory($0.baseAddress, Int32($0.count), nil, "UTF-8", aggregator_html_options())
            }
        }
        guard let document else { return }
        defer { xmlFreeDoc(document) }
        var reader = Reader(baseURL: baseURL)
        reader.walk(document.pointee.children, depth: 0)
        reader.flush()
        blocks = reader.blocks
        links = reader.links
    }
}

/// Walks the parsed document, keeping the block being filled and where it is (lists, quotes).
private struct Reader {
    let baseURL: String?
    var blocks: [ArticleText.Block] = []
    var links: [String] = []
    private var pending = ArticleText.Block(kind: .paragraph)
    private var lists: [(ordered: Bool, next: Int)] = []
    private var quoteDepth = 0

    init(baseURL: String?) {
        self.baseURL = baseURL
    }

    private static let skipped: Set<String> = ["script", "style", "noscript", "template", "iframe", "object", "head",
                                               "svg", "math", "button", "form", "select", "textarea"]
    private static let blockElements: Set<String> = [
        "p", "div", "section", "article", "header", "footer", "figure", "figcaption", "main", "aside", "nav",
        "address", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "center", "details", "summary",
        "caption",
    ]
    /// Deeper nesting than this is read as plain text (no stack overflow on hostile documents).
    private static let maximumDepth = 200

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
            if let content = node.pointee.content { pending.inlines.append(.text(String(cString: content))) }
            return
        case XML_ELEMENT_NODE:
            break
        default:
            return
        }
        let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
        let children = node.pointee.children
        guard depth < Self.maximumDepth else {
            pending.inlines.append(.text(Self.text(of: children)))
            return
        }
        switch name {
        case _ where Self.skipped.contains(name):
            return
        case "h1", "h2", "h3", "h4", "h5", "h6":
            startBlock(.heading(level: Int(String(name.dropFirst())) ?? 1))
            walk(children, depth: depth + 1)
            flush()
        case "br":
            pending.inlines.append(.lineBreak)
        case "hr":
            flush()
            blocks.append(ArticleText.Block(kind: .rule, quoteDepth: quoteDepth))
        case "ul", "ol":
            flush()
            let start = name == "ol" ? Int(Self.attribute("start", of: node) ?? "") ?? 1 : 1
            lists.append((name == "ol", start))
            walk(children, depth: depth + 1)
            lists.removeLast()
            flush()
        case "li":
            startBlock(.listItem(marker: nextMarker()))
            walk(children, depth: depth + 1)
            flush()
        case "blockquote":
            flush()
            quoteDepth += 1
            walk(children, depth: depth + 1)
            flush()
            quoteDepth -= 1
        case "pre":
            flush()
            var block = ArticleText.Block(kind: .code, listDepth: lists.count, quoteDepth: quoteDepth)
            block.code = Self.text(of: children)
            blocks.append(block)
        case "code", "kbd", "samp", "tt":
            pending.inlines.append(.code(Self.text(of: children)))
        case "strong", "b":
            pending.inlines.append(.strong(Self.text(of: children)))
        case "a":
            pending.inlines.append(link(node))
        case "img":
            pending.inlines.append(image(node))
        case "td", "th":
            if pending.inlines.contains(where: { $0 != .text("") }) { pending.inlines.append(.text(" | ")) }
            walk(children, depth: depth + 1)
        case _ where Self.blockElements.contains(name):
            flush()
            walk(children, depth: depth + 1)
            flush()
        default:
            walk(children, depth: depth + 1)
        }
    }

    /// The marker of the next item of the innermost list: a bullet, or its number.
    private mutating func nextMarker() -> String {
        guard let list = lists.last, list.ordered else { return "•" }
        lists[lists.count - 1].next += 1
        return "\(list.next)."
    }

    /// A link's text, with its target as a footnote unless the text shows the address already.
    private mutating func link(_ node: xmlNodePtr) -> ArticleText.Inline {
        let text = Self.text(of: node.pointee.children)
        guard let target = Self.attribute("href", of: node).flatMap(resolved) else { return .text(text) }
        let shown = text.trimmingWhitespaceAndNewlines
        if shown.isEmpty || shown == target || "http://" + shown == target || "https://" + shown == target {
            return .text(shown.isEmpty ? target : text)
        }
        return .link(text, footnote: footnote(target))
    }

    /// An image as its alternative text, with its source as a footnote.
    private mutating func image(_ node: xmlNodePtr) -> ArticleText.Inline {
        let alt = Self.attribute("alt", of: node)?.trimmingWhitespaceAndNewlines ?? ""
        let label = alt.isEmpty ? "[image]" : "[image: \(alt)]"
        guard let source = Self.attribute("src", of: node).flatMap(resolved) else { return .text(label) }
        return .link(label, footnote: footnote(source))
    }

    /// Ends the block being filled and starts one of `kind`.
    private mutating func startBlock(_ kind: ArticleText.Kind) {
        flush()
        pending.kind = kind
    }

    /// Emits the block being filled when it holds any text, and starts a paragraph.
    mutating func flush() {
        let inlines = Self.collapsed(pending.inlines)
        if !inlines.isEmpty {
            blocks.append(ArticleText.Block(kind: pending.kind, inlines: inlines,
                                            listDepth: lists.count, quoteDepth: quoteDepth))
        }
        pending = ArticleText.Block(kind: .paragraph)
    }

    private mutating func footnote(_ target: String) -> Int {
        if let known = links.firstIndex(of: target) { return known + 1 }
        links.append(target)
        return links.count
    }

    private func resolved(_ reference: String) -> String? {
        let trimmed = reference.trimmingWhitespaceAndNewlines
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !trimmed.lowercased().hasPrefix("javascript:") else { return nil }
        return URLResolver.resolve(trimmed, against: baseURL)
    }

    /// HTML whitespace rules: runs become one space, a block neither starts nor ends with one, and a
    /// space next to a line break goes.
    private static func collapsed(_ inlines: [ArticleText.Inline]) -> [ArticleText.Inline] {
        var result: [ArticleText.Inline] = []
        var lastEndedWithSpace = true
        for inline in inlines {
            switch inline {
            case .text(let text):
                var collapsed = collapsedKeepingEdges(text)
                if lastEndedWithSpace, collapsed.hasPrefix(" ") { collapsed.removeFirst() }
                guard !collapsed.isEmpty else { continue }
                lastEndedWithSpace = collapsed.hasSuffix(" ")
                if case .text(let previous) = result.last {
                    result[result.count - 1] = .text(previous + collapsed)
                } else {
                    result.append(.text(collapsed))
                }
            case .strong(let text), .code(let text), .link(let text, _):
                let trimmed = FastText.collapsed(text)
                guard !trimmed.isEmpty else { continue }
                // Spaces at its edges belong between it and its neighbours.
                if text.first?.isWhitespace == true, !lastEndedWithSpace { result.append(.text(" ")) }
                switch inline {
                case .strong: result.append(.strong(trimmed))
                case .code: result.append(.code(trimmed))
                case .link(_, let footnote): result.append(.link(trimmed, footnote: footnote))
                default: break
                }
                lastEndedWithSpace = text.last?.isWhitespace == true
                if lastEndedWithSpace { result.append(.text(" ")) }
            case .lineBreak:
                if case .text(let previous) = result.last, previous.hasSuffix(" ") {
                    result[result.count - 1] = .text(String(previous.dropLast()))
                }
                if !result.isEmpty { result.append(.lineBreak) }
                lastEndedWithSpace = true
            }
        }
        while let last = result.last {
            if last == .lineBreak {
                result.removeLast()
            } else if case .text(let text) = last, text.hasSuffix(" ") {
                let trimmed = String(text.dropLast())
                if trimmed.isEmpty { result.removeLast() } else { result[result.count - 1] = .text(trimmed) }
            } else {
                break
            }
        }
        return result
    }

    /// Whitespace runs as one space, a space kept at either edge (the neighbouring inline needs it).
    private static func collapsedKeepingEdges(_ text: String) -> String {
        let inner = FastText.collapsed(text)
        guard !inner.isEmpty else { return text.isEmpty ? "" : " " }
        return (text.first?.isWhitespace == true ? " " : "") + inner + (text.last?.isWhitespace == true ? " " : "")
    }

    /// All text below `first` and its siblings, as written.
    static func text(of first: xmlNodePtr?) -> String {
        var text = ""
        var stack: [xmlNodePtr] = []
        var current = first
        while true {
            while let node = current {
                switch node.pointee.type {
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = node.pointee.content { text += String(cString: content) }
                case XML_ELEMENT_NODE:
                    let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
                    if name == "br" { text += "\n" }
                    if let children = node.pointee.children, !skipped.contains(name) {
                        if let next = node.pointee.next { stack.append(next) }
                        current = children
                        continue
                    }
                default:
                    break
                }
                current = node.pointee.next
            }
            guard let next = stack.popLast() else { return text }
            current = next
        }
    }

    static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { aggregator_xml_free(value) }
        return String(cString: value)
    }
}
