import CLibXML2
import FoundationEssentials

/// A feed an HTML page advertises with `<link rel="alternate" type="application/rss+xml" href="…">`.
public struct DiscoveredFeed: Sendable, Equatable {
    public var url: String
    public var title: String?
    public var type: String

    public init(url: String, title: String?, type: String) {
        (self.url, self.title, self.type) = (url, title, type)
    }
}

/// Finds the feeds an HTML page links to, for `aggregatorctl add https://example.org/`.
public enum FeedDiscovery {
    /// The paths tried, in order, when a page names no feed.
    public static let commonPaths = ["/feed", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json", "/feed.xml", "/rss"]

    private static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/feed+json", "application/json",
        "application/rdf+xml", "text/xml", "application/xml",
    ]

    /// The alternate feed links of `html`, in page order, resolved against `pageURL` (and `<base href>`).
    public static func alternateLinks(in html: Data, pageURL: String) -> [DiscoveredFeed] {
        var seen: Set<String> = []
        return links(in: html, pageURL: pageURL).compactMap { link -> DiscoveredFeed? in
            guard link.rel.contains("alternate"), feedTypes.contains(link.type) else { return nil }
            return DiscoveredFeed(url: link.url, title: link.title, type: link.type)
        }.filter { seen.insert($0.url).inserted }
    }

    /// The site icons `html` names (`<link rel="icon">`, `"shortcut icon"`, then `"apple-touch-icon"`),
    /// resolved as `alternateLinks` resolves feeds: the page's own icons first, the larger touch icons after.
    public static func iconLinks(in html: Data, pageURL: String) -> [String] {
        let links = links(in: html, pageURL: pageURL)
        let icons = links.filter { $0.rel.contains("icon") }.map(\.url)
        let touchIcons = links.filter { $0.rel.contains { $0.hasPrefix("apple-touch-icon") } }.map(\.url)
        var seen: Set<String> = []
        return (icons + touchIcons).filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// Every `<link>` with an `href`, in page order: its rel tokens, type and title, the href resolved.
    private static func links(in html: Data, pageURL: String) -> [(rel: [String], type: String, url: String, title: String?)] {
        guard !html.isEmpty else { return [] }
        let document = html.withUnsafeBytes { buffer in
            htmlReadMemory(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), pageURL, nil,
                           aggregator_html_options())
        }
        guard let document else { return [] }
        defer { xmlFreeDoc(document) }
        var base = pageURL
        var found: [(rel: [String], type: String, url: String, title: String?)] = []
        var stack: [xmlNodePtr] = []
        var node = document.pointee.children
        // Iterative walk: a hostile page cannot overflow the stack with deep nesting.
        while true {
            while let current = node {
                if current.pointee.type == XML_ELEMENT_NODE, let name = current.pointee.name {
                    let element = String(cString: name).lowercased()
                    if element == "base", let href = attribute(current, "href") {
                        base = URLResolver.resolve(href, against: pageURL)
                    } else if element == "link", let href = attribute(current, "href"), !href.isEmpty {
                        found.append(((attribute(current, "rel") ?? "").lowercased().split(separator: " ").map(String.init),
                                      (attribute(current, "type") ?? "").lowercased().trimmingWhitespace,
                                      URLResolver.resolve(href, against: base), attribute(current, "title")))
                    }
                    if let children = current.pointee.children, element != "script", element != "style" {
                        stack.append(current)
                        node = children
                        continue
                    }
                }
                node = current.pointee.next
            }
            guard let parent = stack.popLast() else { break }
            node = parent.pointee.next
        }
        return found
    }

    private static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { aggregator_xml_free(value) }
        return String(cString: value)
    }
}
