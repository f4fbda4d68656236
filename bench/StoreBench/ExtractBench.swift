import AggregatorCore
import FeedParser
import Foundation

/// `storebench extract DIR`: what extracting an article costs (issue 32's bar: a 2 MB page in under
/// 50 ms). Each page of the corpus in DIR (`*.html`) is extracted 20 times; then a 2 MB page made
/// from the news article: its article's paragraphs repeated to ~1 MB, inside ~1 MB of navigation,
/// sidebars and comments. Prints medians in milliseconds, and whether the big page's article was
/// found (its first and last paragraphs in the text). Under the daemon's allocator settings.
/// `PROFILE_BIG_PAGE=1` (or `crowded`) extracts the 2 MB page (or the crowded one) 200 times and nothing
/// else, to run under `perf`.
enum ExtractBench {
    static func run(directory: String) throws {
        ServerAllocator.configure()  // as the daemon runs
        let folder = URL(fileURLWithPath: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".html") }.sorted()
        var medians: [Double] = []
        for name in names {
            let html = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            medians.append(median { _ = ArticleExtractor.extract(html: html, pageURL: "http://127.0.0.1/\(name)") })
        }
        medians.sort()
        print("corpus: \(names.count) pages, median \(format(medians[medians.count / 2])) ms, slowest \(format(medians.last ?? 0)) ms")

        let page = bigPage()
        if let profiled = ProcessInfo.processInfo.environment["PROFILE_BIG_PAGE"] {
            let html = profiled == "crowded" ? crowdedPage() : page
            for _ in 0..<200 { _ = ArticleExtractor.extract(html: html, pageURL: "http://127.0.0.1/big.html") }
            return
        }
        var found: ExtractedArticle?
        let big = median { found = ArticleExtractor.extract(html: page, pageURL: "http://127.0.0.1/big.html") }
        let text = found.map { HTMLText.plainText(fromHTML: $0.html) } ?? ""
        let whole = text.contains("Paragraph 1 of the long story") && text.contains("Paragraph 5500 of the long story")
        let boilerplate = text.contains("Sidebar link") || text.contains("A reader's comment")
        print("2 MB page (\(page.utf8.count) bytes): median \(format(big)) ms; article found whole: \(whole); "
              + "boilerplate kept: \(boilerplate)")

        // An article of ordinary length in ~2 MB of navigation, sidebars and comments.
        let crowded = crowdedPage()
        var crowdedFound: ExtractedArticle?
        let crowdedTime = median { crowdedFound = ArticleExtractor.extract(html: crowded, pageURL: "http://127.0.0.1/crowded.html") }
        let crowdedText = crowdedFound.map { HTMLText.plainText(fromHTML: $0.html) } ?? ""
        print("2 MB page of boilerplate around a 60-paragraph article (\(crowded.utf8.count) bytes): median "
              + "\(format(crowdedTime)) ms; article found whole: "
              + "\(crowdedText.contains("Paragraph 1 of the long story") && crowdedText.contains("Paragraph 60 of"))")

        // The other kind of large page: an article of ordinary length in ~2 MB of inline script data
        // and styles, as many sites' pages are today.
        let scripted = scriptedPage()
        var scriptedFound: ExtractedArticle?
        let scriptedTime = median { scriptedFound = ArticleExtractor.extract(html: scripted, pageURL: "http://127.0.0.1/data.html") }
        let scriptedText = scriptedFound.map { HTMLText.plainText(fromHTML: $0.html) } ?? ""
        print("2 MB page of inline script data (\(scripted.utf8.count) bytes): median \(format(scriptedTime)) ms; "
              + "article found whole: \(scriptedText.contains("Paragraph 1 of the long story") && scriptedText.contains("Paragraph 60 of"))")
    }

    /// ~2 MB: a 60-paragraph article with a navigation bar, and ~1.9 MB of inline JSON and CSS.
    private static func scriptedPage() -> String {
        var data = "{\"items\": ["
        for n in 1...29_000 { data += "{\"id\": \(n), \"title\": \"Item \(n) of the state\", \"tags\": [\"a\", \"b\"]}," }
        data += "{}]}"
        var style = ""
        for n in 1...2_000 { style += ".c\(n) { margin: \(n % 7)px; color: #\(String(n % 4096, radix: 16)); }\n" }
        var html = "<!doctype html><html><head><title>The long story</title><style>\(style)</style></head><body>"
        html += "<nav><ul>" + (1...60).map { "<li><a href=\"/s/\($0)\">Section \($0)</a></li>" }.joined() + "</ul></nav>"
        html += "<article><h1>The long story</h1>"
        for n in 1...60 {
            html += "<p>Paragraph \(n) of the long story, with enough words in it, commas, and sentences to read as "
                + "the body of an article rather than a caption or a menu of links.</p>"
        }
        return html + "</article><script type=\"application/json\" id=\"state\">\(data)</script><footer>Footer</footer></body></html>"
    }

    /// 2.0 MB: an ordinary article inside 1.75 times the big page's navigation, sidebar and comments.
    /// (Twice, until December 2026: 2.3 MB, which took 54 ms when the 2.0 MB page took 47.)
    private static func crowdedPage() -> String { bigPage(paragraphs: 60, boilerplate: 1.75) }

    /// ~2 MB: a page of navigation, sidebar and comments (`boilerplate` times ~1 MB of it) around an
    /// article of `paragraphs` paragraphs.
    private static func bigPage(paragraphs: Int = 5_500, boilerplate scale: Double = 1) -> String {
        var html = "<!doctype html><html><head><title>The long story</title></head><body><nav><ul>"
        for n in 1...Int(9_000 * scale) { html += "<li><a href=\"/section/\(n)\">Section \(n)</a></li>" }
        html += "</ul></nav><div class=\"sidebar\"><ul>"
        for n in 1...Int(6_500 * scale) { html += "<li><a href=\"/related/\(n)\">Sidebar link \(n) to another story</a></li>" }
        html += "</ul></div><article><h1>The long story</h1>"
        for n in 1...paragraphs {
            html += "<p>Paragraph \(n) of the long story, with enough words in it, commas, and sentences to read as "
                + "the body of an article rather than a caption or a menu of links.</p>"
            if n % 100 == 0 { html += "<figure><img src=\"/images/\(n).png\" alt=\"Figure \(n)\"></figure>" }
        }
        html += "</article><section class=\"comments\">"
        for n in 1...Int(3_300 * scale) { html += "<div class=\"comment\"><p>A reader's comment number \(n), short.</p></div>" }
        return html + "</section><footer>Footer</footer></body></html>"
    }

    private static func median(_ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<21 {
            let start = ContinuousClock.now
            body()
            let elapsed = (ContinuousClock.now - start).components
            samples.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
        }
        samples = Array(samples.dropFirst()).sorted()  // the first warms up
        return samples[samples.count / 2]
    }

    private static func format(_ milliseconds: Double) -> String { String(format: "%.2f", milliseconds) }
}
