import CLibXML2

/// One element of the page as the extractor sees it; its subtree is `tree.elements[index..<end]`.
struct PageElement {
    let node: xmlNodePtr
    let tag: String
    /// An inline tag (`a`, `em`, `span`, …: `PageTree.inlineTags`).
    let isInline: Bool
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
    var phrasing = PhrasingStats()
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
    let keepsForms: Bool
    /// This tree's mark in the nodes' `_private` field (where each element is, for the writer): one
    /// document may be read into several trees, one after the other, each with its own generation.
    private let generation: UInt
    /// Tags met, by their name's bytes; class and id values met, with what they say.
    private var tags: [UInt64: (name: String, isInline: Bool, isDropped: Bool)] = [:]
    private var hintsOfName: [String: ClassHints.NameHints] = [:]

    /// Reads the elements below (and including) `root`, leaving out what can never be content.
    /// `expectedElements`: about how many there are (the array is sized once: growing an array of
    /// 30,000 elements copied it a dozen times, a tenth of the time; walking the tree to count them, a
    /// twentieth).
    init(root: xmlNodePtr, keepsForms: Bool, expectedElements: Int = 0) {
        self.keepsForms = keepsForms
        generation = Self.nextGeneration(of: root)
        elements.reserveCapacity(min(expectedElements, Self.maximumNodes))
        collect(from: root)
        tags = [:]
        hintsOfName = [:]
    }

    /// The element `node` is in this tree, if it was read.
    func index(of node: xmlNodePtr) -> Int? {
        let mark = UInt(bitPattern: node.pointee._private)
        guard mark >> 32 == generation, mark & 0xFFFF_FFFF > 0 else { return nil }
        return Int(mark & 0xFFFF_FFFF) - 1
    }

    /// Counts the trees read from `root`'s document in the document's own `_private` field.
    private static func nextGeneration(of root: xmlNodePtr) -> UInt {
        guard let document = root.pointee.doc else { return 1 }
        let next = UInt(bitPattern: document.pointee._private) &+ 1
        document.pointee._private = UnsafeMutableRawPointer(bitPattern: next)
        return next
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
        let tag = facts(ofTag: node.pointee.name)
        guard !tag.isDropped, keepsForms || tag.name != "form" else { return nil }
        var role: String?
        var hints = ClassHints(nil, nil)
        if node.pointee.properties != nil {
            let attributes = ElementAttributes(node)
            role = attributes.role?.lowercased()
            if let role, Self.droppedRoles.contains(role) { return nil }
            if attributes.isHidden { return nil }
            let classHints = attributes.className.map { self.hints(ofName: $0) }
            let idHints = attributes.id.map { self.hints(ofName: $0) }
            hints = ClassHints(classHints, idHints)
        }
        let parentIsArticle = parent >= 0 && elements[parent].isInsideArticle
        // The site's header and footer; an article's own (or one named `entry-header`) stays.
        if tag.name == "header" || tag.name == "footer", !parentIsArticle, !hints.isPositive { return nil }
        let index = elements.count
        let isMainLandmark = tag.name == "main" || role == "main"
        elements.append(PageElement(node: node, tag: tag.name, isInline: tag.isInline, parent: parent,
                                    end: index + 1, hints: hints,
                                    isInsideArticle: parentIsArticle || isMainLandmark || tag.name == "article"
                                        || role == "article",
                                    isMainLandmark: isMainLandmark))
        node.pointee._private = UnsafeMutableRawPointer(bitPattern: generation << 32 | UInt(index + 1))
        return index
    }

