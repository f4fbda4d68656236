/// A feed's `scraper_rules` (Miniflux's name): which elements of its pages hold the article, in a
/// subset of CSS selectors, instead of the readability algorithm's choice. Selectors separated by
/// commas, each a chain of compound selectors separated by spaces (descendants), each compound a
/// tag name or `*`, then any `#id` and `.class` (`article`, `div.post-body`, `main #story p`).
/// Combinators (`>`, `+`, `~`), attributes and pseudo-classes are refused with a message, not
/// half-understood.
public struct ContentSelector: Sendable, Equatable {
    struct Compound: Sendable, Equatable {
        var tag: String?
        var id: String?
        var classes: [String] = []
    }

    /// Each alternative, its compounds from the outermost to the element itself.
    let alternatives: [[Compound]]

    /// At most this many characters: a selector, not a document.
    public static let maximumLength = 1000

    /// Parses `text`; throws a message naming what is not understood.
    public init(_ text: String) throws(ContentSelectorError) {
        guard text.count <= Self.maximumLength else { throw ContentSelectorError("a selector is at most \(Self.maximumLength) characters") }
        var alternatives: [[Compound]] = []
        for alternative in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = alternative.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard !parts.isEmpty else { throw ContentSelectorError("an empty selector in \"\(text)\"") }
            alternatives.append(try parts.map { part throws(ContentSelectorError) in try Self.compound(String(part)) })
        }
        self.alternatives = alternatives
    }

    private static func compound(_ text: String) throws(ContentSelectorError) -> Compound {
        var compound = Compound()
        var rest = Substring(text)
        func name() -> String {
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            rest = rest.dropFirst(name.count)
            return String(name)
        }
        if rest.first == "*" {
            rest = rest.dropFirst()
        } else if rest.first?.isLetter == true {
            compound.tag = name().lowercased()
        }
        while let marker = rest.first {
            rest = rest.dropFirst()
            let value = name()
            guard !value.isEmpty, marker == "#" || marker == "." else {
                throw ContentSelectorError("\"\(text)\" is not understood: use tag names, #id and .class, "
                    + "separated by spaces (descendants) and commas")
            }
            if marker == "#" { compound.id = value } else { compound.classes.append(value) }
        }
        return compound
    }

    /// The elements of `tree` it selects that no other selected element contains, in document order.
    func roots(in tree: PageTree) -> [Int] {
        var roots: [Int] = []
        var coveredUntil = 0  // elements before this index are inside a root already
        for index in tree.elements.indices where index >= coveredUntil && !tree.elements[index].isRemoved {
            guard alternatives.contains(where: { matches($0, index, in: tree) }) else { continue }
            roots.append(index)
            coveredUntil = tree.elements[index].end
        }
        return roots
    }

    /// Whether the element is the last compound's and its ancestors hold the others, in order.
    private func matches(_ chain: [Compound], _ index: Int, in tree: PageTree) -> Bool {
        guard let last = chain.last, Self.matches(last, tree.elements[index]) else { return false }
        var remaining = chain.dropLast()
        var ancestor = tree.elements[index].parent
        while let wanted = remaining.last {
            guard ancestor >= 0 else { return false }
            if Self.matches(wanted, tree.elements[ancestor]) { remaining.removeLast() }
            ancestor = tree.elements[ancestor].parent
        }
        return true
    }

    private static func matches(_ compound: Compound, _ element: PageElement) -> Bool {
        if let tag = compound.tag, tag != element.tag { return false }
        if let id = compound.id, PageTree.attribute("id", of: element.node) != id { return false }
        guard !compound.classes.isEmpty else { return true }
        let classes = Set((PageTree.attribute("class", of: element.node) ?? "").split(whereSeparator: \.isWhitespace).map(String.init))
        return compound.classes.allSatisfy(classes.contains)
    }
}

/// Why a selector is refused.
public struct ContentSelectorError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
