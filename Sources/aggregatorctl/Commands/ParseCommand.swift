import Dispatch
import FeedParser
import FoundationEssentials
import Glibc

/// `aggregatorctl parse FILE...|- [--json] [--url U] [--content-type T] [--content-language L]`:
/// parses feed files locally, no daemon needed.
struct ParseCommand {
    static let command = Command(
        name: "parse", summary: "Parse feed files locally and print what was read (no daemon needed)",
        arguments: "FILE...|-",
        argumentHelp: [("FILE", "A feed document (RSS, RDF, Atom, JSON Feed), or - for standard input")],
        options: [
            OptionSpec(name: "--json", help: "Print the normalized feed as JSON, one object per line per file"),
            OptionSpec(name: "--url", value: "URL", help: "The document's URL, the base for relative links"),
            OptionSpec(name: "--content-type", value: "TYPE", help: "The HTTP Content-Type it was served with (its charset counts)"),
            OptionSpec(name: "--content-language", value: "TAG", help: "The HTTP Content-Language it was served with (e.g. en-US)"),
            OptionSpec(name: "--max-size", value: "BYTES", help: "Refuse documents larger than this (default 16777216)"),
        ],
        notes: """
            Without --json, prints one line per file: format, title, entries and any problems.
            Files are parsed in parallel; output keeps the order of the arguments.
            """)

    let files: [String]
    let source: ParsedFeed.Source
    let json: Bool

    init(arguments reader: inout ArgumentReader, json: Bool) throws(UsageError) {
        let url = try reader.option("--url")
        let contentType = try reader.option("--content-type")
        let contentLanguage = try reader.option("--content-language")
        var maximumSize = 16 << 20
        if let size = try reader.option("--max-size") {
            guard let bytes = Int(size), bytes > 0 else { throw UsageError("Invalid value '\(size)' for '--max-size'") }
            maximumSize = bytes
        }
        files = try reader.positionals()
        guard !files.isEmpty else { throw UsageError("Missing expected argument 'FILE'") }
        source = ParsedFeed.Source(documentURL: url, contentType: contentType, contentLanguage: contentLanguage,
                                   maximumSize: maximumSize)
        self.json = json
    }

    /// Parses every file, printing results in argument order; fails when a file could not be read.
    func run(output: ([UInt8]) -> Void, error: (String) -> Void) -> ExitCode {
        if files.count == 1, json { return runStreaming(output: output, error: error) }
        var failed = false
        let files = self.files
        let source = self.source
        let json = self.json
        // Workers parse and format; this thread only writes, in order.
        let queue = OrderedWorkQueue<Result<[UInt8], ParseFailure>>(count: files.count) { index in
            Self.parse(files[index], source: source).map { feed in
                json ? feed.schemaJSONLine() : Array((Self.summary(of: feed, file: files[index]) + "\n").utf8)
            }
        }
        queue.run { index, result in
            switch result {
            case .success(let line):
                output(line)
            case .failure(let reason):
                failed = true
                error("Error: \(files[index]): \(reason)\n")
            }
        }
        return failed ? .failure : .success
    }

    /// One file: parsed here and its JSON written as it is produced.
    private func runStreaming(output: ([UInt8]) -> Void, error: (String) -> Void) -> ExitCode {
        switch Self.parse(files[0], source: source) {
        case .success(let feed):
            var json = JSONWriter(capacity: 65_536 + 4_096)
            withoutActuallyEscaping(output) { feed.writeSchemaJSON(to: &json, flush: $0) }
            json.raw("\n")
            output(json.bytes)
            return .success
        case .failure(let reason):
            error("Error: \(files[0]): \(reason)\n")
            return .failure
        }
    }

    private static func parse(_ file: String, source: ParsedFeed.Source) -> Result<ParsedFeed, ParseFailure> {
        let data: Data
        if file == "-" {
            data = Data(StandardStreams.readAllInput())
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                return .failure(ParseFailure(description: "cannot read the file"))
            }
            data = contents
        }
        do {
            return .success(try ParsedFeed(parsing: data, source: source))
        } catch {
            return .failure(ParseFailure(description: error.description))
        }
    }

    static func summary(of feed: ParsedFeed, file: String) -> String {
        var line = "\(file): \(feed.format.rawValue)"
        line += ", \"\(feed.title ?? "untitled")\""
        line += ", \(feed.entries.count) \(feed.entries.count == 1 ? "entry" : "entries")"
        if !feed.problems.isEmpty { line += ", problems: " + feed.problems.joined(separator: "; ") }
        return line
    }
}

struct ParseFailure: Error, CustomStringConvertible {
    let description: String
}
