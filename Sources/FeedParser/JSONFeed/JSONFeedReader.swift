import FoundationEssentials
import JSON

/// Reads JSON Feed 1.0 and 1.1 documents (https://jsonfeed.org/version/1.1) into a `ParsedFeed`.
enum JSONFeedReader {
    /// The feed, or nil when the bytes are not a JSON object carrying a JSON Feed `version`.
    static func read(_ data: Data, documentURL: String?) -> ParsedFeed? {
        guard let document = try? JSONValue(parsing: data), let root = document.object,
              let version = root["version"]?.string, version.hasPrefix("https://jsonfeed.org/version/") else {
            return nil
        }
        func url(_ value: JSONValue?) -> String? {
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
        for case .object(let item) in root["items"]?.array ?? [] {
            var entry = ParsedEntry()
            entry.id = string(item["id"])
            entry.link = url(item["url"])
            entry.title = title(item["title"])
            entry.summary = string(item["summary"])
            entry.content = string(item["content_html"]) ?? string(item["content_text"])
            entry.author = author(of: item)
            entry.published = string(item["date_published"]).flatMap(FeedDateParser.date(from:))
            entry.updated = string(item["date_modified"]).flatMap(FeedDateParser.date(from:))
            entry.categories = (item["tags"]?.array ?? []).compactMap { string($0) }
            for case .object(let attachment) in item["attachments"]?.array ?? [] {
                guard let link = url(attachment["url"]) else { continue }
                // As NSNumber's intValue read it: the whole part, clamped to Int.
                let size = attachment["size_in_bytes"]?.number.map { Int(clamping: Int64(exactly: $0.rounded(.towardZero)) ?? ($0 < 0 ? .min : .max)) }
                entry.enclosures.append(Enclosure(url: link, type: string(attachment["mime_type"]), length: size))
            }
            entry.image = url(item["image"])
                ?? entry.enclosures.first { $0.type?.lowercased().hasPrefix("image/") ?? false }?.url
            feed.entries.append(entry)
        }
        return feed
    }

    /// A non-empty trimmed string; numbers (JSON Feed ids) are written as strings, whole ones without
    /// a fraction (as NSNumber wrote them).
    private static func string(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text):
            let trimmed = text.trimmingWhitespace
            return trimmed.isEmpty ? nil : trimmed
        case .number(let number):
            if number.rounded() == number, let whole = Int64(exactly: number) { return String(whole) }
            return String(number)
        case .bool(let flag):
            return flag ? "1" : "0"
        default:
            return nil
        }
    }

    /// Titles are plain text, with HTML-looking ones reduced as in RSS.
    private static func title(_ value: JSONValue?) -> String? {
        guard let text = string(value) else { return nil }
        let plain = HTMLText.collapse(HTMLTitle.looksLikeHTML(text) ? HTMLTitle.strip(text) : text)
        return plain.isEmpty ? nil : plain
    }

    /// The first of `authors[].name` (1.1), else `author.name` (1.0).
    private static func author(of object: [String: JSONValue]) -> String? {
        if let authors = object["authors"]?.array {
            for case .object(let author) in authors {
                if let name = string(author["name"]) { return name }
            }
        }
        return object["author"]?.object.flatMap { string($0["name"]) }
    }
}
