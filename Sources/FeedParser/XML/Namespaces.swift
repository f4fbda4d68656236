/// Canonical prefixes for the namespaces feeds use, so element lookups don't depend on the prefix
/// a document happened to declare.
enum Namespaces {
    static let atom10 = "http://www.w3.org/2005/Atom"
    static let rss10 = "http://purl.org/rss/1.0/"
    static let rss090 = "http://my.netscape.com/rdf/simple/0.9/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xml = "http://www.w3.org/XML/1998/namespace"

    private static let prefixes: [String: String] = [
        "": "",
        rss10: "", rss090: "", "http://backend.userland.com/rss2": "", "http://backend.userland.com/rss": "",
        "http://blogs.law.harvard.edu/tech/rss": "", "http://purl.org/net/rss1.1#": "",
        atom10: "atom", "http://purl.org/atom/ns#": "atom",
        "http://purl.org/dc/elements/1.1/": "dc", "http://purl.org/dc/elements/1.0/": "dc",
        "http://purl.org/dc/terms/": "dcterms",
        "http://purl.org/rss/1.0/modules/content/": "content",
        "http://www.itunes.com/dtds/podcast-1.0.dtd": "itunes", "http://example.com/dtds/podcast-1.0.dtd": "itunes",
        "http://search.yahoo.com/mrss/": "media", "http://search.yahoo.com/mrss": "media",
        "http://video.search.yahoo.com/mrss": "media", "http://video.search.yahoo.com/mrss/": "media",
        "http://purl.org/rss/1.0/modules/syndication/": "sy",
        "http://purl.org/rss/1.0/modules/slash/": "slash",
        "http://www.w3.org/1999/xhtml": "xhtml",
        rdf: "rdf",
        "http://www.w3.org/2001/xml-events": "xhtml",
    ]

    /// The namespaces that well-known prefixes stand for by convention. Feeds in the wild use them
    /// without declaring them, and browsers and other readers take them as meant.
    private static let conventionalURIs: [String: String] = [
        "atom": atom10,
        "content": "http://purl.org/rss/1.0/modules/content/",
        "dc": "http://purl.org/dc/elements/1.1/",
        "itunes": "http://www.itunes.com/dtds/podcast-1.0.dtd",
        "media": "http://search.yahoo.com/mrss/",
    ]

    /// The namespace of an element whose `prefix` no `xmlns` declared: the conventional one for a
    /// well-known prefix, else a name no field matches (an unknown `foo:title` is not the title).
    static func uri(forUndeclaredPrefix prefix: String) -> String {
        let lowered = prefix.lowercased()
        return conventionalURIs[lowered] ?? "undeclared:" + lowered
    }

    /// The canonical prefix for `uri`; nil for a namespace feeds don't use for their fields.
    static func prefix(for uri: String) -> String? {
        if let known = prefixes[uri] { return known }
        let lowered = uri.lowercased()
        if let known = prefixes[lowered] { return known }
        if lowered.hasPrefix("http://purl.org/atom/ns") { return "atom" }
        if lowered.hasPrefix("http://backend.userland.com/rss") { return "" }
        return nil
    }
}
