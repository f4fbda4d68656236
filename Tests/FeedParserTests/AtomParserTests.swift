import FeedParser
import Testing

@Suite struct AtomParserTests {
    @Test func atom10WithXMLBaseAndInlineXHTML() throws {
        let feed = try parse("""
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/">
              <title type="html">A &lt;em&gt;blog&lt;/em&gt;</title>
              <link href="./"/><link rel="self" href="atom.xml"/>
              <updated>2004-01-01T19:48:21Z</updated><author><name>Jo</name></author>
              <entry xml:base="posts/">
                <id>1</id><title>Post</title><link href="one.html"/>
                <link rel="enclosure" href="a.mp3" type="audio/mpeg" length="12"/>
                <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hi &amp; <a href="x">bye</a></p></div></content>
                <category term="t" label="Label"/><published>2004-01-02T00:00:00+01:00</published>
              </entry>
            </feed>
            """)
        #expect(feed.format == .atom10)
        #expect(feed.title == "A blog")
        #expect(feed.link == "http://example.org/blog/")
        #expect(feed.author == "Jo")
        let entry = try #require(feed.entries.first)
        #expect(entry.id == "http://example.org/blog/posts/1")
        #expect(entry.link == "http://example.org/blog/posts/one.html")
        #expect(entry.content == #"<p>Hi &amp; <a href="x">bye</a></p>"#)
        #expect(entry.summary == entry.content)
        #expect(entry.enclosures == [Enclosure(url: "http://example.org/blog/posts/a.mp3", type: "audio/mpeg", length: 12)])
        #expect(entry.categories == ["t"])
        #expect(iso(entry.published) == "2004-01-01T23:00:00Z")
    }

    @Test func inlineXHTMLIsEchoedWithAttributeValuesEscaped() throws {
        let feed = try parse("""
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml">\
            <div xmlns="http://www.w3.org/1999/xhtml"><a href="x?a=1&amp;b=2" title="say &quot;hi&quot; &lt;now&gt; 'ok'" \
            xml:lang="en">bye</a><br/><img src="i.png" alt="a &gt; b"/></div></content></entry></feed>
            """)
        #expect(feed.entries.first?.content == """
            <a href="x?a=1&amp;b=2" title="say &quot;hi&quot; &lt;now&gt; 'ok'" xml:lang="en">bye</a>\
            <br /><img src="i.png" alt="a &gt; b" />
            """)
    }

    @Test func plainTextTitlesAreTakenLiterally() throws {
        let feed = try parse(#"<feed xmlns="http://www.w3.org/2005/Atom"><title type="text">&lt;b&gt;</title></feed>"#)
        #expect(feed.title == "<b>")
    }

    @Test func atom03IsRecognisedByItsRootAndBase64ModeDecoded() throws {
        let feed = try parse("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry>
              <title>t</title><summary mode="base64">PGI+aGk8L2I+</summary><issued>2004-01-01T00:00:00Z</issued>
            </entry></feed>
            """)
        #expect(feed.format == .atom03)
        #expect(feed.entries.first?.summary == "<b>hi</b>")
        #expect(iso(feed.entries.first?.published) == "2004-01-01T00:00:00Z")
    }

    @Test func authorFallsBackToEmail() throws {
        let feed = try parse("""
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><author><email>a@example.org</email></author></entry></feed>
            """)
        #expect(feed.entries.first?.author == "a@example.org")
    }

    /// Atom 0.3's base64 content is text like any other (copied to the summary when there is none),
    /// and a base64 title whose type is HTML is read as HTML.
    @Test func atom03Base64ContentAndHTMLTitles() throws {
        let feed = try parse("""
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="base64">PGI+QjwvYj4=</title><entry>
              <title type="text/html" mode="base64">PHA+PGEgaHJlZj0iL3giPkxpbms8L2E+PC9wPg==</title>
              <content type="text/html" mode="base64">PHA+Qm9keTwvcD4=</content>
            </entry></feed>
            """)
        #expect(feed.title == "<b>B</b>")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "Link")
        #expect(entry.content == "<p>Body</p>")
        #expect(entry.summary == "<p>Body</p>")
    }

    /// A `>` inside a quoted attribute of an HTML title does not end the tag.
    @Test func htmlTitlesSkipAngleBracketsInsideAttributes() throws {
        let feed = try parse("""
            <feed xmlns="http://www.w3.org/2005/Atom">
              <title type="html"><![CDATA[<img alt="a<br />b" src="/i.png"> Cats & <em title='x>y'>dogs</em>]]></title>
            </feed>
            """)
        #expect(feed.title == "Cats & dogs")
    }
}
