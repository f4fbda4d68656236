import CLibXML2

/// What a page's `<head>` says about its article: the title, and the base its relative URLs resolve against.
struct PageHead {
    private(set) var title: String?
    private(set) var baseURL: String

    /// Reads the `<head>` among the children of `html` (a flat list: no deep walk).
    init(html: xmlNodePtr, pageURL: String) {
        baseURL = pageURL
        var documentTitle: String?
        var socialTitle: String?
        var head = html.pointee.children
        while let current = head, Self.name(of: current) != "head" { head = current.pointee.next }
        var node = head?.pointee.children
        while let current = node {
            switch Self.name(of: current) {
            case "title":
                documentTitle = documentTitle ?? Self.text(of: current)
            case "meta":
                let property = (PageTree.attribute("property", of: current) ?? PageTree.attribute("name", of: current))?
                    .lowercased()
                // The social-card title is the headline without the site's name.
                if property == "og:title" || (property == "twitter:title" && socialTitle == nil),
                   let content = PageTree.attribute("content", of: current).map(FastText.collapsed), !content.isEmpty {
                    socialTitle = content
                }
            case "base":
                if let href = PageTree.attribute("href", of: current), !href.trimmingWhitespace.isEmpty {
                    let resolved = URLResolver.resolve(href, against: pageURL)
                    if URLResolver.isAcceptableBase(resolved) { baseURL = resolved }
                }
            default:
                break
            }
            node = current.pointee.next
        }
        title = socialTitle ?? documentTitle.map(Self.withoutSiteName).flatMap { $0.isEmpty ? nil : $0 }
    }

    private static let separators = [" | ", " - ", " – ", " — ", " :: ", " » ", " · ", " / "]

    /// "How we cut build times in half | Example Blog" → "How we cut build times in half": the part before
    /// the last separator when it has three words or more, else the part after the first (Readability's).
    static func withoutSiteName(_ title: String) -> String {
        let characters = Array(title)
        var cuts: [Range<Int>] = []
        for offset in characters.indices {
            if let separator = separators.first(where: { characters[offset...].starts(with: $0) }) {
                cuts.append(offset..<offset + separator.count)
            }
        }
        guard let first = cuts.first, let last = cuts.last else { return title }
        let before = String(characters[..<last.lowerBound])
        if wordCount(before) >= 3 { return before }
        let after = String(characters[first.upperBound...])
        return wordCount(after) >= 3 ? after : title
    }

    private static func wordCount(_ text: String) -> Int {
        text.split(whereSeparator: { $0.isWhitespace }).count
    }

    private static func name(of node: xmlNodePtr) -> String? {
        guard node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name else { return nil }
        return String(cString: name).lowercased()
    }

    private static func text(of node: xmlNodePtr) -> String? {
        guard let content = xmlNodeGetContent(node) else { return nil }
        defer { aggregator_xml_free(content) }
        let text = FastText.collapsed(String(cString: content))
        return text.isEmpty ? nil : text
    }
}
