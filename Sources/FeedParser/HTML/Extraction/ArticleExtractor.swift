import CLibXML2

/// The main article of a web page, as `ArticleExtractor` found it.
public struct ExtractedArticle: Sendable, Equatable {
    /// The article's headline: the page's `og:title`, else its `<title>` without the site's name.
    public var title: String?
    /// The article as sanitized HTML (`HTMLSanitizer`), URLs absolute.
    public var html: String
    /// Characters of readable text in `html`.
    public var textLength: Int

    public init(title: String?, html: String, textLength: Int) {
        (self.title, self.html, self.textLength) = (title, html, textLength)
    }
}

/// Finds the main article of a web page (docs/ARCHITECTURE.md, "Storage"): a readability algorithm of our own
/// on libxml2's HTML parser.
///
/// The page's own markup is trusted first: its one substantial `<article>`, else its `<main>`. Otherwise
/// paragraphs score the blocks around them, as in Arc90's and Mozilla's Readability: points for length and
/// commas, class and id hints (`entry-content` up, `sidebar` down), link density against. Navigation,
/// scripts, forms, the site's header and footer and blocks named like boilerplate go before scoring, and
/// boilerplate-looking blocks inside the chosen article after. Bounded: pages over 5 MB are cut, at most
/// 200,000 nodes read, and every walk over the tree is iterative.
public enum ArticleExtractor {
    /// Pages are cut to this many bytes of UTF-8 before parsing.
    public static let maximumInputBytes = 5 * 1024 * 1024
    /// Less readable text than this is no article (a tweet is 280).
    static let minimumTextLength = 140

