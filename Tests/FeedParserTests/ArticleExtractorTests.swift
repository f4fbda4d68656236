import FeedParser
import Foundation
import Testing

/// The article pages of `Fixtures/articles`: `NAME.html`, with `NAME.expected.txt` (sentences of the
/// article, each must be found) and `NAME.boilerplate.txt` (lines of navigation, comments, footers and
/// related links: what of them is found must stay under 10 % of the extracted text).
struct ArticlePage: CustomStringConvertible, Sendable {
    let name: String
    let html: String
    let expected: [String]
    let boilerplate: [String]

    var description: String { name }
    var pageURL: String { "https://www.example.org/2024/03/\(name)/" }

    static let all: [ArticlePage] = {
        guard let folder = Bundle.module.url(forResource: "articles", withExtension: nil, subdirectory: "Fixtures"),
              let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        let read = { (file: String) in
            (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        let lines = { (file: String) -> [String] in
            read(file).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return files.filter { $0.hasSuffix(".html") }.sorted().map { file in
            let name = String(file.dropLast(".html".count))
            return ArticlePage(name: name, html: read(file), expected: lines(name + ".expected.txt"),
                               boilerplate: lines(name + ".boilerplate.txt"))
        }
    }()

    /// What the extractor finds on this page, as text.
    struct Result {
        var article: ExtractedArticle?
        var text: String
        var missing: [String]
        var boilerplateFound: [String]

        /// Characters of boilerplate lines found, against the extracted text's.
        var boilerplateShare: Double {
            text.isEmpty ? 1 : Double(boilerplateFound.map(\.count).reduce(0, +)) / Double(text.count)
        }
        var isGood: Bool { article != nil && missing.isEmpty && boilerplateShare < 0.1 }
    }

    func extract() -> Result {
        let article = ArticleExtractor.extract(html: html, pageURL: pageURL)
        let text = HTMLText.plainText(fromHTML: article?.html ?? "")
        return Result(article: article, text: text, missing: expected.filter { !text.contains($0) },
                      boilerplateFound: boilerplate.filter { text.contains($0) })
    }
}

@Suite struct ArticleExtractorTests {
    @Test func corpusIsThere() {
        #expect(ArticlePage.all.count >= 15)
    }

    @Test(arguments: ArticlePage.all)
    func findsTheArticleWithLittleBoilerplate(page: ArticlePage) throws {
        let result = page.extract()
        let article = try #require(result.article, "no article found")
        #expect(result.missing.isEmpty, "missing: \(result.missing)\n\(result.text)")
        #expect(result.boilerplateShare < 0.1, "boilerplate: \(result.boilerplateFound)\n\(result.text)")
        #expect(article.textLength == result.text.count)
        #expect(article.title?.isEmpty == false)
        // Sanitized from the page's tree, not written and parsed again: as sanitizing text would give it.
        #expect(HTMLSanitizer.sanitize(article.html, baseURL: page.pageURL) == article.html)
    }

    /// The corpus figure, for the commit message and docs (printed, not asserted: the per-page test is).
    @Test func corpusFigure() {
        let results = ArticlePage.all.map { ($0.name, $0.extract()) }
        let good = results.filter { $0.1.isGood }
        for (name, result) in results {
            let share = String(format: "%.1f", result.boilerplateShare * 100)
            print("article corpus: \(name): \(result.isGood ? "ok" : "FAILED") text=\(result.text.count) "
                  + "missing=\(result.missing.count) boilerplate=\(share) % title=\(result.article?.title ?? "-")")
        }
        print("article corpus: \(good.count) of \(results.count) pages: article text found with < 10 % boilerplate")
    }

    // MARK: - Behaviour, one rule at a time

    private let pageURL = "https://news.example.com/world/2024/story.html"
    private let prose = """
        <p>The harbour authority confirmed on Monday that the new locks will open in the spring, two years later \
        than planned, after engineers found cracks in the concrete of the northern gate during the final inspection.</p>
        <p>Shipping companies said the delay would cost them millions, but welcomed the decision to keep the old \
        locks in service until the new ones are ready, so that traffic on the canal can continue as before.</p>
        """

    @Test func titleComesFromTheSocialCardThenTheDocumentTitleWithoutTheSiteName() throws {
        let social = try #require(ArticleExtractor.extract(html: """
            <html><head><title>Locks delayed | Harbour News</title>\
            <meta property="og:title" content="Locks delayed again"></head><body>\(prose)</body></html>
            """, pageURL: pageURL))
        #expect(social.title == "Locks delayed again")
        let document = try #require(ArticleExtractor.extract(html: """
            <html><head><title>New locks open two years late | Harbour News</title></head><body>\(prose)</body></html>
            """, pageURL: pageURL))
        #expect(document.title == "New locks open two years late")
    }

    @Test func relativeLinksAndImagesResolveAgainstThePageAndItsBase() throws {
        let page = """
            <html><head><base href="/media/"></head><body><div class="entry-content">\(prose)
            <figure><img src="locks.jpg" alt="The gate"><figcaption>The northern gate.</figcaption></figure>
            <p>More in <a href="../archive/">our archive</a>, and <img src="data:image/gif;base64,R0lGOD" \
            data-src="lazy.jpg" alt="lazy"> a lazy image; a pixel <img src="/t.gif" width="1" height="1">.</p>
            </div></body></html>
            """
        let article = try #require(ArticleExtractor.extract(html: page, pageURL: pageURL))
        #expect(article.html.contains(#"src="https://news.example.com/media/locks.jpg""#), "\(article.html)")
        #expect(article.html.contains(#"href="https://news.example.com/archive/""#))
        #expect(article.html.contains(#"src="https://news.example.com/media/lazy.jpg""#))
        #expect(article.html.contains("<figcaption>The northern gate.</figcaption>"))
        #expect(!article.html.contains("t.gif") && !article.html.contains("data:"))
    }

    /// Elements the sanitizer leaves out (unknown ones, `font`) with kept elements inside: written from
    /// the tree they would nest as HTML does not allow, so the article is sanitized again as text.
    @Test func keptElementsInsideOnesLeftOutComeOutAsSanitizingTextGivesThem() throws {
        let page = """
            <html><body><article>\(prose)<p>An <unknown-widget><blockquote>unknown wrapper</blockquote></unknown-widget> \
            here.</p><ul><li><font color="red"><p>inside a font</p></font></li></ul></article></body></html>
            """
        let article = try #require(ArticleExtractor.extract(html: page, pageURL: pageURL))
        #expect(HTMLSanitizer.sanitize(article.html, baseURL: pageURL) == article.html, "\(article.html)")
        #expect(article.html.contains("<blockquote>unknown wrapper</blockquote>") && article.html.contains("inside a font"))
        #expect(!article.html.contains("unknown-widget") && !article.html.contains("font color"))
    }

    @Test func scriptInjectionDoesNotSurvive() throws {
        let page = """
            <html><body><div class="post-body">\(prose)
            <p>Read <a href="javascript:alert(1)">this</a> and <a href=" JaVaScRiPt:alert(2)">that</a>.\
            <img src="x.png" onerror="alert(3)"><span onclick="alert(4)">tap</span></p>
            <script>alert(5)</script><iframe src="https://evil.example/"></iframe>
            <svg onload="alert(6)"></svg></div></body></html>
            """
        let article = try #require(ArticleExtractor.extract(html: page, pageURL: pageURL))
        for forbidden in ["javascript", "onerror", "onclick", "onload", "alert", "<script", "<iframe", "<svg"] {
            #expect(!article.html.lowercased().contains(forbidden), "\(forbidden) in \(article.html)")
        }
        #expect(article.html.contains(#"<img src="https://news.example.com/world/2024/x.png""#))
    }

    @Test func pagesWithoutAnArticleGiveNil() {
        let links = (1...40).map { "<li><a href=\"/p/\($0)\">A headline about topic number \($0)</a></li>" }.joined()
        for html in ["", "   \n", "garbage <<<>>> &&& \u{0}\u{1}", "<html><body><p>Too short.</p></body></html>",
                     "<html><body><ul>\(links)</ul></body></html>", "<frameset><frame src=x></frameset>",
                     String(repeating: "\u{FFFD}", count: 10_000)] {
            #expect(ArticleExtractor.extract(html: html, pageURL: pageURL) == nil, "\(html.prefix(60))")
        }
    }

    @Test func deepNestingDoesNotCrash() {
        let deep = String(repeating: "<div>", count: 100_000) + prose + String(repeating: "</div>", count: 100_000)
        // libxml2 stops nesting at 256 levels; whatever it keeps, the walk must not overflow the stack.
        _ = ArticleExtractor.extract(html: "<html><body>" + deep + "</body></html>", pageURL: pageURL)
        let mixed = String(repeating: "<div><table><tr><td><ul><li><span>", count: 20_000) + prose
        _ = ArticleExtractor.extract(html: mixed, pageURL: pageURL)
    }

    @Test func hugeAttributesAndManyElementsStayBounded() throws {
        let huge = String(repeating: "a", count: 2_000_000)  // twice: under the 5 MB cut
        let page = "<html><body><div class=\"\(huge)\" title=\"\(huge)\">\(prose)</div></body></html>"
        let article = try #require(ArticleExtractor.extract(html: page, pageURL: pageURL))
        #expect(article.html.contains("harbour authority") && article.html.count < 10_000)
        let many = String(repeating: "<span>x</span>", count: 400_000) + prose
        _ = ArticleExtractor.extract(html: many, pageURL: pageURL)
    }

    @Test func pagesOverTheLimitAreCut() throws {
        let filler = String(repeating: "<p>filler, filler, filler text that goes on and on.</p>", count: 120_000)
        let page = "<html><body><div>\(prose)</div>\(filler)<p>Beyond the cut.</p></body></html>"
        #expect(page.utf8.count > ArticleExtractor.maximumInputBytes)
        let article = try #require(ArticleExtractor.extract(html: page, pageURL: pageURL))
        #expect(!article.html.contains("Beyond the cut."))
    }
}

/// A feed's scraper rules (`ContentSelector`): the elements they select are the article.
@Suite struct ContentSelectorTests {
    let page = """
        <html><head><title>A page</title></head><body>
        <div class="top"><p>Menu and things</p></div>
        <div class="post body" id="story"><p>Short.</p><p>Second <a href="/more">part</a>.</p>
          <div class="post"><p>Nested post, inside the first.</p></div></div>
        <section><p class="note">A note.</p></section>
        <div class="post"><script>alert(1)</script><p>Another post.</p></div>
        </body></html>
        """

    private func text(_ selector: String) throws -> String? {
        ArticleExtractor.extract(html: page, pageURL: "https://example.org/a/", selector: try ContentSelector(selector))
            .map { HTMLText.plainText(fromHTML: $0.html) }
    }

    @Test func selectsByTagClassIdAndDescendant() throws {
        let posts = try #require(try text("div.post"))
        #expect(posts.contains("Short.") && posts.contains("Nested post") && posts.contains("Another post."))
        #expect(!posts.contains("Menu") && !posts.contains("alert"), "only what is selected, sanitized")
        #expect(posts.components(separatedBy: "Nested post").count == 2, "an element inside another selected one comes once")
        #expect(try text("#story p")?.contains("Second part.") == true)
        let both = try #require(try text("section .note, .top"))
        let (menu, note) = (try #require(both.range(of: "Menu and things")), try #require(both.range(of: "A note.")))
        #expect(menu.lowerBound < note.lowerBound, "alternatives in document order")
        #expect(try text("div.missing") == nil, "nothing selected: no article")
        let linked = try #require(ArticleExtractor.extract(html: page, pageURL: "https://example.org/a/", selector: try ContentSelector("#story")))
        #expect(linked.html.contains("https://example.org/more"), "addresses made absolute")
    }

    @Test func refusesWhatItDoesNotUnderstand() {
        for selector in ["div > p", "a[href]", "p:first-child", "", "div,", "p ~ p", String(repeating: "a ", count: 600)] {
            #expect(throws: ContentSelectorError.self, "\(selector)") { try ContentSelector(selector) }
        }
    }
}
