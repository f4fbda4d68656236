@testable import HTTPAPI
import Testing

/// Pages are built as `HTML` (docs/SECURITY.md, "Browsers"): text is escaped unless it is markup.
struct HTMLTests {
    @Test func interpolatedTextIsEscapedAndMarkupIsNot() {
        let hostile = "<script>alert(\"x\")</script> & 'quoted'"
        let bold: HTML = "<b>\(hostile)</b>"
        let page: HTML = "<p title=\"\(hostile)\">\(bold) \(42)</p>"
        #expect(page.markup == "<p title=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;\">"
            + "<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;</b> 42</p>")
    }

    @Test func aLiteralInsideAnInterpolationIsTextToo() {
        let flag = true
        // Markup must be typed HTML to go in as markup: a bare literal in an interpolation is a String.
        let page: HTML = "<p>\(flag ? "<i>" : "")</p>"
        #expect(page.markup == "<p>&lt;i&gt;</p>")
    }

    @Test func sanitizedContentGoesInAsItIs() {
        let content = "<p>Safe <a href=\"https://example.org/\">link</a></p>"
        let page: HTML = "<div>\(HTML(sanitized: content))</div>"
        #expect(page.markup == "<div>\(content)</div>")
    }

    @Test func controlCharactersHTMLDoesNotAllowAreLeftOut() {
        #expect(HTML.escaped("a\u{0}b\u{7}c\td\ne\u{1F}") == "abc\td\ne")
    }

    @Test func partsJoinWithASeparator() {
        let parts: [HTML] = ["<a>1</a>", "<a>2</a>", "<a>3</a>"]
        #expect(parts.joined(separator: " · ").markup == "<a>1</a> · <a>2</a> · <a>3</a>")
        #expect([HTML]().joined().isEmpty)
    }
}
