import FoundationEssentials

/// Reads the subscriptions of an OPML 1.0 or 2.0 document (nested outlines become categories).
public enum OPMLReader {
    /// Every feed outline in document order.
    /// - Throws: `FeedParserError.notOPML` when the document has no `<opml>` root.
    public static func feeds(in data: Data) throws(FeedParserError) -> [OPMLFeed] {
        let collector = OutlineCollector()
        let parser = SAXPushParser(handler: collector)
        data.withUnsafeBytes { parser.feed($0) }
        parser.finish()
        guard collector.sawOPMLRoot else {
            throw .notOPML(parser.firstError ?? "the document's root element is not <opml>")
        }
        return collector.feeds
    }
}

/// Walks `<outline>` elements, remembering the category outlines that enclose each feed.
private final class OutlineCollector: SAXHandler {
    private(set) var feeds: [OPMLFeed] = []
    private(set) var sawOPMLRoot = false
    private var depth = 0
    // One slot per open element: whether it is an <outline>.
    private var openIsOutline: [Bool] = []
    // One slot per open <outline>: true for a folder (which pushed onto `categories`).
    private var outlineIsFolder: [Bool] = []
    // Names of the open folders that have one; the last is the category of feeds inside.
    private var categories: [String] = []

    func startElement(_ element: ElementName, attributes: SAXAttributes) {
        let name = element.name
        depth += 1
        if depth == 1 { sawOPMLRoot = name == "opml" }
        openIsOutline.append(sawOPMLRoot && name == "outline")
        guard sawOPMLRoot, name == "outline" else { return }
        let text = nonEmpty(attributes.value("text"))
        let title = nonEmpty(attributes.value("title"))
        guard let url = nonEmpty(attributes.value("xmlUrl")) else {
            let folder = text ?? title
            if let folder { categories.append(folder) }
            outlineIsFolder.append(folder != nil)
            return
        }
        feeds.append(OPMLFeed(url: url, title: title ?? text,
                              siteURL: nonEmpty(attributes.value("htmlUrl")), category: categories.last))
        outlineIsFolder.append(false)
    }

    func endElement() {
        depth -= 1
        guard openIsOutline.popLast() == true, let wasFolder = outlineIsFolder.popLast() else { return }
        if wasFolder { categories.removeLast() }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {}
    func undeclaredEntity(named name: String) {}

    private func nonEmpty(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingWhitespaceAndNewlines, !trimmed.isEmpty else {
            return nil
        }
        return trimmed
    }
}
