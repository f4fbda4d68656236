import Foundation

/// Reads JSON Feed 1.0 and 1.1 documents (https://jsonfeed.org/version/1.1) into a `ParsedFeed`.
enum JSONFeedReader {
    /// The feed, or nil when the bytes are not a JSON object carrying a JSON Feed `version`.
    static func read(_ data: Data, documentURL: String?) -> ParsedFeed? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              let root = object as? [String: Any],
              let version = root["version"] as? String, version.hasPrefix("https://jsonfeed.org/version/") else {
            return nil
        }
        func url(_ value: Any?) -> String? {
            guard let text = string(value) else { return nil }
            return URLResolver.resolve(text, against: documentURL)
        }
        var feed = ParsedFeed()
        feed.format = .jsonfeed
        feed.title = title(root["title"])
        feed.link = url(root["home_page_url"])
        feed.subtitle = string(root["description"])
        feed.language = string(root["language"]).flatMap(FeedBuilder.language)
        feed.author = author(of: root)
        feed.image = url(root["icon"])
        for case let item as [String: Any] in root["items"] as? [Any] ?? [] {
            var entry = ParsedEntry()
            entry.id = string(item["id"])
            entry.link = url(item["url"])
            entry.title = title(item["title"])
            entry.summary = string(item["summary"])
            entry.content = string(item["content_html"]) ?? string(item["content_text"])
            entry.author = author(of: item)
            entry.published = string(item["date_published"]).flatMap(FeedDateParser.date(from:))
            entry.updated = string(item["date_modified"]).flatMap(FeedDateParser.date(from:))
            entry.categories = (item["tags"] as? [Any] ?? []).compactMap { string($0) }
            for case let attachment as [String: Any] in item["attachments"] as? [Any] ?? [] {
                guard let link = url(attachment["url"]) else { continue }
                let size = (attachment["size_in_bytes"] as? NSNumber).map { $0.intValue }
                entry.enclosures.append(Enclosure(url: link, type: string(attachment["mime_type"]), length: size))
            }
            entry.image = url(item["image"])
                ?? entry.enclosures.first { $0.type?.lowercased().hasPrefix("image/") ?? false }?.url
            feed.entries.append(entry)
        }
        return feed
    }

    /// A non-empty trimmed string; numbers (JSON Feed ids) are written as strings.
    private static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String:
            let trimmed = text.trimmingWhitespace
            return trimmed.isEmpty ? nil : trimmed
        case let number as NSNumber:
            return number.stringValue
        default:
            return nil
        }
    }

    /// Titles are plain text, with HTML-looking ones reduced as in RSS.
    private static func title(_ value: Any?) -> String? {
        guard let text = string(value) else { return nil }
        let plain = HTMLText.collapse(HTMLTitle.looksLikeHTML(text) ? HTMLTitle.strip(text) : text)
        return plain.isEmpty ? nil : plain
    }

    /// The first of `authors[].name` (1.1), else `author.name` (1.0).
    private static func author(of object: [String: Any]) -> String? {
        if let authors = object["authors"] as? [Any] {
            for case let author as [String: Any] in authors {
                if let name = string(author["name"]) { return name }
            }
        }
        return (object["author"] as? [String: Any]).flatMap { string($0["name"]) }
    }
}
