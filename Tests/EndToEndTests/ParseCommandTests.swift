import Foundation
import TestSupport
import Testing

@Suite struct ParseCommandTests {
    let cli = Binary("aggregatorctl")

    private func write(_ text: String, to name: String, in directory: URL) throws -> String {
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    @Test func oneFilePrintsOneSchemaObject() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write(#"<rss version="2.0"><channel><title>T</title><item><link>/a</link></item></channel></rss>"#,
                             to: "feed.xml", in: directory)
        let result = try cli.run(["parse", file, "--json", "--url", "http://example.org/feed"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "rss20")
        #expect(object["subtitle"] is NSNull)
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.first?["link"] as? String == "http://example.org/a")
        for key in ["id", "title", "summary", "content", "author", "published", "updated", "categories",
                    "enclosures", "image"] {
            #expect(entries.first?[key] != nil, "entry key \(key) must always be present")
        }
    }

    @Test func manyFilesGiveOneLineEachInArgumentOrder() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [String] = []
        for index in 0..<100 {
            files.append(try write("<rss><channel><title>Feed \(index)</title></channel></rss>",
                                   to: "f\(index).xml", in: directory))
        }
        let summary = try cli.run(["parse"] + files)
        #expect(summary.status == 0)
        let lines = summary.output.split(separator: "\n")
        #expect(lines.count == 100)
        #expect(lines.first == "\(files[0]): rss20, \"Feed 0\", 0 entries")
        #expect(lines.last?.contains("\"Feed 99\"") == true)
        let json = try cli.run(["parse", "--json"] + files)
        #expect(json.output.split(separator: "\n").count == 100)
    }

    @Test func brokenAndEmptyInputsStillPrintJSON() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in [("empty.xml", ""), ("html.xml", "<html><body>hi</body></html>"), ("cut.xml", "<rss><chan")] {
            let result = try cli.run(["parse", try write(text, to: name, in: directory), "--json"])
            #expect(result.status == 0)
            #expect(result.output.hasPrefix(#"{"format":"unknown""#) || result.output.hasPrefix(#"{"format":"rss20""#))
        }
    }

    @Test func aMissingFileFailsWithItsName() throws {
        let result = try cli.run(["parse", "/nonexistent/feed.xml"])
        #expect(result.status == 1)
        #expect(result.error.contains("/nonexistent/feed.xml: cannot read the file"))
    }

    @Test func missingFileArgumentIsAUsageError() throws {
        let result = try cli.run(["parse", "--json"])
        #expect(result.status == 2)
        #expect(result.error.contains("Missing expected argument 'FILE'"))
    }
}
