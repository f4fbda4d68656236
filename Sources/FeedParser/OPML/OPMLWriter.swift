import Foundation

/// Writes subscriptions as an OPML 2.0 document, one folder outline per category.
public enum OPMLWriter {
    /// The OPML text for `feeds`; feeds without a category come last, outside any folder.
    public static func document(title: String, feeds: [OPMLFeed], created: Date = Date()) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(escape(title))</title>",
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
            lines.append("    <outline text=\"\(escape(category))\">")
            lines += byCategory[category, default: []].map { "      " + outline($0) }
            lines.append("    </outline>")
        }
        lines += feeds.filter { $0.category == nil }.map { "    " + outline($0) }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    private static func outline(_ feed: OPMLFeed) -> String {
        let title = escape(feed.title ?? feed.url)
        var attributes = "type=\"rss\" text=\"\(title)\" title=\"\(title)\" xmlUrl=\"\(escape(feed.url))\""
        if let site = feed.siteURL { attributes += " htmlUrl=\"\(escape(site))\"" }
        return "<outline \(attributes)/>"
    }

    /// Escapes the five XML special characters for use in text and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    private static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
