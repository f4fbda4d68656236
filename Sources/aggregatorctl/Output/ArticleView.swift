import ControlProtocol
import FeedParser
import FoundationEssentials
import Glibc

/// `show ID`: one article as text wrapped to `width`, for a terminal or a pager: a header (title;
/// feed, author, date; link), the body's headings, paragraphs, lists, quotes and code, then the
/// links its text refers to as numbered footnotes.
struct ArticleView {
    let width: Int
    /// Bold on a terminal, unchanged elsewhere (HumanOutput's styling).
    let bold: (String) -> String

    func render(_ article: JSONValue, relativeDate: (String?) -> String) -> String {
        var lines = [bold(article["title"]?.string ?? "(untitled)")]
        var byline = [article["feed_title"]?.string, article["author"]?.string].compactMap { $0 }
        if let published = article["published"]?.string {
            byline.append("\(Self.localDate(published)) (\(relativeDate(published)))")
        }
        if !byline.isEmpty { lines.append(byline.joined(separator: " · ")) }
        if let url = article["url"]?.string { lines.append(url) }
        let html = article["content"]?.string ?? article["summary"]?.string ?? ""
        let text = ArticleText(html: html, baseURL: article["url"]?.string)
        var previous: ArticleText.Block?
        for block in text.blocks {
            // A blank line between blocks, but not between items of one list.
            let sameList = if case .listItem = block.kind, case .listItem? = previous?.kind { true } else { false }
            if !sameList { lines.append("") }
            lines += render(block)
            previous = block
        }
        if !text.links.isEmpty {
            lines += ["", "Links:"] + text.links.enumerated().map { "  [\($0.offset + 1)] \($0.element)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Blocks

    private func render(_ block: ArticleText.Block) -> [String] {
        let quote = String(repeating: "> ", count: block.quoteDepth)
        switch block.kind {
        case .heading(let level):
            return wrap(words(block.inlines), first: quote + String(repeating: "#", count: level) + " ", rest: quote, bold: true)
        case .paragraph:
            let indent = String(repeating: "  ", count: block.listDepth)
            return wrap(words(block.inlines), first: quote + indent, rest: quote + indent)
        case .listItem(let marker):
            let indent = String(repeating: "  ", count: max(0, block.listDepth - 1))
            let first = quote + indent + marker + " "
            return wrap(words(block.inlines), first: first, rest: quote + indent + String(repeating: " ", count: marker.count + 1))
        case .code:
            // As written: code is never wrapped.
            return block.code.split(separator: "\n", omittingEmptySubsequences: false).map { quote + "    " + $0 }
        case .rule:
            return [quote + String(repeating: "─", count: min(20, width))]
        }
    }

    /// A piece of text that wraps as one: its text (with any styling) and how wide it shows.
    private struct Word {
        var text: String
        var width: Int
        var breaksLineBefore = false
    }

    private func words(_ inlines: [ArticleText.Inline]) -> [Word] {
        var words: [Word] = []
        var breakNext = false
        var glueNext = false  // the previous piece ended inside a word ("see the docs[1].")
        func add(_ text: String, styled render: (String) -> String = { $0 }) {
            let parts = text.split(separator: " ", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if index > 0 { glueNext = false }
                guard !part.isEmpty else { continue }
                let word = Word(text: render(String(part)), width: part.count)
                if glueNext, !breakNext, var last = words.popLast() {
                    last.text += word.text
                    last.width += word.width
                    words.append(last)
                } else {
                    words.append(Word(text: word.text, width: word.width, breaksLineBefore: breakNext))
                }
                breakNext = false
                glueNext = true
            }
            if text.hasSuffix(" ") { glueNext = false }
        }
        for inline in inlines {
            switch inline {
            case .text(let text): add(text)
            case .strong(let text): add(text, styled: bold)
            case .code(let text): add("`" + text + "`")
            case .link(let text, let footnote): add(text + "[\(footnote)]")
            case .lineBreak:
                breakNext = true
                glueNext = false
            }
        }
        return words
    }

    /// Greedy wrapping to `width`; `first` and `rest` prefix the first and the following lines.
    private func wrap(_ words: [Word], first: String, rest: String, bold makeBold: Bool = false) -> [String] {
        var lines: [String] = []
        var line = first
        var lineWidth = first.count
        var empty = true
        for word in words {
            let needed = (empty ? 0 : 1) + word.width
            if !empty && (word.breaksLineBefore || lineWidth + needed > width) {
                lines.append(line)
                line = rest
                lineWidth = rest.count
                empty = true
            }
            if !empty {
                line += " "
                lineWidth += 1
            }
            line += makeBold ? bold(word.text) : word.text
            lineWidth += word.width
            empty = false
        }
        if !empty { lines.append(line) }
        return lines
    }

    /// An RFC 3339 moment as local date and time, e.g. "2024-06-01 14:00".
    static func localDate(_ timestamp: String) -> String {
        guard let date = FeedDateParser.date(from: timestamp) else { return timestamp }
        let parts = LocalTime.fields(of: date)
        return printf("%04d-%02d-%02d %02d:%02d", parts.year, parts.month, parts.day, parts.hour, parts.minute)
    }
}
