import ControlProtocol
import FeedParser
import FoundationEssentials
import Glibc

/// The commands that talk to the daemon: each turns its arguments into one JSON-RPC call and
/// prints the result, as JSON with `--json` or as aligned text.
struct DaemonCommand {
    static let userSubcommands = "list, show [NAME], add NAME [--admin], set NAME, rename OLD NEW, remove NAME, admin NAME on|off or fever on|off"

    let name: String
    let method: ControlMethod
    var params: JSONValue
    /// Where `export` writes the OPML, when given.
    var outputFile: String?
    /// Which password the CLI reads (standard input or a prompt) into params["password"].
    var needsPassword = PasswordReader.Kind.none
    /// The settings (`edit`'s password and cookie) the CLI reads from standard input, a line each in
    /// this order, into params["settings"] ("" clears one).
    var secretsFromStandardInput: [String] = []

    /// Reads the command's own arguments.
    /// - Throws: `UsageError` for anything it does not understand.
    init(name: String, arguments reader: inout ArgumentReader) throws(UsageError) {
        self.name = name
        switch name {
        case "status":
            method = .status
            params = [:]
        case "feeds":
            method = .feedsList
            params = ["category": .from(try reader.option("--category")), "failing": .bool(reader.flag("--failing"))]
        case "categories":
            method = .categoriesList
            params = [:]
        case "add":
            let category = try reader.option("--category")
            let title = try reader.option("--title")
            method = .feedsAdd
            params = ["url": .string(try Self.single(reader, "URL")), "category": .from(category), "title": .from(title)]
        case "remove":
            method = .feedsRemove
            params = ["feed": .string(try Self.single(reader, "FEED"))]
        case "rename":
            let (feed, title) = try Self.pair(reader, "FEED", "TITLE")
            method = .feedsUpdate
            params = ["feed": .string(feed), "title": .string(title)]
        case "move":
            let (feed, category) = try Self.pair(reader, "FEED", "CATEGORY")
            method = .feedsUpdate
            params = ["feed": .string(feed), "category": .string(category)]
        case "edit":
            (method, params) = try Self.edit(&reader, secretsFromStandardInput: &secretsFromStandardInput)
        case "rename-category":
            let (name, newName) = try Self.pair(reader, "NAME", "NEW_NAME")
            guard !newName.isEmpty else { throw UsageError("'NEW_NAME' must not be empty") }
            method = .categoriesRename
            params = ["name": .string(name), "new_name": .string(newName)]
        case "import":
            method = .feedsImport
            params = ["opml": .string(try Self.contents(of: try Self.single(reader, "FILE.opml")))]
        case "export":
            let files = try reader.positionals()
            guard files.count <= 1 else { throw UsageError("Unexpected argument '\(files[1])'") }
            method = .feedsExport
            params = [:]
            outputFile = files.first
        case "refresh":
            let wait = reader.flag("--wait")
            method = .refresh
            params = ["feeds": .array(try reader.positionals().map(JSONValue.string)), "wait": .bool(wait)]
        case "articles", "search":
            var filter = try Self.filter(&reader)
            if name == "search" { filter["query"] = .string(try Self.single(reader, "QUERY")) }
            else { _ = try Self.none(reader) }
            method = .articlesList
            params = .object(filter)
        case "backup":
            method = .backup
            params = ["path": .string(Self.absolute(try Self.single(reader, "FILE")))]  // the daemon writes it
        case "watch":
            // Which articles only: a watch prints them as they come, so --sort, --limit and --cursor
            // mean nothing here and are refused as unknown rather than dropped.
            let filter = try Self.selection(&reader)
            _ = try Self.none(reader)
            method = .eventsSubscribe
            params = .object(filter)
        case "show":
            guard let id = Int(try Self.single(reader, "ID")) else { throw UsageError("'ID' must be an article number") }
            method = .articlesGet
            params = ["id": .from(id)]
        case "read", "unread", "star", "unstar":
            (method, params) = try Self.mark(name, &reader)
        case "user":
            (method, params, needsPassword) = try Self.user(&reader)
        case "token":
            (method, params) = try Self.token(&reader)
        default:
            throw UsageError("Unknown command '\(name)'")
        }
    }

