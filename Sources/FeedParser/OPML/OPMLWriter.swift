import Foundation

/// Writes subscriptions as an OPML 2.0 document, one folder outline per category.
public enum OPMLWriter {
    /// The OPML text for `feeds`; feeds without a category come last, outside any folder.
    public static func document(title: String, feeds: [OPMLFeed], created: Date = Date()) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(XMLText.escaped(title))</title>",
            "    <dateCreated>\(rfc822(created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        var categories: [String] = []
        var byCategory: [String: [OPMLFeed]] = [:]
        for feed in feeds {
            guard let category = feed.category else { continue }
            if byCategory[category] == nil { categories.append(category) }
            byCategory[category, default: []].append(feed)
        }
        for category in categories {
            lines.append("    <outline text=\"\(XMLText.escaped(category))\">")
            lines += byCategory[category, default: []].map { "      " + outline($0) }
            lines.append("    </outline>")
        }
        lines += feeds.filter { $0.category == nil }.map { "    " + outline($0) }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    private static func outline(_ feed: OPMLFeed) -> String {
        let title = XMLText.escaped(feed.title ?? feed.url)
        var attributes = "type=\"rss\" text=\"\(title)\" title=\"\(title)\" xmlUrl=\"\(XMLText.escaped(feed.url))\""
        if let site = feed.siteURL { attributes += " htmlUrl=\"\(XMLText.escaped(site))\"" }
        return "<outline \(attributes)/>"
    }

    private static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