    /// The main article of `html`, a page fetched from `pageURL`, or nil when the page has none. With a
    /// `selector` (a feed's scraper rules), the elements it selects are the article, whatever their
    /// length; nil when it selects nothing.
    public static func extract(html: String, pageURL: String, selector: ContentSelector? = nil) -> ExtractedArticle? {
        let bytes = cut(html, to: maximumInputBytes)
        guard bytes.contains(where: { !FastText.isASCIIWhitespace($0) }) else { return nil }
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                htmlReadMemory($0.baseAddress, Int32($0.count), pageURL, "UTF-8", aggregator_html_options())
            }
        }
        guard let document = parsed else { return nil }
        defer { xmlFreeDoc(document) }
        guard let root = element("html", in: document.pointee.children) else { return nil }
        let head = PageHead(html: root, pageURL: pageURL)
        guard let body = element("body", in: root.pointee.children) else { return nil }
        // At most one element a start tag: what the page tree's array is sized for.
        let tags = bytes.reduce(into: 0) { count, byte in if byte == UInt8(ascii: "<") { count += 1 } } / 2
        if let selector { return extract(from: body, head: head, selector: selector, expectedElements: tags) }
        // Each attempt keeps more than the one before, as Readability retries when it found nothing.
        for attempt in Attempt.all {
            if let article = extract(from: body, head: head, attempt: attempt, expectedElements: tags) { return article }
        }
        return nil
    }

    private struct Attempt {
        var removesUnlikely: Bool
        var weighsClasses: Bool
        var cleansConditionally: Bool
        /// Some sites (ASP.NET's) wrap the whole page in a `<form>`.
        var keepsForms: Bool

        static let all = [
            Attempt(removesUnlikely: true, weighsClasses: true, cleansConditionally: true, keepsForms: false),
            Attempt(removesUnlikely: false, weighsClasses: true, cleansConditionally: true, keepsForms: true),
            Attempt(removesUnlikely: false, weighsClasses: false, cleansConditionally: false, keepsForms: true),
        ]
    }

    private static func extract(from body: xmlNodePtr, head: PageHead, attempt: Attempt,
                                expectedElements: Int) -> ExtractedArticle? {
        var tree = PageTree(root: body, keepsForms: attempt.keepsForms, expectedElements: expectedElements)
        guard !tree.elements.isEmpty else { return nil }
        if attempt.removesUnlikely { tree.removeUnlikelyElements() }
        let roots: [Int]
        if let semantic = tree.semanticRoot() {
            roots = [semantic]
        } else {
            tree.scoreParagraphs(weighClasses: attempt.weighsClasses)
            guard let best = tree.bestCandidate(weighClasses: attempt.weighsClasses) else { return nil }
            roots = tree.siblings(keptWith: best)
        }
        if attempt.cleansConditionally { tree.cleanConditionally(below: roots, weighClasses: attempt.weighsClasses) }
        var counts = TextStats()
        for root in roots { counts.add(tree.elements[root].total) }
        // Mostly links is a list of pages (a home page, an index), not an article.
        guard counts.characters - counts.linkCharacters >= minimumTextLength, counts.linkDensity < 0.5 else {
            return nil
        }
        var writer = ArticleHTMLWriter(tree: tree, baseURL: head.baseURL)
        for root in roots { writer.write(root) }
        let html = writer.finish()
        let (textLength, isProse) = readable(HTMLText.plainText(fromHTML: html))
        guard textLength >= minimumTextLength, isProse else { return nil }
        let title = head.title ?? roots.lazy.compactMap { tree.firstHeading(below: $0) }.first
        return ExtractedArticle(title: title, html: html, textLength: textLength)
    }

    private static func extract(from body: xmlNodePtr, head: PageHead, selector: ContentSelector,
                                expectedElements: Int) -> ExtractedArticle? {
        let tree = PageTree(root: body, keepsForms: true, expectedElements: expectedElements)
        let roots = selector.roots(in: tree)
        guard !roots.isEmpty else { return nil }
        var writer = ArticleHTMLWriter(tree: tree, baseURL: head.baseURL)
        for root in roots { writer.write(root) }
        let html = writer.finish()
        let title = head.title ?? roots.lazy.compactMap { tree.firstHeading(below: $0) }.first
        return ExtractedArticle(title: title, html: html, textLength: HTMLText.plainText(fromHTML: html).count)
    }

    /// The characters of `text`, and whether it is prose: one pass over its bytes while they are ASCII
    /// (counting characters and asking Unicode of each scalar were a tenth of a long article's time).
    private static func readable(_ text: String) -> (characters: Int, isProse: Bool) {
        var copy = text
        let ascii: (letters: Int, others: Int)? = copy.withUTF8 { bytes in
            var letters = 0
            var others = 0
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) { continue }
                if (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A { letters += 1 } else { others += 1 }
            }
            return (letters, others)
        }
        // Collapsed text has no CR LF pair: an ASCII character is a byte.
        guard let ascii else { return (text.count, isProse(text)) }
        return (text.utf8.count, ascii.letters >= ascii.others)
    }

    /// Mostly letters (in any script): not symbols, digits or the U+FFFD of text that failed to decode.
    private static func isProse(_ text: String) -> Bool {
        var letters = 0
        var others = 0
        for scalar in text.unicodeScalars {
            // ASCII by its value: asking Unicode's properties of each scalar was a third of a 2 MB page's time.
            if scalar.isASCII {
                let value = scalar.value
                if value == 0x20 || (value >= 0x09 && value <= 0x0D) { continue }
                if (value | 0x20) >= 0x61 && (value | 0x20) <= 0x7A { letters += 1 } else { others += 1 }
            } else if !scalar.properties.isWhitespace {
                if scalar.properties.isAlphabetic { letters += 1 } else { others += 1 }
            }
        }
        return letters >= others
    }

    /// The first `limit` bytes of `text`'s UTF-8, not cutting a character in two.
    private static func cut(_ text: String, to limit: Int) -> [UInt8] {
        var bytes = Array(text.utf8)
        guard bytes.count > limit else { return bytes }
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // back to the start of a character
        bytes.removeSubrange(end...)
        return bytes
    }

    private static func element(_ name: String, in first: xmlNodePtr?) -> xmlNodePtr? {
        var node = first
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE, let tag = current.pointee.name,
               String(cString: tag).lowercased() == name {
                return current
            }
            node = current.pointee.next
        }
        return nil
    }
}

extension PageTree {
    /// The text of the first `h1` kept below `root`, when the page's head names no title.
    func firstHeading(below root: Int) -> String? {
        guard let index = keptElements(from: root, to: elements[root].end).first(where: { elements[$0].tag == "h1" }) else {
            return nil
        }
        let heading = text(of: index)
        return heading.isEmpty ? nil : heading
    }
}
