import CLibXML2
import Foundation

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
        guard !html.isEmpty else { return [] }
        let document = html.withUnsafeBytes { buffer in
            htmlReadMemory(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), pageURL, nil,
                           aggregator_html_options())
        }
        guard let document else { return [] }
        defer { xmlFreeDoc(document) }
        var base = pageURL
        var found: [DiscoveredFeed] = []
        var stack: [xmlNodePtr] = []
        var node = document.pointee.children
        // Iterative walk: a hostile page cannot overflow the stack with deep nesting.
        while true {
            while let current = node {
                if current.pointee.type == XML_ELEMENT_NODE, let name = current.pointee.name {
                    let element = String(cString: name).lowercased()
                    if element == "base", let href = attribute(current, "href") {
                        base = URLResolver.resolve(href, against: pageURL)
                    } else if element == "link", let feed = feedLink(current, base: base) {
                        found.append(feed)
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
        var seen: Set<String> = []
        return found.filter { seen.insert($0.url).inserted }
    }

    private static func feedLink(_ node: xmlNodePtr, base: String) -> DiscoveredFeed? {
        let rel = (attribute(node, "rel") ?? "").lowercased().split(separator: " ")
        let type = (attribute(node, "type") ?? "").lowercased().trimmingWhitespace
        guard rel.contains("alternate"), feedTypes.contains(type), let href = attribute(node, "href"), !href.isEmpty else {
            return nil
        }
        return DiscoveredFeed(url: URLResolver.resolve(href, against: base), title: attribute(node, "title"), type: type)
    }

    private static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { aggregator_xml_free(value) }
        return String(cString: value)
    }
}