    /// The text of `file`.
    private static func contents(of file: String) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("Cannot read '\(file)'") }
        return String(decoding: data, as: UTF8.self)
    }

    /// `file` as an absolute path (against the current directory).
    private static func absolute(_ file: String) -> String {
        file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
    }

    /// `edit FEED`: Miniflux's names for what changes ("" clears a rule or selector; on/off for flags).
    private static func edit(_ reader: inout ArgumentReader,
                             secretsFromStandardInput: inout [String]) throws(UsageError) -> (ControlMethod, JSONValue) {
        var settings: [String: JSONValue] = [:]
        for (option, key) in [("--title", "title"), ("--category", "category"), ("--block", "blocklist_rules"),
                              ("--keep", "keeplist_rules"), ("--scraper", "scraper_rules"), ("--user-agent", "user_agent"),
                              ("--username", "username")] {
            if let value = try reader.option(option) { settings[key] = .string(value) }
        }
        // Secrets never go on the command line (other users see it in ps): read from standard input
        // once the arguments are understood (`secretsFromStandardInput`).
        for (option, key) in [("--password-stdin", "password"), ("--cookie-stdin", "cookie")] where reader.flag(option) {
            secretsFromStandardInput.append(key)
        }
        for (option, key) in [("--disabled", "disabled"), ("--hide-globally", "hide_globally"),
                              ("--ignore-cache", "ignore_http_cache"), ("--self-signed", "allow_self_signed_certificates"),
                              ("--crawler", "crawler")] {
            guard let value = try reader.option(option) else { continue }
            guard ["on", "off"].contains(value) else { throw UsageError("'\(option)' takes on or off") }
            settings[key] = .bool(value == "on")
        }
        return (.feedsUpdate, ["feed": .string(try single(reader, "FEED")), "settings": .object(settings)])
    }

    /// `read`, `unread`, `star`, `unstar`: article ids, or `--all` with the filters.
    private static func mark(_ name: String, _ reader: inout ArgumentReader) throws(UsageError) -> (ControlMethod, JSONValue) {
        let all = reader.flag("--all")
        let filter = try selection(&reader)  // a mark has no order or pages
        let ids = try reader.positionals()
        let flag: [String: JSONValue] = switch name {
        case "read": ["read": true]
        case "unread": ["read": false]
        case "star": ["starred": true]
        default: ["starred": false]
        }
        if all {
            guard ids.isEmpty else { throw UsageError("Give article IDs or --all, not both") }
            return (.articlesMark, .object(flag.merging(["filter": .object(filter)]) { $1 }))
        } else {
            guard !ids.isEmpty else { throw UsageError("Missing expected argument 'ID' (or --all with filters)") }
            let numbers = ids.compactMap { Int($0) }
            guard numbers.count == ids.count else { throw UsageError("Article IDs must be numbers") }
            return (.articlesMark, .object(flag.merging(["ids": .array(numbers.map { .from($0) })]) { $1 }))
        }
    }

    /// `user …`: the account commands (admins' and one's own).
    private static func user(_ reader: inout ArgumentReader) throws(UsageError) -> (ControlMethod, JSONValue, PasswordReader.Kind) {
        let admin = reader.flag("--admin")
        let arguments = try reader.positionals()
        if admin, arguments.first != "add" { throw UsageError("--admin goes with 'user add NAME'") }
        switch arguments.first {
        case "set":
            guard arguments.count >= 2 else { throw UsageError("Missing expected argument 'NAME'") }
            guard arguments.count == 2 else { throw UsageError("Unexpected argument '\(arguments[2])'") }
            return (.userSet, ["name": .string(arguments[1])], .new)
        case "add":
            guard arguments.count >= 2 else { throw UsageError("Missing expected argument 'NAME'") }
            guard arguments.count == 2 else { throw UsageError("Unexpected argument '\(arguments[2])'") }
            return (.userAdd, ["name": .string(arguments[1]), "admin": .bool(admin)], .new)
        case "remove":
            guard arguments.count >= 2 else { throw UsageError("Missing expected argument 'NAME'") }
            guard arguments.count == 2 else { throw UsageError("Unexpected argument '\(arguments[2])'") }
            return (.userRemove, ["name": .string(arguments[1])], .none)
        case "admin":
            guard arguments.count == 3, ["on", "off"].contains(arguments[2]) else {
                throw UsageError("Use 'user admin NAME on' or 'user admin NAME off'")
            }
            return (.userAdmin, ["name": .string(arguments[1]), "admin": .bool(arguments[2] == "on")], .none)
        case "show":
            guard arguments.count <= 2 else { throw UsageError("Unexpected argument '\(arguments[2])'") }
            return (.userShow, ["name": .from(arguments.dropFirst().first)], .none)
        case "list":
            guard arguments.count == 1 else { throw UsageError("Unexpected argument '\(arguments[1])'") }
            return (.userList, [:], .none)
        case "rename":
            guard arguments.count >= 3 else { throw UsageError("Missing expected argument '\(arguments.count == 1 ? "OLD" : "NEW")'") }
            guard arguments.count == 3 else { throw UsageError("Unexpected argument '\(arguments[3])'") }
            return (.userRename, ["name": .string(arguments[1]), "new_name": .string(arguments[2])], .none)
        case "fever":
            guard arguments.count == 2, ["on", "off"].contains(arguments[1]) else {
                throw UsageError("Use 'user fever on' or 'user fever off'")
            }
            return (.userFever, ["enabled": .bool(arguments[1] == "on")], arguments[1] == "on" ? .current : .none)
        case nil: throw UsageError("Missing expected argument: \(userSubcommands)")
        case let other?: throw UsageError("Unknown subcommand 'user \(other)': use \(userSubcommands)")
        }
    }

    /// `token create [LABEL]`, `token list`, `token revoke ID|LABEL`.
    private static func token(_ reader: inout ArgumentReader) throws(UsageError) -> (ControlMethod, JSONValue) {
        let arguments = try reader.positionals()
        switch (arguments.first, arguments.count) {
        case ("create", 1...2):
            return (.tokenCreate, ["label": .from(arguments.dropFirst().first)])
        case ("list", 1):
            return (.tokenList, [:])
        case ("revoke", 2):
            return (.tokenRevoke, ["token": .string(arguments[1])])
        case ("revoke", 1): throw UsageError("Missing expected argument 'ID|LABEL'")
        case ("create", _), ("list", _), ("revoke", _): throw UsageError("Unexpected argument '\(arguments.last ?? "")'")
        case (nil, _): throw UsageError("Missing expected argument: create [LABEL], list or revoke ID|LABEL")
        case (let other?, _): throw UsageError("Unknown subcommand 'token \(other)': use create, list or revoke")
        }
    }

    /// The article filters shared by `articles`, `search` and the mark commands.
    /// The filters and the paging of a listing.
    private static func filter(_ reader: inout ArgumentReader) throws(UsageError) -> [String: JSONValue] {
        var filter = try selection(&reader)
        if let sort = try reader.option("--sort") {
            guard ["newest", "oldest", "title", "relevance"].contains(sort) else {
                throw UsageError("Invalid value '\(sort)' for '--sort': use newest, oldest, title or relevance")
            }
            filter["sort"] = .string(sort)
        }
        if let limit = try reader.option("--limit") {
            guard let number = Int(limit), (1...1000).contains(number) else {
                throw UsageError("Invalid value '\(limit)' for '--limit': use 1 to 1000")
            }
            filter["limit"] = .from(number)
        }
        if let cursor = try reader.option("--cursor") { filter["cursor"] = .string(cursor) }
        return filter
    }

    /// Which articles: category, feed, unread, starred, since, before, search.
    private static func selection(_ reader: inout ArgumentReader) throws(UsageError) -> [String: JSONValue] {
        var filter: [String: JSONValue] = [:]
        if let category = try reader.option("--category") { filter["category"] = .string(category) }
        if let feed = try reader.option("--feed") { filter["feed"] = .string(feed) }
        if reader.flag("--unread") { filter["unread"] = true }
        if reader.flag("--starred") { filter["starred"] = true }
        if let since = try reader.option("--since") { filter["since"] = .string(try WhenArgument(since).value) }
        if let before = try reader.option("--before") {
            filter["before"] = .string(try WhenArgument(before, option: "--before").value)
        }
        if let query = try reader.option("--search") { filter["query"] = .string(query) }
        return filter
    }

    private static func single(_ reader: ArgumentReader, _ name: String) throws(UsageError) -> String {
        let values = try reader.positionals()
        guard let first = values.first else { throw UsageError("Missing expected argument '\(name)'") }
        guard values.count == 1 else { throw UsageError("Unexpected argument '\(values[1])'") }
        return first
    }

    private static func pair(_ reader: ArgumentReader, _ first: String,
                             _ second: String) throws(UsageError) -> (String, String) {
        let values = try reader.positionals()
        guard values.count >= 1 else { throw UsageError("Missing expected argument '\(first)'") }
        guard values.count >= 2 else { throw UsageError("Missing expected argument '\(second)'") }
        guard values.count == 2 else { throw UsageError("Unexpected argument '\(values[2])'") }
        return (values[0], values[1])
    }

    private static func none(_ reader: ArgumentReader) throws(UsageError) -> Void {
        if let extra = try reader.positionals().first { throw UsageError("Unexpected argument '\(extra)'") }
    }
}
