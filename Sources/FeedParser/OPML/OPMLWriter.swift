import FoundationEssentials

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

    /// `EEE, dd MMM yyyy HH:mm:ss GMT` in UTC, with English names.
    static func rfc822(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = CivilTime.civilFromDays(days)
        let inDay = Int(seconds - days * 86_400)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekday), \(two(day)) \(months[month - 1]) \(yearText) \(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }
}
