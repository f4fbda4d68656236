import FeedParser
import Testing

@Suite struct HTMLTextTests {
    @Test(arguments: [
        ("<p>Hello <b>world</b> &amp; co</p>", "Hello world & co"),
        ("caf&eacute; &ndash; &#8364;5", "café – €5"),
        ("<p>one</p><p>two</p>", "one two"),
        ("<script>alert(1)</script><style>p{}</style>text", "text"),
        ("  plain\n\ttext  ", "plain text"),
        ("<ul><li>a</li><li>b</li></ul>", "a b"),
        ("", ""),
        // Broken markup keeps its text: a lone "<", a quoted ">" in an attribute, unclosed tags and comments.
        ("a < b and c > d", "a < b and c > d"),
        ("<3 love", "<3 love"),
        (#"<a href="x>y">link</a> after"#, "link after"),
        ("<p>unclosed <b>bold", "unclosed bold"),
        ("<!-- c -->text<!-- unclosed", "text"),
        ("<SCRIPT>bad()</SCRIPT>ok", "ok"),
        ("&amp &eacute; &#233; &#xE9; &bogus;", "&amp é é é &bogus;"),
        ("x <? php ?> y<br/>z", "x y z"),
    ])
    func htmlBecomesReadableText(html: String, text: String) {
        #expect(HTMLText.plainText(fromHTML: html) == text)
    }

    @Test func deepNestingDoesNotOverflowTheStack() {
        let html = String(repeating: "<div>", count: 100_000) + "deep" + String(repeating: "</div>", count: 100_000)
        _ = HTMLText.plainText(fromHTML: html)  // must return: no crash, no stack overflow
    }
}
