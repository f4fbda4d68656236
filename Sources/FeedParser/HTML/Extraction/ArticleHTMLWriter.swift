import CLibXML2

/// Writes the chosen elements out as HTML: the elements kept, the attributes that carry content, URLs
/// made absolute against the page (lazy-loaded images given their real source). `HTMLSanitizer`'s
/// allowlist has the last word on what may stay (the elements go to it as they are walked, not written
/// and parsed again); this only decides what belongs to the article.
struct ArticleHTMLWriter {
    private let tree: PageTree
    private let baseURL: String
    private let output: HTMLSanitizingBuilder
    /// Names written and still open, to know whether a table cell or a list item has its table or list.
    private var open: [String] = []

    init(tree: PageTree, baseURL: String) {
        self.tree = tree
        self.baseURL = baseURL
        output = HTMLSanitizingBuilder(baseURL: baseURL)
    }

    /// The article written, sanitized.
    func finish() -> String { output.finish() }

    private static let tableParts: Set<String> = [
        "tr", "td", "th", "tbody", "thead", "tfoot", "caption", "colgroup", "col",
    ]
    /// The attributes worth keeping, per element; the sanitizer keeps fewer still.
    private static let attributes: [String: [String]] = [
        "a": ["href", "title"], "img": ["alt", "title", "width", "height", "sizes"],
        "source": ["type", "media", "sizes"], "video": ["src", "poster", "controls", "width", "height"],
        "audio": ["src", "controls"], "td": ["colspan", "rowspan"], "th": ["colspan", "rowspan", "scope"],
        "ol": ["start", "reversed", "type"], "li": ["value"], "blockquote": ["cite"], "q": ["cite"],
        "time": ["datetime"], "abbr": ["title"], "del": ["datetime"], "ins": ["datetime"],
    ]

    /// Appends the element at `index` and what is kept below it.
    mutating func write(_ index: Int) {
        let root = tree.elements[index].node
        guard let rootName = start(root, index: index) else { return }
        var stack = [(node: root, name: rootName)]
        var node = HTMLSanitizer.void.contains(rootName) ? nil : root.pointee.children
        // Iterative, as the tree was read.
        while true {
            if let current = node {
                switch current.pointee.type {
                case XML_ELEMENT_NODE:
                    if let kept = tree.index(of: current), !tree.elements[kept].isRemoved,
                       let name = start(current, index: kept) {
                        if !HTMLSanitizer.void.contains(name), let child = current.pointee.children {
                            stack.append((current, name))
                            node = child
                            continue
                        }
                        end(name)
                    }
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = current.pointee.content {
                        output.text(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
                    }
                default:
                    break
                }
                node = current.pointee.next
                continue
            }
            let closed = stack.removeLast()
            end(closed.name)
            guard !stack.isEmpty else { return }
            node = closed.node.pointee.next
        }
    }

    /// Writes the start tag and returns the name written ("" for content without a tag), or nil to leave
    /// the element out (an image without a source, a tracking pixel).
    private mutating func start(_ node: xmlNodePtr, index: Int) -> String? {
        var name = tree.elements[index].tag
        guard !name.isEmpty, name.utf8.allSatisfy({ Self.isNameByte($0) }) else {
            open.append("")
            return ""
        }
        var attributes: [(String, String)] = Self.attributes[name, default: []].compactMap { key in
            PageTree.attribute(key, of: node).map { (key, $0) }
        }
        switch name {
        case "img":
            guard Self.isVisible(node), let source = imageSource(node) else { return nil }
            attributes.append(("src", source))
            if let set = sourceSet(node) { attributes.append(("srcset", set)) }
        case "source":
            if let source = PageTree.attribute("src", of: node).map(resolved) { attributes.append(("src", source)) }
            if let set = sourceSet(node) { attributes.append(("srcset", set)) }
        default:
            name = renamed(name)
        }
        open.append(name)
        output.start(name, attributes: attributes.map { key, value in
            (key, HTMLSanitizer.urlAttributes.contains(key) ? resolved(value) : value)
        })
        return name
    }

    private mutating func end(_ name: String) {
        open.removeLast()
        if !name.isEmpty { output.end() }
    }

    /// A table part outside a written table, a list item outside a list, the body or a form (the
    /// sanitizer drops forms with their content) becomes a `div`.
    private func renamed(_ name: String) -> String {
        if Self.tableParts.contains(name), !open.contains("table") { return "div" }
        if name == "li", !open.contains(where: { $0 == "ul" || $0 == "ol" }) { return "div" }
        if name == "dd" || name == "dt", !open.contains("dl") { return "div" }
        return Self.renamedToDivision.contains(name) ? "div" : name
    }
    private static let renamedToDivision: Set<String> = ["body", "html", "form", "main", "center"]

    /// The image's real source: lazy-loading scripts keep it in `data-src` (and friends) and put a
    /// placeholder in `src`.
    private func imageSource(_ node: xmlNodePtr) -> String? {
        let source = PageTree.attribute("src", of: node)?.trimmingWhitespace ?? ""
        let isPlaceholder = source.isEmpty || source.lowercased().hasPrefix("data:")
            || ["blank.", "placeholder", "spacer.", "lazy."].contains { source.lowercased().contains($0) }
        if isPlaceholder {
            for key in ["data-src", "data-lazy-src", "data-original", "data-url"] {
                if let lazy = PageTree.attribute(key, of: node)?.trimmingWhitespace, !lazy.isEmpty {
                    return resolved(lazy)
                }
            }
        }
        return source.isEmpty ? nil : resolved(source)
    }

    private func sourceSet(_ node: xmlNodePtr) -> String? {
        guard let value = PageTree.attribute("srcset", of: node) ?? PageTree.attribute("data-srcset", of: node) else {
            return nil
        }
        let candidates = value.split(separator: ",").map { candidate -> String in
            let parts = candidate.split(separator: " ", omittingEmptySubsequences: true)
            guard let url = parts.first else { return "" }
            return ([resolved(String(url))] + parts.dropFirst().map(String.init)).joined(separator: " ")
        }.filter { !$0.isEmpty }
        return candidates.isEmpty ? nil : candidates.joined(separator: ", ")
    }

    /// Tracking pixels are 1×1 (or 0×0) images.
    private static func isVisible(_ node: xmlNodePtr) -> Bool {
        for key in ["width", "height"] {
            if let value = PageTree.attribute(key, of: node).flatMap({ Int($0.trimmingWhitespace) }), value <= 1 {
                return false
            }
        }
        return true
    }

    private func resolved(_ url: String) -> String {
        URLResolver.resolve(url, against: baseURL)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "-")
    }
}
