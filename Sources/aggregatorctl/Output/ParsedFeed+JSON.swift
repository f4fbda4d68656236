import FeedParser
import FoundationEssentials
import Glibc

extension ParsedFeed {
    /// The normalized JSON docs/cli.md describes ("Parsing feeds locally") (feedparser's conformance suite's schema), on one line (ended by a newline),
    /// plus `encoding` and `problems` (extra keys the schema allows).
    func schemaJSONLine() -> [UInt8] {
        // Sized from the texts it will hold, so the buffer is not copied as it grows.
        var textBytes = 0
        for index in entries.indices {
            textBytes += Self.textBytes(of: entries[index])
        }
        var json = JSONWriter(capacity: textBytes + textBytes / 16 + 1024)
        writeSchemaJSON(to: &json, flush: nil)
        json.raw("\n")
        return json.bytes
    }

    /// Writes the JSON into `json`; with `flush`, hands over and clears the buffer after each entry
    /// once it holds 64 KiB, so a large feed is never held twice in memory.
    func writeSchemaJSON(to json: inout JSONWriter, flush: (([UInt8]) -> Void)?) {
        json.raw("{")
        json.key("format", first: true); json.string(format.rawValue)
        json.key("title"); json.string(title)
        json.key("link"); json.string(link)
        json.key("subtitle"); json.string(subtitle)
        json.key("language"); json.string(language)
        json.key("updated"); json.timestamp(updated.map(Self.seconds))
        json.key("author"); json.string(author)
        json.key("image"); json.string(image)
        json.key("entries"); json.raw("[")
        for index in entries.indices {
            if index > 0 { json.raw(",") }
            Self.write(entries[index], to: &json)
            if let flush, json.bytes.count >= 65_536 {
                flush(json.bytes)
                json.removeAll()
            }
        }
        json.raw("]")
        json.key("encoding"); json.string(encoding)
        json.key("problems"); json.raw("[")
        for (offset, problem) in problems.enumerated() {
            if offset > 0 { json.raw(",") }
            json.string(problem)
        }
        json.raw("]}")
    }

    /// Roughly what the entry adds to the JSON, to size the buffer once.
    private static func textBytes(of entry: borrowing ParsedEntry) -> Int {
        (entry.title?.utf8.count ?? 0) + (entry.summary?.utf8.count ?? 0) + (entry.link?.utf8.count ?? 0)
            + (entry.content == entry.summary ? 0 : entry.content?.utf8.count ?? 0) + 256
    }

    /// One entry's object. The entry is borrowed where it lies in the array: a copy would retain and
    /// release each of its strings.
    private static func write(_ entry: borrowing ParsedEntry, to json: inout JSONWriter) {
        json.raw("{")
        json.key("id", first: true); json.string(entry.id)
        json.key("link"); json.string(entry.link)
        json.key("title"); json.string(entry.title)
        json.key("summary")
        let summaryStart = json.bytes.count
        json.string(entry.summary)
        let summaryEnd = json.bytes.count
        json.key("content")
        if let content = entry.content, content == entry.summary {
            // The parser copies content into an empty summary: full-content feeds would escape it twice.
            json.repeatBytes(summaryStart..<summaryEnd)
        } else {
            json.string(entry.content)
        }
        json.key("author"); json.string(entry.author)
        json.key("published"); json.timestamp(entry.published.map(Self.seconds))
        json.key("updated"); json.timestamp(entry.updated.map(Self.seconds))
        json.key("categories"); json.raw("[")
        for (offset, category) in entry.categories.enumerated() {
            if offset > 0 { json.raw(",") }
            json.string(category)
        }
        json.raw("]")
        json.key("enclosures"); json.raw("[")
        for (offset, enclosure) in entry.enclosures.enumerated() {
            if offset > 0 { json.raw(",") }
            json.raw("{")
            json.key("url", first: true); json.string(enclosure.url)
            json.key("type"); json.string(enclosure.type)
            json.key("length"); json.integer(enclosure.length)
            json.raw("}")
        }
        json.raw("]")
        json.key("image"); json.string(entry.image)
        json.raw("}")
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
