import ControlProtocol
import Foundation
import TestSupport
import Testing

@Suite struct ControlCLITests {
    let cli = Binary("aggregatorctl")

    @Test func helpAndVersionExitZero() throws {
        let help = try cli.run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("OVERVIEW: aggregatorctl"))
        let version = try cli.run(["--version"])
        #expect(version.output == "aggregatorctl \(AggregatorVersion.current)\n")
    }

    @Test func usageErrorsExitTwoOnStandardError() throws {
        let result = try cli.run(["--verbos"])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error.contains("Usage: aggregatorctl"))
    }
}

/// `aggregatorctl edit`: a feed's title, flags, filter rules and article selector, for the account
/// acting; bad values are refused and change nothing.
@Suite struct EditCommandTests {
    @Test func editChangesAFeedsSettingsForItsAccountOnly() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon.withReaderFeeds(server)
        defer { daemon.stop() }
        let many = server.url("/many.xml")
        func count(_ arguments: [String]) throws -> Int {
            let listed = try daemon.ctl(arguments + ["articles", "--feed", many, "--limit", "1000", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
            return (object?["articles"] as? [Any])?.count ?? -1
        }
        #expect(try count([]) == 250)
        let edited = try daemon.ctl(["edit", many, "--block", "(?i)item 1\\d\\b", "--title", "Many, filtered", "--json"])
        #expect(edited.status == 0, "\(edited.error)")
        #expect(edited.output.contains("Many, filtered"))
        #expect(try count([]) == 240, "Item 10 to Item 19 hidden")
        #expect(try count(["--user", "neighbour"]) == 250, "the neighbour's feed is its own")
        let refused = try daemon.ctl(["edit", many, "--scraper", "div > p"])
        #expect(refused.status == 1 && refused.error.contains("not understood"), "\(refused.error)")
        #expect(try daemon.ctl(["edit", many, "--disabled", "maybe"]).status == 2)
        let nothing = try daemon.ctl(["edit", many])
        #expect(nothing.status != 0 && nothing.error.contains("say what to change"), "\(nothing.error)")
        #expect(try daemon.ctl(["edit", many, "--block", ""]).status == 0)
        #expect(try count([]) == 250)
    }
}
