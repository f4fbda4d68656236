@testable import aggregatorctl
import Foundation
import Testing

/// Each command's help and its parsing come from one table (`Command.all`): every option the table
/// lists is taken, and the parser asks for no option the table does not list.
@Suite struct CommandTableTests {
    /// Arguments that make each command's line complete, so that only the option under test can fail it.
    static let positionals: [String: [String]] = [
        "add": ["https://example.org/feed"], "remove": ["1"], "rename": ["1", "Title"], "move": ["1", "News"],
        "rename-category": ["Old", "New"], "import": [opml], "search": ["words"], "show": ["1"],
        "read": ["1"], "unread": ["1"], "star": ["1"], "unstar": ["1"], "backup": ["/tmp/copy.db"],
        "parse": ["/dev/null"], "user": ["add", "zoe"], "token": ["list"], "edit": ["1"],
    ]

    /// An OPML file for `import`, which reads it before calling the daemon.
    static let opml: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("command-table.opml").path
        _ = FileManager.default.createFile(atPath: path, contents: Data("<opml><body/></opml>".utf8))
        return path
    }()

    /// A value each placeholder accepts.
    static let values: [String: String] = [
        "NAME": "World", "FEED": "1", "WHEN": "7d", "QUERY": "words", "ORDER": "oldest", "N": "5", "C": "next",
        "TEXT": "A title", "URL": "https://example.org/feed", "TYPE": "text/xml", "TAG": "en", "BYTES": "1000",
        "on|off": "on", "REGEX": "(?i)sponsored", "CSS": "article", "UA": "MyReader/1.0",
    ]

    /// Parses `aggregatorctl NAME ARGUMENTS` the way the CLI does once it knows the command.
    private func parse(_ command: Command, _ arguments: [String]) throws(UsageError) -> ArgumentReader {
        var reader = ArgumentReader(arguments)
        reader.restrict(to: command.optionNames)
        if command.name == "parse" {
            _ = try ParseCommand(arguments: &reader, json: false)
        } else {
            _ = try DaemonCommand(name: command.name, arguments: &reader)
            _ = try reader.positionals()  // as the CLI does: what is left must be no option
        }
        return reader
    }

    static let commands = Command.all.filter { $0.name != "help" }

    @Test(arguments: commands.map(\.name))
    func everyListedOptionIsTakenAndNothingUnlistedIsAskedFor(name: String) throws {
        let command = try #require(Command.all.first { $0.name == name })
        let positionals = Self.positionals[name] ?? []
        #expect(try parse(command, positionals).unlisted == [])
        for option in command.options + command.filters where option.name != "--json" {  // --json is global
            // --all stands instead of IDs.
            var arguments = option.name == "--all" ? [] : positionals
            arguments.append(option.name)
            if let placeholder = option.value { arguments.append(try #require(Self.values[placeholder], "\(placeholder)")) }
            let reader = try parse(command, arguments)
            #expect(reader.unlisted == [], "\(name) \(option.name)")
            #expect(command.usage.contains(option.name) || !option.isInUsage || !command.filters.isEmpty)
        }
    }

    @Test func anOptionAnotherCommandTakesIsUnknownHere() throws {
        let watch = try #require(Command.all.first { $0.name == "watch" })
        #expect(throws: UsageError("Unknown option '--limit'")) { try parse(watch, ["--limit", "5"]) }
        let read = try #require(Command.all.first { $0.name == "read" })
        #expect(throws: UsageError("Unknown option '--sort'")) { try parse(read, ["--all", "--sort", "title"]) }
        let feeds = try #require(Command.all.first { $0.name == "feeds" })
        #expect(throws: UsageError("Unknown option '--title'")) { try parse(feeds, ["--title", "x"]) }
    }
}