    /// A tag's lower-cased name and kind, worked out once per name: names of up to eight bytes are
    /// looked up by their bytes.
    private mutating func facts(ofTag name: UnsafePointer<xmlChar>?) -> (name: String, isInline: Bool, isDropped: Bool) {
        var key: UInt64 = 0
        var length = 0
        if let name {
            while length < 8, name[length] != 0 {
                key = key << 8 | UInt64(name[length] | (name[length] >= 0x41 && name[length] <= 0x5A ? 0x20 : 0))
                length += 1
            }
            if name[length] != 0 { key = 0 }  // longer: not kept
        }
        if key != 0, let known = tags[key] { return known }
        let tag = name.map { String(cString: $0).lowercased() } ?? ""
        let facts = (name: tag, isInline: Self.inlineTags.contains(tag), isDropped: Self.droppedTags.contains(tag))
        if key != 0 { tags[key] = facts }
        return facts
    }

    private mutating func hints(ofName value: String) -> ClassHints.NameHints {
        if let known = hintsOfName[value] { return known }
        let hints = ClassHints.NameHints(value)
        hintsOfName[value] = hints
        return hints
    }

    private mutating func addText(_ text: UnsafePointer<xmlChar>, to index: Int) {
        var stats = TextStats()
        stats.addText(text)
        elements[index].total.add(stats)
        elements[index].phrasing.add(stats)
    }

    /// Completes the element's counts (its children are closed already) and hands them to its parent.
    private mutating func close(_ index: Int) {
        // In place: copying an element out and back retains and releases its strings.
        elements[index].end = elements.count
        Self.countTag(elements[index].tag, into: &elements[index].total)
        Self.applyTag(elements[index].tag, to: &elements[index].total)
        let parent = elements[index].parent
        guard parent >= 0 else { return }
        let total = elements[index].total
        elements[parent].total.add(total)
        if elements[index].isInline, !elements[index].hasBlockDescendant {
            elements[parent].phrasing.add(total)
        } else {
            elements[parent].hasBlockChild = true
            elements[parent].hasBlockDescendant = true
        }
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
        if ancestor >= 0, elements[index].isInline, !elements[index].hasBlockDescendant {
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
                          let kept = self.index(of: current), !elements[kept].isRemoved {
                    if !elements[kept].isInline { bytes.append(0x20) }  // blocks apart
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

    static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { aggregator_xml_free(value) }
        return String(cString: value)
    }
}

/// The attributes `PageTree` reads of every element, found in one walk of its list without copying.
private struct ElementAttributes {
    var role: String?
    var className: String?
    var id: String?
    /// `hidden`, `aria-hidden="true"` or an inline style that hides it: the reader never sees it.
    var isHidden = false

    init(_ node: xmlNodePtr) {
        var attribute = node.pointee.properties
        while let current = attribute {
            attribute = current.pointee.next
            guard let name = current.pointee.name else { continue }
            // libxml2's HTML parser lower-cases attribute names; the first of a name counts.
            if Self.equal(name, "class") {
                if className == nil { className = Self.value(of: current) }
            } else if Self.equal(name, "id") {
                if id == nil { id = Self.value(of: current) }
            } else if Self.equal(name, "role") {
                if role == nil { role = Self.value(of: current) }
            } else if Self.equal(name, "hidden") {
                isHidden = true
            } else if Self.equal(name, "aria-hidden") {
                if Self.value(of: current)?.lowercased() == "true" { isHidden = true }
            } else if Self.equal(name, "style"), let style = Self.value(of: current) {
                let compact = style.lowercased().filter { !$0.isWhitespace }
                if compact.contains("display:none") || compact.contains("visibility:hidden") { isHidden = true }
            }
        }
    }

    private static func equal(_ name: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
        xmlStrEqual(name, literal.utf8Start) != 0
    }

    /// The value as one text node holds it (the usual case), else libxml2's joining of its parts.
    private static func value(of attribute: xmlAttrPtr) -> String? {
        guard let first = attribute.pointee.children else { return "" }
        if first.pointee.next == nil, first.pointee.type == XML_TEXT_NODE, let content = first.pointee.content {
            return String(cString: content)
        }
        guard let joined = xmlNodeListGetString(attribute.pointee.doc, first, 1) else { return nil }
        defer { aggregator_xml_free(joined) }
        return String(cString: joined)
    }
}
