import CLibXML2

/// One element of the page as the extractor sees it; its subtree is `tree.elements[index..<end]`.
struct PageElement {
    let node: xmlNodePtr
    let tag: String
    let parent: Int
    var end: Int
    let hints: ClassHints
    /// Inside an `article`, `main` or `[role=main]`: there a `header` or `footer` is the article's own.
    let isInsideArticle: Bool
    /// `<main>` or `[role=main]`.
    let isMainLandmark: Bool
    var isRemoved = false
    /// The whole subtree.
    var total = TextStats()
    /// Its own text and inline children's (`a`, `em`, `span` without blocks): the text that would be a
    /// paragraph of its own (Readability wraps it in a `<p>`).
    var phrasing = TextStats()
    /// A child is a block (or inline with a block inside).
    var hasBlockChild = false
    var hasBlockDescendant = false
    /// Set once the element takes part in scoring.
    var score: Double?
}

/// The page's elements in document order (subtrees contiguous), with their text counted bottom-up once,
/// so that every later question about a subtree costs O(1), whatever the nesting.
struct PageTree {
    var elements: [PageElement] = []
    /// Where each element kept is, for the writer.
    private(set) var indexOfNode: [xmlNodePtr: Int] = [:]
    let keepsForms: Bool

    /// Reads the elements below (and including) `root`, leaving out what can never be content.
    init(root: xmlNodePtr, keepsForms: Bool) {
        self.keepsForms = keepsForms
        collect(from: root)
    }

    /// Text and element nodes read at most (a 5 MB page has some 100,000).
    static let maximumNodes = 200_000
    /// libxml2 itself stops nesting at 256; deeper input is not read further.
    static let maximumDepth = 256

