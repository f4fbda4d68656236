import Foundation

/// A file an article carries (a podcast's audio, a video), as the store keeps it.
public struct ArticleEnclosure: Sendable, Equatable {
    public var url: String
    /// Its media type, e.g. `audio/mpeg`, when the feed says.
    public var type: String?
    /// Its size in bytes, when the feed says.
    public var length: Int?
    /// Seconds into it where the account reading stopped (0: not started); never in the column text.
    public var mediaProgression: Int64 = 0

    public init(url: String, type: String? = nil, length: Int? = nil) {
        (self.url, self.type, self.length) = (url, type, length)
    }
}

extension ArticleEnclosure {
    // The `entries.enclosures` column holds a JSON array of {"length", "type", "url"} objects (the
    // format databases have had since the column was added, so no row needs migrating). It is the
    // store's own format: readers get typed values, and front ends choose their own shapes.

    /// The column's text for `enclosures`; nil when there are none.
    static func columnText(_ enclosures: [ArticleEnclosure]) -> String? {
        guard !enclosures.isEmpty else { return nil }
        var text = "["
        for (index, enclosure) in enclosures.enumerated() {
            if index > 0 { text += "," }
            text += #"{"length":"# + (enclosure.length.map(String.init) ?? "null")
            text += #","type":"# + (enclosure.type.map(quoted) ?? "null")
            text += #","url":"# + quoted(enclosure.url) + "}"
        }
        return text + "]"
    }

    /// The enclosures a column's text holds; none for text that is not such an array.
    static func decoding(columnText text: String?) -> [ArticleEnclosure] {
        guard let text, let objects = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            return []
        }
        return objects.compactMap { object in
            guard let url = object["url"] as? String else { return nil }
            return ArticleEnclosure(url: url, type: object["type"] as? String, length: object["length"] as? Int)
        }
    }

    /// `value` as a JSON string literal.
    private static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
