import FeedParser
import Testing

@Suite struct RSSParserTests {
    @Test func rss20ChannelAndItem() throws {
        let feed = try parse("""
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
                 xmlns:content="http://purl.org/rss/1.0/modules/content/">
            <channel>
              <title>Example &amp; Co</title><link>http://example.org/</link>
              <description>&lt;p&gt;About&lt;/p&gt;</description><language>en_US</language>
              <lastBuildDate>Thu, 01 Jan 2004 19:48:21 GMT</lastBuildDate>
              <managingEditor>jo@example.org (Jo Doe)</managingEditor>
              <image><url>/logo.png</url><title>Not the feed title</title></image>
              <ttl>60</ttl>
              <item>
                <title>Hello</title><link>/posts/1</link><guid>http://example.org/1</guid>
                <description><![CDATA[<p>Hi</p>]]></description>
                <content:encoded><![CDATA[<p>Hi there</p>]]></content:encoded>
                <dc:creator>Ann Author</dc:creator><pubDate>Fri, 02 Jan 2004 10:00:00 +0100</pubDate>
                <category domain="x">news</category><category domain="x">news</category>
                <enclosure url="http://example.org/a.mp3" type="audio/mpeg" length="1234"/>
              </item>
            </channel></rss>
            """, url: "http://example.org/feed.xml")
        #expect(feed.format == .rss20)
        #expect(feed.title == "Example & Co")
        #expect(feed.subtitle == "<p>About</p>")
        #expect(feed.language == "en-US")
        #expect(iso(feed.updated) == "2004-01-01T19:48:21Z")
        #expect(feed.author == "Jo Doe")
        #expect(feed.image == "http://example.org/logo.png")
        #expect(feed.timeToLiveMinutes == 60)
        let entry = try #require(feed.entries.first)
        #expect(entry.link == "http://example.org/posts/1")
        #expect(entry.id == "http://example.org/1")
        #expect(entry.summary == "<p>Hi</p>")
        #expect(entry.content == "<p>Hi there</p>")
        #expect(entry.author == "Ann Author")
        #expect(iso(entry.published) == "2004-01-02T09:00:00Z")
        #expect(entry.categories == ["news"])
        #expect(entry.enclosures == [Enclosure(url: "http://example.org/a.mp3", type: "audio/mpeg", length: 1234)])
    }

    @Test func versionAttributeDecidesTheRSSFlavour() throws {
        #expect(try parse(#"<rss version="0.91"><channel/></rss>"#).format == .rss091)
        #expect(try parse(#"<rss version="0.92"><channel/></rss>"#).format == .rss092)
        #expect(try parse(#"<rss version="0.94"><channel/></rss>"#).format == .rss20)
    }

    @Test func guidBecomesLinkWhenLinkIsMissingUnlessNotAPermalink() throws {
        let feed = try parse("""
            <rss version="2.0"><channel>
              <item><guid>https://example.org/a</guid></item>
              <item><guid isPermaLink="false">tag:example.org,2004:1</guid></item>
            </channel></rss>
            """)
        #expect(feed.entries.map(\.link) == ["https://example.org/a", nil])
        #expect(feed.entries.map(\.id) == ["https://example.org/a", "tag:example.org,2004:1"])
    }

    @Test func htmlTitlesBecomeTextButLiteralAngleBracketsStay() throws {
        let feed = try parse("""
            <rss><channel>
              <item><title>&lt;b&gt;Bold&lt;/b&gt; move</title></item>
              <item><title>Use &lt;blink&gt; wisely</title></item>
              <item><title>AT&amp;T</title></item>
            </channel></rss>
            """)
        #expect(feed.entries.map(\.title) == ["Bold move", "Use <blink> wisely", "AT&T"])
    }

    @Test func referencesInAnHTMLTitleAreDecodedOnceTagsAreGone() throws {
        let feed = try parse("""
            <rss><channel><item><title>&lt;b&gt;Café &amp;eacute; &amp;#150; &amp;#x2014; fish &amp; chips &amp;amp;&lt;/b&gt; \
            &amp;copy</title></item></channel></rss>
            """)
        // Named, decimal (cp1252's en dash for a C1 control) and hex references; a bare "&" and an
        // unterminated one stay as written.
        #expect(feed.entries.first?.title == "Café é – — fish & chips & &copy")
    }