    static let inlineTags: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins",
        "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt",
        "u", "var", "wbr", "picture", "source",
    ]
    /// Never content: dropped with what is inside.
    private static let droppedTags: Set<String> = [
        "script", "style", "noscript", "iframe", "frame", "frameset", "nav", "aside", "button", "input", "select",
        "textarea", "option", "svg", "math", "template", "object", "embed", "canvas", "dialog", "head", "link",
        "meta", "base", "title", "applet", "map", "area",
    ]
    private static let droppedRoles: Set<String> = [
        "navigation", "menu", "menubar", "complementary", "dialog", "alertdialog", "banner", "contentinfo", "search",
    ]

    private mutating func collect(from root: xmlNodePtr) {
        guard let rootIndex = record(root, parent: -1) else { return }
        var open = [rootIndex]
        var node = root.pointee.children
        var visits = 0
        // Iterative walk: hostile nesting cannot overflow the stack.
        while true {
            if let current = node {
                visits += 1
                guard visits <= Self.maximumNodes else {
                    while let index = open.popLast() { close(index) }
                    return
                }
                switch current.pointee.type {
                case XML_ELEMENT_NODE:
                    if let index = record(current, parent: open[open.count - 1]) {
                        if let child = current.pointee.children, open.count < Self.maximumDepth {
                            open.append(index)
                            node = child
                            continue
                        }
                        close(index)
                    }
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = current.pointee.content { addText(content, to: open[open.count - 1]) }
                default:
                    break
                }
                node = current.pointee.next
                continue
            }
            let closed = open.removeLast()
            close(closed)
            guard !open.isEmpty else { return }
            node = elements[closed].node.pointee.next
        }
    }

    /// Adds `node` as an element, or returns nil when it and its content are left out.
    private mutating func record(_ node: xmlNodePtr, parent: Int) -> Int? {
        let tag = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
        guard !Self.droppedTags.contains(tag), keepsForms || tag != "form" else { return nil }
        let hasAttributes = node.pointee.properties != nil
        let role = hasAttributes ? Self.attribute("role", of: node)?.lowercased() : nil
        let hints = hasAttributes
            ? ClassHints(className: Self.attribute("class", of: node), id: Self.attribute("id", of: node))
            : ClassHints(className: nil, id: nil)
        let parentIsArticle = parent >= 0 && elements[parent].isInsideArticle
        if let role, Self.droppedRoles.contains(role) { return nil }
        if hasAttributes, Self.isHidden(node) { return nil }
        // The site's header and footer; an article's own (or one named `entry-header`) stays.
        if tag == "header" || tag == "footer", !parentIsArticle, !hints.isPositive { return nil }
        let index = elements.count
        let isMainLandmark = tag == "main" || role == "main"
        elements.append(PageElement(node: node, tag: tag, parent: parent, end: index + 1, hints: hints,
                                    isInsideArticle: parentIsArticle || isMainLandmark || tag == "article"
                                        || role == "article",
                                    isMainLandmark: isMainLandmark))
        indexOfNode[node] = index
        return index
    }

    private mutating func addText(_ text: UnsafePointer<xmlChar>, to index: Int) {
        var stats = TextStats()
        stats.addText(text)
        elements[index].total.add(stats)
        elements[index].phrasing.add(stats)
    }

    /// Completes the element's counts (its children are closed already) and hands them to its parent.
    private mutating func close(_ index: Int) {
        var element = elements[index]
        element.end = elements.count
        Self.countTag(element.tag, into: &element.total)
        Self.applyTag(element.tag, to: &element.total)
        elements[index] = element
        guard element.parent >= 0 else { return }
        var parent = elements[element.parent]
        parent.total.add(element.total)
        if Self.inlineTags.contains(element.tag), !element.hasBlockDescendant {
            parent.phrasing.add(element.total)
        } else {
            parent.hasBlockChild = true
            parent.hasBlockDescendant = true
        }
        elements[element.parent] = parent
    }

    /// The elements a tag counts as (a paragraph, an image).
    private static func countTag(_ tag: String, into stats: inout TextStats) {
        switch tag {
        case "p": stats.paragraphs += 1
        case "img", "video", "audio": stats.media += 1
        case "li": stats.listItems += 1
        case "pre": stats.codeBlocks += 1
        case "th", "thead", "caption": stats.tableHeaders += 1
        default: break
        }
    }

    /// What a tag makes of the text below it: all of a link's text is link text, and so on.
    private static func applyTag(_ tag: String, to stats: inout TextStats) {
        switch tag {
        case "a": stats.linkCharacters = stats.characters
        case "ul", "ol", "dl": stats.listCharacters = stats.characters
        case "h1", "h2", "h3", "h4", "h5", "h6": stats.headingCharacters = stats.characters
        default: break
        }
    }

    /// The elements from `start` up to `end` that are still kept, in document order: a removed
    /// element's subtree is skipped whole.
    func keptElements(from start: Int, to end: Int) -> [Int] {
        var kept: [Int] = []
        var index = start
        while index < end {
            if elements[index].isRemoved {
                index = elements[index].end
            } else {
                kept.append(index)
                index += 1
            }
        }
        return kept
    }

    /// Leaves out the element at `index` with its subtree, and takes its counts off its ancestors.
    mutating func remove(_ index: Int) {
        guard !elements[index].isRemoved else { return }
        elements[index].isRemoved = true
        var removed = elements[index].total
        var ancestor = elements[index].parent
        if ancestor >= 0, Self.inlineTags.contains(elements[index].tag), !elements[index].hasBlockDescendant {
            elements[ancestor].phrasing.subtract(removed)
        }
        while ancestor >= 0 {
            let before = elements[ancestor].total
            var after = before
            after.subtract(removed)
            Self.applyTag(elements[ancestor].tag, to: &after)
            elements[ancestor].total = after
            // What the next ancestor loses is what this one lost, as its tag saw it.
            removed = before
            removed.subtract(after)
            ancestor = elements[ancestor].parent
        }
    }

    /// The children kept of the element at `index`, in order.
    func children(of index: Int) -> [Int] {
        var children: [Int] = []
        var child = index + 1
        while child < elements[index].end {
            if !elements[child].isRemoved { children.append(child) }
            child = elements[child].end
        }
        return children
    }

    /// Whether `ancestor` holds the element at `index` (O(1): subtrees are contiguous).
    func contains(_ ancestor: Int, _ index: Int) -> Bool {
        ancestor < index && index < elements[ancestor].end
    }

    /// Whether an element named `tag` is among the ancestors of `index` (at most `limit` levels up).
    func hasAncestor(_ tag: String, of index: Int, limit: Int = maximumDepth) -> Bool {
        var ancestor = elements[index].parent
        var steps = 0
        while ancestor >= 0, steps < limit {
            if elements[ancestor].tag == tag { return true }
            ancestor = elements[ancestor].parent
            steps += 1
        }
        return false
    }

    /// The text of the element at `index` as a reader sees it: elements left out skipped, whitespace
    /// runs as one space.
    func text(of index: Int) -> String {
        var bytes: [UInt8] = []
        var open = [elements[index].node]
        var node = elements[index].node.pointee.children
        while true {
            if let current = node {
                if current.pointee.type == XML_TEXT_NODE || current.pointee.type == XML_CDATA_SECTION_NODE,
                   let content = current.pointee.content {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
                } else if current.pointee.type == XML_ELEMENT_NODE, let child = current.pointee.children,
                          let kept = indexOfNode[current], !elements[kept].isRemoved {
                    if !Self.inlineTags.contains(elements[kept].tag) { bytes.append(0x20) }  // blocks apart
                    open.append(current)
                    node = child
                    continue
                }
                node = current.pointee.next
                continue
            }
            let closed = open.removeLast()
            guard !open.isEmpty else { break }
            node = closed.pointee.next
        }
        return FastText.collapsed(String(decoding: bytes, as: UTF8.self))
    }

    /// `hidden`, `aria-hidden="true"` or an inline style that hides it: the reader never sees it.
    private static func isHidden(_ node: xmlNodePtr) -> Bool {
        if attribute("hidden", of: node) != nil || attribute("aria-hidden", of: node)?.lowercased() == "true" {
            return true
        }
        guard let style = attribute("style", of: node)?.lowercased().filter({ !$0.isWhitespace }) else { return false }
        return style.contains("display:none") || style.contains("visibility:hidden")
    }

    static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { aggregator_xml_free(value) }
        return String(cString: value)
    }
}
