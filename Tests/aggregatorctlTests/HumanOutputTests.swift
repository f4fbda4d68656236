@testable import aggregatorctl
import ControlProtocol
import Foundation
import Testing

@Suite struct HumanOutputTests {
    let now = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01T12:00:00Z

    @Test func showRendersTheArticleStructureWrappedWithFootnotes() {
        let article: JSONValue = [
            "title": "Swift 6 released", "feed_title": "Swift.org", "author": "Ann", "published": nil,
            "url": "https://swift.org/blog/swift-6/",
            "content": """
                <h2>What is new</h2><p>Data-race safety by default, and <a href="/docs">new docs</a> for
                everyone who writes concurrent code.</p><ul><li>Typed throws</li><li>Noncopyable generics
                everywhere</li></ul><blockquote>Quoted words</blockquote><pre>let x = 1</pre>
                """,
        ]
        let text = HumanOutput(styled: false, width: 40, now: now).render("show", ["article": article])
        #expect(text == """
            Swift 6 released
            Swift.org · Ann
            https://swift.org/blog/swift-6/

            ## What is new

            Data-race safety by default, and new
            docs[1] for everyone who writes
            concurrent code.

            • Typed throws
            • Noncopyable generics everywhere

            > Quoted words

                let x = 1

            Links:
              [1] https://swift.org/docs

            """)
    }

    @Test func theRefreshProgressLineCountsFailuresAndNeverWraps() {
        let output = HumanOutput(styled: false, width: 40, now: now)
        let progress: JSONValue = ["done": 12, "total": 300, "url": "https://feeds.example/a/very/long/path.xml", "ok": false]
        #expect(output.progressLine(progress, failed: 2) == "Refreshing 12/300, 2 failed: https://f…")
        #expect(HumanOutput(styled: false, width: 80, now: now).progressLine(["done": 1, "total": 2], failed: 0) == "Refreshing 1/2")
    }

    @Test func countsOfOneAreSingular() {
        let output = HumanOutput(styled: false, width: nil, now: now)
        let one: JSONValue = ["feeds": 1, "ok": 1, "not_modified": 0, "failed": 0, "new_entries": 1, "seconds": .number(0.5)]
        #expect(output.render("refresh", one) == "Refreshed 1 feed: 1 ok, 0 not modified, 0 failed, 1 new entry in 0.5 s\n")
        let two: JSONValue = ["feeds": 2, "ok": 2, "not_modified": 0, "failed": 0, "new_entries": 0, "seconds": .number(0.5)]
        #expect(output.render("refresh", two) == "Refreshed 2 feeds: 2 ok, 0 not modified, 0 failed, 0 new entries in 0.5 s\n")
        #expect(output.render("read", ["changed": 1]) == "Marked 1 article read\n")
        #expect(output.render("unstar", ["changed": 3]) == "Marked 3 articles unstarred\n")
    }

    @Test func tablesAndListingsFitATerminalButNotAPipe() {
        let feeds: JSONValue = ["feeds": [[
            "id": 1, "status": "ok", "unread": 3, "total": 10, "category": "Tech", "next_check_at": nil,
            "title": "A feed with a rather long title that goes on and on", "url": "https://a.example/feed",
        ]]]
        let fitted = HumanOutput(styled: false, width: 60, now: now).render("feeds", feeds)
        #expect(fitted.split(separator: "\n").allSatisfy { $0.count <= 60 }, "\(fitted)")
        #expect(fitted.contains("…"))
        let piped = HumanOutput(styled: false, width: nil, now: now).render("feeds", feeds)
        #expect(piped.contains("goes on and on"))

        let articles: JSONValue = ["articles": [[
            "id": 42, "read": false, "starred": true, "published": "2024-06-01T09:00:00Z", "feed_title": "Feed",
            "title": .string(String(repeating: "long title ", count: 12)),
            "snippet": .string("a \u{2}match\u{3} " + String(repeating: "x", count: 200)),
        ]], "next_cursor": nil]
        let listed = HumanOutput(styled: true, width: 70, now: now).render("articles", articles)
        let visible = listed.replacingOccurrences(of: "\u{1B}\\[[0-9]*m", with: "", options: .regularExpression)
        #expect(visible.split(separator: "\n").allSatisfy { $0.count <= 70 }, "\(visible)")
        #expect(visible.hasPrefix("42      ●★ 3h ago    Feed"))
        #expect(listed.hasSuffix("…\u{1B}[0m\n"), "a cut line ends its styling")
    }
}
