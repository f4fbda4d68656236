import ControlProtocol

/// The text of `--help` and `help COMMAND`: only commands that exist are listed.
enum Help {
    static let usage = "aggregatorctl [--socket PATH] [--user NAME] [--json] COMMAND [ARGS]"

    static var overview: String {
        """
        OVERVIEW: aggregatorctl \(AggregatorVersion.current), the command-line client of aggregatord

        USAGE: \(usage)

        OPTIONS:
          --socket PATH     Control socket of the daemon (default: $AGGREGATOR_SOCKET, then the daemon's default)
          --user NAME       The account to act for (default: $AGGREGATOR_USER, else the first admin)
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

/// One option a command takes: its name, the placeholder of its value (nil for a flag), what it does.
struct OptionSpec {
    let name: String
    var value: String?
    let help: String
    /// False for an option the usage line already shows as an alternative (`ID...|--all`).
    var isInUsage = true

    /// `--name VALUE` or `--name`, as help shows it.
    var synopsis: String { value.map { "\(name) \($0)" } ?? name }
}

/// A command `aggregatorctl` knows. Its usage line and help are made from this one table, and the
/// parser takes exactly the options listed here (`ArgumentReader.restrict(to:)`), so the two cannot
/// drift apart.
struct Command {
    let name: String
    let summary: String
    /// The positional arguments as the usage line shows them: `URL`, `FEED...`, `ID...|--all`.
    var arguments = ""
    /// Each positional argument's explanation.
    var argumentHelp: [(name: String, help: String)] = []
    var options: [OptionSpec] = []
    /// Article filters, shown as `[FILTERS]` in the usage and listed under FILTERS.
    var filters: [OptionSpec] = []
    /// Text after the options.
    var notes = ""

    /// `name ARGUMENTS [--option VALUE]... [FILTERS]`.
    var usage: String {
        var parts = [name]
        if !arguments.isEmpty { parts.append(arguments) }
        parts += options.filter(\.isInUsage).map { "[\($0.synopsis)]" }
        if !filters.isEmpty { parts.append("[FILTERS]") }
        return parts.joined(separator: " ")
    }

    /// The ARGUMENTS, OPTIONS and FILTERS sections and the notes, each present when not empty.
    var details: String {
        func rows(_ entries: [(String, String)]) -> String {
            entries.map { entry in
                let lines = entry.1.split(separator: "\n", omittingEmptySubsequences: false)
                return (["  " + entry.0.padding(to: 22) + "  " + lines[0]]
                    + lines.dropFirst().map { String(repeating: " ", count: 26) + $0 }).joined(separator: "\n")
            }.joined(separator: "\n")
        }
        var sections: [String] = []
        if !argumentHelp.isEmpty { sections.append("ARGUMENTS:\n" + rows(argumentHelp.map { ($0.name, $0.help) })) }
        if !options.isEmpty { sections.append("OPTIONS:\n" + rows(options.map { ($0.synopsis, $0.help) })) }
        if !filters.isEmpty { sections.append("FILTERS:\n" + rows(filters.map { ($0.synopsis, $0.help) })) }
        if !notes.isEmpty { sections.append(notes) }
        return sections.joined(separator: "\n\n")
    }

    /// Every option the command takes.
    var optionNames: Set<String> { Set((options + filters).map(\.name)) }

    /// Which articles: the filters every article command takes.
    static let selection = [
        OptionSpec(name: "--category", value: "NAME", help: "Articles of feeds in this category (cross-posts included)"),
        OptionSpec(name: "--feed", value: "FEED", help: "Articles of this feed (id or URL)"),
        OptionSpec(name: "--unread", help: "Only unread articles"),
        OptionSpec(name: "--starred", help: "Only starred articles"),
        OptionSpec(name: "--since", value: "WHEN", help: "Published at or after WHEN: a date (2024-06-01, 2024-06-01T12:00:00Z,\n"
            + "RFC 822) or an age (30m, 12h, 7d, 2w, today, yesterday)"),
        OptionSpec(name: "--before", value: "WHEN", help: "Published before WHEN (e.g. read --all --before 30d)"),
        OptionSpec(name: "--search", value: "QUERY", help: "Words, \"phrases\", prefix*, -excluded and OR"),
    ]

    /// The filters of a listing: which articles, in which order, which page.
    static let listing = selection + [
        OptionSpec(name: "--sort", value: "ORDER", help: "newest, oldest, title, or relevance (searches: the newest 1,000\n"
            + "matches ranked); default newest, relevance for a search"),
        OptionSpec(name: "--limit", value: "N", help: "Articles per page, 1-1000 (default 50)"),
        OptionSpec(name: "--cursor", value: "C", help: "The next page, from the previous page's cursor"),
    ]

    private static let feedArgument = (name: "FEED", help: "A feed id or URL")

    private static func mark(_ name: String, _ summary: String) -> Command {
        Command(name: name, summary: summary, arguments: "ID...|--all",
                argumentHelp: [("ID", "An article number")],
                options: [OptionSpec(name: "--all", help: "Every article the filters select", isInUsage: false)],
                filters: selection)
    }

    static let all: [Command] = [
        Command(name: "status", summary: "Show the daemon's state: feeds, entries, the last refresh round"),
        Command(name: "feeds", summary: "List subscribed feeds with unread counts, status and next check",
                options: [OptionSpec(name: "--category", value: "NAME", help: "Only this category's feeds"),
                          OptionSpec(name: "--failing", help: "Only feeds whose last fetch failed, with the reason")]),
        Command(name: "categories", summary: "List categories with feed and article counts"),
        Command(name: "add", summary: "Subscribe to a feed", arguments: "URL",
                argumentHelp: [("URL", "An http(s) feed URL, or a page that links to one")],
                options: [OptionSpec(name: "--category", value: "NAME", help: "File it under this category (created if needed)"),
                          OptionSpec(name: "--title", value: "TEXT", help: "Its title until the feed's own is known")]),
        Command(name: "remove", summary: "Unsubscribe from a feed (starred and cross-posted articles stay)",
                arguments: "FEED", argumentHelp: [feedArgument]),
        Command(name: "rename", summary: "Give a feed another title", arguments: "FEED TITLE",
                argumentHelp: [feedArgument, ("TITLE", "Its new title (\"\" for the feed's own)")]),
        Command(name: "move", summary: "File a feed under another category", arguments: "FEED CATEGORY",
                argumentHelp: [feedArgument, ("CATEGORY", "The category (created if needed; \"\" for none)")]),
        Command(name: "edit", summary: "Change a feed's title, category, flags, rules, selector or fetch settings",
                arguments: "FEED", argumentHelp: [feedArgument],
                options: [OptionSpec(name: "--title", value: "TEXT", help: "Its title (\"\" for the feed's own)"),
                          OptionSpec(name: "--category", value: "NAME", help: "Its category (created if needed; \"\" for none)"),
                          OptionSpec(name: "--disabled", value: "on|off", help: "Stop or resume fetching it for you"),
                          OptionSpec(name: "--hide-globally", value: "on|off", help: "Keep it out of global listings (Miniflux)"),
                          OptionSpec(name: "--block", value: "REGEX", help: "Hide entries whose title, URL or author match (\"\" clears)"),
                          OptionSpec(name: "--keep", value: "REGEX", help: "Show only entries whose title, URL or author match"),
                          OptionSpec(name: "--scraper", value: "CSS", help: "Where its pages' article is (tags, #id, .class)"),
                          OptionSpec(name: "--user-agent", value: "UA", help: "Fetch it as this user agent (\"\" for ours)"),
                          OptionSpec(name: "--username", value: "NAME", help: "HTTP Basic user name (\"\" for none)"),
                          OptionSpec(name: "--password-stdin", help: "HTTP Basic password: a line of standard input"),
                          OptionSpec(name: "--cookie-stdin", help: "Cookie header (a=b; c=d): a line of standard input"),
                          OptionSpec(name: "--ignore-cache", value: "on|off", help: "Send no ETag or Last-Modified"),
                          OptionSpec(name: "--crawler", value: "on|off", help: "Show each new entry's page article, not the feed's text"),
                          OptionSpec(name: "--self-signed", value: "on|off",
                                     help: "Accept a certificate no authority signed (admins)")]),
        Command(name: "rename-category", summary: "Rename a category (into an existing name: merge the two)",
                arguments: "NAME NEW_NAME"),
        Command(name: "import", summary: "Subscribe to every feed of an OPML file", arguments: "FILE.opml"),
        Command(name: "export", summary: "Write the subscriptions as OPML (to FILE, else standard output)",
                arguments: "[FILE]"),
        Command(name: "refresh", summary: "Fetch feeds now, due or not (all, or the ones named)", arguments: "[FEED...]",
                options: [OptionSpec(name: "--wait", help: "Wait for the round and print its summary (progress on a terminal)")]),
        Command(name: "articles", summary: "List articles, newest first", filters: listing),
        Command(name: "search", summary: "Full-text search of titles, text and authors", arguments: "QUERY",
                filters: listing),
        Command(name: "watch", summary: "Print new articles as they are stored, one line each (JSON lines with --json)",
                filters: selection, notes: "Runs until interrupted (Ctrl-C). Each line: id, feed, title, link."),
        Command(name: "show", summary: "Show one article as readable text", arguments: "ID",
                notes: "Wrapped to the terminal (at most 100 columns): a header, the article's headings, paragraphs,\n"
                    + "lists, quotes and code, then its links as numbered footnotes."),
        mark("read", "Mark articles read (IDs, or --all with filters)"),
        mark("unread", "Mark articles unread"),
        mark("star", "Star articles"),
        mark("unstar", "Unstar articles"),
        Command(name: "backup", summary: "Copy the database to FILE while the daemon runs (SQLite online backup)",
                arguments: "FILE", notes: "The daemon writes FILE: it must be a path the daemon's user can create."),
        Command(name: "user", summary: "Add, list, show, rename and remove accounts; set passwords and admins",
                arguments: "list | show [NAME] | add NAME [--admin] | set NAME | rename OLD NEW | remove NAME\n"
                    + "                 | admin NAME on|off | fever on|off",
                argumentHelp: [("list", "List the accounts: id, name, admin, created, last login, feeds, unread"),
                               ("show [NAME]", "Show an account (default: --user's, else the first admin): its dates,\n"
                                    + "API tokens and whether Fever is on"),
                               ("add NAME [--admin]", "Create an account (a regular one, or an admin), with its category\n"
                                    + "\"All\"; its password is asked for as with 'set'"),
                               ("set NAME", "Set NAME's password, creating a regular account NAME when there is\n"
                                    + "none; on a new server, the first account (an admin) takes NAME.\n"
                                    + "The password is read from standard input (its first line) when that\n"
                                    + "is not a terminal, else asked for twice. At least 8 characters."),
                               ("rename OLD NEW", "Rename an account (its tokens and sessions stay; Fever turns off)"),
                               ("remove NAME", "Remove an account: its subscriptions, categories, marks, tokens and\n"
                                    + "sessions go; feeds others follow stay. Not the last admin."),
                               ("admin NAME on|off", "Make an account an admin, or a regular one (not the last admin)"),
                               ("fever on|off", "Let --user's Fever clients log in (off by default). On asks for its\n"
                                    + "password: Fever's key is md5 of NAME:PASSWORD, stored as such (weak:\n"
                                    + "docs/reader-apps.md, \"Fever\"). A new password turns Fever off again.")],
                options: [OptionSpec(name: "--admin", help: "With add: make the new account an admin", isInUsage: false)]),
        Command(name: "token", summary: "Create, list or revoke API tokens for apps (X-Auth-Token)",
                arguments: "create [LABEL] | list | revoke ID|LABEL",
                argumentHelp: [("create [LABEL]", "Print a new token once, on one line (label default: token-N)"),
                               ("list", "List tokens: id, label, created, last used (never the tokens)"),
                               ("revoke ID|LABEL", "Revoke a token: apps using it are refused from then on")],
                notes: "Tokens are stored hashed: a lost token cannot be shown again; revoke it and create another."),
        ParseCommand.command,
        Command(name: "help", summary: "Show help for aggregatorctl or one of its commands", arguments: "[COMMAND]"),
    ]
}

extension String {
    /// The string left-aligned in a column `width` characters wide.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