    @Test func aSecondSummaryLikeElementBecomesContent() throws {
        let feed = try parse("""
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><item>
              <itunes:summary>short</itunes:summary><description>long</description>
            </item></channel></rss>
            """)
        #expect(feed.entries.first?.summary == "short")
        #expect(feed.entries.first?.content == "long")
    }

    @Test func mediaRSSGivesTheEntryImageAndCategories() throws {
        let feed = try parse("""
            <rss xmlns:media="http://search.yahoo.com/mrss/"><channel><item>
              <media:content url="http://example.org/v.mp4" type="video/mp4"/>
              <media:content url="http://example.org/p.jpg" medium="image"/>
              <media:keywords>one, two</media:keywords>
            </item></channel></rss>
            """)
        #expect(feed.entries.first?.image == "http://example.org/p.jpg")
        #expect(feed.entries.first?.categories == ["one", "two"])
    }

    @Test func syndicationHintsAreExposedForTheScheduler() throws {
        let feed = try parse("""
            <rss xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel>
              <sy:updatePeriod>hourly</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>
            </channel></rss>
            """)
        #expect(feed.updatePeriod == "hourly")
        #expect(feed.updateFrequency == 2)
    }

    @Test func rdfItemsAreSiblingsOfTheChannel() throws {
        let feed = try parse("""
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
                     xmlns:dc="http://purl.org/dc/elements/1.1/">
              <channel rdf:about="http://example.org/"><title>RDF</title></channel>
              <item rdf:about="http://example.org/1"><title>One</title><dc:date>2004-01-01T00:00:00Z</dc:date></item>
            </rdf:RDF>
            """)
        #expect(feed.format == .rss10)
        #expect(feed.title == "RDF")
        #expect(feed.entries.first?.id == "http://example.org/1")
        #expect(iso(feed.entries.first?.updated) == "2004-01-01T00:00:00Z")
    }

    @Test func channelDescriptionOutranksITunesSubtitleAndSummary() throws {
        let itunes = #"xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd""#
        let described = try parse("""
            <rss version="2.0" \(itunes)><channel><itunes:subtitle>Short</itunes:subtitle>
            <description>The description</description><itunes:summary>Long</itunes:summary></channel></rss>
            """)
        #expect(described.subtitle == "The description")
        let summaryOnly = try parse("""
            <rss version="2.0" \(itunes)><channel><itunes:summary>Long</itunes:summary></channel></rss>
            """)
        #expect(summaryOnly.subtitle == "Long")
    }

    @Test func aPersonWrittenInsideRSSAuthorGivesItsName() throws {
        let feed = try parse("""
            <rss version="2.0"><channel><item><title>Post</title>
            <author><email>jo@example.org</email><title>Editor</title></author></item>
            <item><title>Other</title><author>Plain Name</author></item></channel></rss>
            """)
        #expect(feed.entries.map(\.title) == ["Post", "Other"])
        #expect(feed.entries.map(\.author) == ["jo@example.org", "Plain Name"])
    }

    /// A large technology publisher's feeds list every item's categories inside `<categories>`; the
    /// list gives categories only, never the item's title, link or description.
    @Test func categoriesInsideAContainerAreTheItemsCategories() throws {
        let feed = try parse("""
            <rss version="2.0"><channel><title>Tech</title><item>
              <title>Chips</title><link>http://example.org/chips</link><description>About chips</description>
              <categories><category>Hardware</category><category domain="x">Semiconductors</category>
                <title>Not the title</title><link>http://example.org/not</link><description>Not it</description>
              </categories>
              <category>Hardware</category>
            </item></channel></rss>
            """)
        let entry = try #require(feed.entries.first)
        #expect(entry.categories == ["Hardware", "Semiconductors"])
        #expect(entry.title == "Chips")
        #expect(entry.link == "http://example.org/chips")
        #expect(entry.summary == "About chips")
        #expect(feed.title == "Tech")
    }
}
