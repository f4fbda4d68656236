import ControlProtocol

/// The text of `--help` and `help COMMAND`: only commands that exist are listed.
enum Help {
    static let usage = "aggregatorctl [--socket PATH] [--json] COMMAND [ARGS]"

    static var overview: String {
        """
        OVERVIEW: aggregatorctl \(AggregatorVersion.current), the command-line client of aggregatord

        USAGE: \(usage)

        OPTIONS:
          --socket PATH     Control socket of the daemon (default: $AGGREGATOR_SOCKET, then the daemon's default)
          --json            Print results as JSON
          --version         Show the version
          -h, --help        Show this help

        COMMANDS:
        \(Command.all.map { "  " + $0.name.padding(to: 16) + "  " + $0.summary }.joined(separator: "\n"))

          See 'aggregatorctl help COMMAND' for a command's own help.
        """
    }

    /// The help of one command, or nil when there is no such command.
    static func text(for name: String) -> String? {
        guard let command = Command.all.first(where: { $0.name == name }) else { return nil }
        return """
            OVERVIEW: \(command.summary)

            USAGE: aggregatorctl \(command.usage)
            \(command.details.isEmpty ? "" : "\n" + command.details)
            """
    }
}

/// A command `aggregatorctl` knows: its name, one-line summary, usage and option details.
struct Command {
    let name: String
    let summary: String
    let usage: String
    let details: String

    private static let filters = """
        FILTERS:
          --category NAME         Articles of feeds in this category (cross-posts included)
          --feed FEED             Articles of this feed (id or URL)
          --unread, --starred     Only unread, only starred articles
          --since WHEN            Published at or after WHEN: a date (2024-06-01, 2024-06-01T12:00:00Z,
                                  RFC 822) or an age (30m, 12h, 7d, 2w, today, yesterday)
          --before WHEN           Published before WHEN (e.g. read --all --before 30d)
          --search QUERY          Words, "phrases", prefix*, -excluded and OR
          --sort ORDER            newest, oldest, title, or relevance (searches: the newest 1,000
                                  matches ranked); default newest, relevance for a search
          --limit N               Articles per page, 1-1000 (default 50)
          --cursor C              The next page, from the previous page's cursor
        """

    static let all: [Command] = [
        Command(name: "status", summary: "Show the daemon's state: feeds, entries, the last refresh round",
                usage: "status", details: ""),
        Command(name: "feeds", summary: "List subscribed feeds with unread counts, status and next check",
                usage: "feeds [--category NAME] [--failing]",
                details: "OPTIONS:\n  --category NAME         Only this category's feeds\n  --failing               Only feeds whose last fetch failed, with the reason"),
        Command(name: "categories", summary: "List categories with feed and article counts", usage: "categories", details: ""),
        Command(name: "add", summary: "Subscribe to a feed", usage: "add URL [--category NAME] [--title TEXT]",
                details: "ARGUMENTS:\n  URL                     An http(s) feed URL\n\nOPTIONS:\n  --category NAME         File it under this category (created if needed)\n  --title TEXT            Its title until the feed's own is known"),
        Command(name: "remove", summary: "Unsubscribe from a feed (starred and cross-posted articles stay)",
                usage: "remove FEED", details: "ARGUMENTS:\n  FEED                    A feed id or URL"),
        Command(name: "rename", summary: "Give a feed another title", usage: "rename FEED TITLE",
                details: "ARGUMENTS:\n  FEED                    A feed id or URL\n  TITLE                   Its new title (\"\" for the feed's own)"),
        Command(name: "move", summary: "File a feed under another category", usage: "move FEED CATEGORY",
                details: "ARGUMENTS:\n  FEED                    A feed id or URL\n  CATEGORY                The category (created if needed; \"\" for none)"),
        Command(name: "rename-category", summary: "Rename a category (into an existing name: merge the two)",
                usage: "rename-category NAME NEW_NAME", details: ""),
        Command(name: "import", summary: "Subscribe to every feed of an OPML file", usage: "import FILE.opml", details: ""),
        Command(name: "export", summary: "Write the subscriptions as OPML (to FILE, else standard output)",
                usage: "export [FILE]", details: ""),
        Command(name: "refresh", summary: "Fetch feeds now (all, or the ones named)", usage: "refresh [FEED...] [--wait]",
                details: "OPTIONS:\n  --wait                  Wait for the round and print its summary (progress on a terminal)"),
        Command(name: "articles", summary: "List articles, newest first", usage: "articles [FILTERS]", details: filters),
        Command(name: "search", summary: "Full-text search of titles, text and authors", usage: "search QUERY [FILTERS]",
                details: filters),
        Command(name: "watch", summary: "Print new articles as they are stored, one line each (JSON lines with --json)",
                usage: "watch [--category NAME] [--feed FEED] [--search QUERY] [--unread] [--starred] "
                    + "[--since WHEN] [--before WHEN]",
                details: "Runs until interrupted (Ctrl-C). Each line: id, feed, title, link."),
        Command(name: "show", summary: "Show one article as readable text", usage: "show ID",
                details: "Wrapped to the terminal (at most 100 columns): a header, the article's headings, paragraphs,\n"
                    + "lists, quotes and code, then its links as numbered footnotes."),
        Command(name: "read", summary: "Mark articles read (IDs, or --all with filters)", usage: "read ID...|--all [FILTERS]",
                details: filters),
        Command(name: "unread", summary: "Mark articles unread", usage: "unread ID...|--all [FILTERS]", details: filters),
        Command(name: "star", summary: "Star articles", usage: "star ID...|--all [FILTERS]", details: filters),
        Command(name: "unstar", summary: "Unstar articles", usage: "unstar ID...|--all [FILTERS]", details: filters),
        Command(name: "backup", summary: "Copy the database to FILE while the daemon runs (SQLite online backup)",
                usage: "backup FILE", details: "The daemon writes FILE: it must be a path the daemon's user can create."),
        ParseCommand.command,
        Command(name: "help", summary: "Show help for aggregatorctl or one of its commands",
                usage: "help [COMMAND]", details: ""),
    ]
}

extension String {
    /// The string left-aligned in a column `width` characters wide.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
