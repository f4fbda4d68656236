import FeedParser
import Testing

@Suite struct ArticleTextTests {
    private func kinds(_ text: ArticleText) -> [ArticleText.Kind] { text.blocks.map(\.kind) }

    @Test func blocksFollowTheDocument() {
        let text = ArticleText(html: """
            <h2>Release notes</h2><p>First   paragraph,
            with <b>bold</b> and <code>code()</code>.</p><hr>
            <ul><li>One</li><li>Two<ol start="3"><li>Three</li></ol></li></ul>
            <blockquote><p>Quoted</p></blockquote><pre>let x = 1
              indented</pre><script>alert(1)</script><p>line<br>break</p>
            """)
        #expect(kinds(text) == [.heading(level: 2), .paragraph, .rule, .listItem(marker: "•"), .listItem(marker: "•"),
                                .listItem(marker: "3."), .paragraph, .code, .paragraph])
        #expect(text.blocks[1].inlines == [.text("First paragraph, with "), .strong("bold"), .text(" and "),
                                           .code("code()"), .text(".")])
        #expect(text.blocks[5].listDepth == 2)
        #expect(text.blocks[6].quoteDepth == 1)
        #expect(text.blocks[7].code == "let x = 1\n  indented")
        #expect(text.blocks[8].inlines == [.text("line"), .lineBreak, .text("break")])
        #expect(!text.blocks.contains { $0.inlines.contains(.text("alert(1)")) })
    }

    @Test func linksBecomeFootnotesResolvedAgainstTheBase() {
        let text = ArticleText(html: """
            <p>See <a href="/docs">the docs</a>, <a href="https://example.org/x">https://example.org/x</a>,
            <a href="/docs">again</a> and <img src="pic.png" alt="a chart"></p>
            """, baseURL: "https://blog.example/posts/1")
        #expect(text.links == ["https://blog.example/docs", "https://blog.example/posts/pic.png"])
        #expect(text.blocks.first?.inlines == [
            .text("See "), .link("the docs", footnote: 1), .text(", https://example.org/x, "),
            .link("again", footnote: 1), .text(" and "), .link("[image: a chart]", footnote: 2),
        ])
    }

    @Test func spacesAroundInlineElementsStay() {
        let text = ArticleText(html: "<p>read <a href='https://a.example/'>this </a>now</p>")
        #expect(text.blocks.first?.inlines == [.text("read "), .link("this", footnote: 1), .text(" now")])
    }

    @Test func hostileDocumentsGiveTextNotACrash() {
        let deep = String(repeating: "<div>", count: 20_000) + "deep" + String(repeating: "</div>", count: 20_000)
        #expect(ArticleText(html: deep).blocks.count <= 1)
        #expect(ArticleText(html: "").blocks.isEmpty)
        #expect(ArticleText(html: "plain text, no markup").blocks.first?.inlines == [.text("plain text, no markup")])
    }
}
