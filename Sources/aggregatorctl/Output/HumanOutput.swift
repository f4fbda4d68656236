import ControlProtocol
import FeedParser
import FoundationEssentials
import Glibc

/// Aligned, readable text for each command's result. Colour and bold only on a terminal without NO_COLOR;
/// on a terminal, tables and listings fit its width (a pipe gets every line whole, for scripts).
struct HumanOutput {
    let styled: Bool
    /// The terminal's width, or nil when the output is not a terminal.
    let width: Int?
    let now: Date

    init(styled: Bool, width: Int? = nil, now: Date = Date()) {
        self.styled = styled
        self.width = width
        self.now = now
    }

    func render(_ command: String, _ result: JSONValue) -> String {
        switch command {
        case "status": status(result)
        case "feeds": feeds(result["feeds"]?.array ?? [])
        case "categories": table(["CATEGORY", "FEEDS", "UNREAD", "TOTAL"], (result["categories"]?.array ?? []).map {
            [$0["name"]?.string ?? "", number($0["feeds"]), number($0["unread"]), number($0["total"])]
        })
        case "add": added(result)
        case "remove": "Removed feed \(number(result["removed"]))\n"
        case "rename", "move":
            "Feed \(number(result["feed"]?["id"])): \(result["feed"]?["title"]?.string ?? result["feed"]?["url"]?.string ?? "")"
                + " (\(result["feed"]?["category"]?.string ?? "no category"))\n"
        case "rename-category":
            "Category \(result["category"]?["name"]?.string ?? ""): \(count(result["category"]?["feeds"], "feed")), "
                + "\(number(result["category"]?["unread"])) unread\n"
        case "backup": "Backed up the database to \(result["path"]?.string ?? "") (\(bytes(result["bytes"]?.number ?? 0)))\n"
        case "import": "Imported \(count(result["added"], "feed")) (\(number(result["skipped"])) already subscribed, "
            + "\(number(result["invalid"])) not http(s))\n"
            + (result["refused"]?.array ?? []).map { "Refused \($0["url"]?.string ?? ""): \($0["reason"]?.string ?? "")\n" }.joined()
        case "export": result["opml"]?.string ?? ""
        case "refresh":
            if let queued = result["queued"] { "Refresh of \(count(queued, "feed")) started (add --wait to wait for it)\n" }
            else { "Refreshed \(count(result["feeds"], "feed")): \(number(result["ok"])) ok, \(number(result["not_modified"])) "
                + "not modified, \(number(result["failed"])) failed, \(count(result["new_entries"], "new entry", "new entries")) "
                + "in \(printf("%.1f", result["seconds"]?.number ?? 0)) s\n" }
        case "articles", "search": articles(result)
        case "show": article(result["article"] ?? .null)
        case "read", "unread", "star", "unstar": "Marked \(count(result["changed"], "article")) \(command == "star" ? "starred" : command == "unstar" ? "unstarred" : command)\n"
        case "user":
            if let removed = result["removed"] {
                "Removed user \(removed["name"]?.string ?? "") and its \(count(removed["feeds"], "subscription"))\n"
            } else {
                result["users"].map { users($0.array ?? []) } ?? user(result["user"] ?? .null)
            }
        case "token": token(result)
        default: String(decoding: result.encoded(pretty: true), as: UTF8.self) + "\n"
        }
    }

    private func user(_ user: JSONValue) -> String {
        let name = user["name"]?.string ?? ""
        let password = user["has_password"]?.bool == false ? ", no password yet (set one with 'aggregatorctl user set NAME')" : ""
        return "User \(bold(name))\(user["admin"]?.bool == true ? " (admin)" : ""): created \(relative(user["created_at"]?.string)), "
            + "changed \(relative(user["updated_at"]?.string)), last login \(lastLogin(user)), "
            + "\(count(user["tokens"], "API token")), Fever \(user["fever"]?.bool == true ? "on" : "off")\(password)\n"
            + "  Usage: \(count(user["usage"]?["subscriptions"], "subscription")), "
            + "\(count(user["usage"]?["tokens"], "token")), \(count(user["usage"]?["entries_imported"], "entry imported", "entries imported"))\n"
    }

    private func users(_ users: [JSONValue]) -> String {
        table(["ID", "NAME", "ADMIN", "CREATED", "LAST LOGIN", "FEEDS", "UNREAD"], users.map {
            [number($0["id"]), $0["name"]?.string ?? "", $0["admin"]?.bool == true ? "yes" : "no", relative($0["created"]?.string),
             lastLogin($0), number($0["feeds"]), number($0["unread"])]
        })
    }

    private func lastLogin(_ user: JSONValue) -> String {
        user["last_login"]?.string == nil ? "never" : relative(user["last_login"]?.string)
    }

    private func token(_ result: JSONValue) -> String {
        if let secret = result["token"]?.string { return secret + "\n" }  // one line, for scripts to capture
        if let revoked = result["revoked"] {
            return "Revoked token \(number(revoked["id"])) (\(revoked["label"]?.string ?? ""))\n"
        }
        let tokens = result["tokens"]?.array ?? []
        guard !tokens.isEmpty else { return "No API tokens: create one with 'aggregatorctl token create [LABEL]'\n" }
        return table(["ID", "LABEL", "CREATED", "LAST USED"], tokens.map {
            [number($0["id"]), $0["label"]?.string ?? "", relative($0["created_at"]?.string),
             $0["last_used_at"]?.string == nil ? "never" : relative($0["last_used_at"]?.string)]
        })
    }

    // MARK: - Commands

    private func status(_ result: JSONValue) -> String {
        let feeds = result["feeds"] ?? [:]
        var lines = [
            ("Version", result["version"]?.string ?? ""),
            ("Uptime", duration(result["uptime_s"]?.number ?? 0)),
            ("Database", "\(result["database"]?.string ?? "") (\(bytes(result["database_bytes"]?.number ?? 0)))"),
            ("Feeds", "\(number(feeds["ok"])) ok, \(number(feeds["failing"])) failing, \(number(feeds["disabled"])) disabled"),
            ("Entries", "\(number(result["entries"])) (\(number(result["unread"])) unread)"),
        ]
        if let round = result["last_round"], !round.isNull {
            lines.append(("Last round", "\(relative(round["finished"]?.string)): \(count(round["feeds"], "feed")), "
                          + "\(number(round["ok"])) ok, \(number(round["not_modified"])) not modified, "
                          + "\(number(round["failed"])) failed, \(number(round["new_entries"])) new, "
                          + printf("%.1f s", round["seconds"]?.number ?? 0)))
        } else {
            lines.append(("Last round", "none yet"))
        }
        lines.append(("Next due", relative(result["next_due"]?.string)))
        for node in result["nodes"]?.array ?? [] {
            lines.append(("Node", "\(node["name"]?.string ?? ""): started \(relative(node["started"]?.string)), "
                          + "heartbeat \(relative(node["last_heartbeat"]?.string)), \(count(node["feeds_claimed"], "feed")) claimed, "
                          + "\(number(node["last_round_fetches"])) fetched in its last round"))
        }
        return lines.map { "\($0.0 + ":")".padding(to: 12) + $0.1 }.joined(separator: "\n") + "\n"
    }

    private func added(_ result: JSONValue) -> String {
        let feed = result["feed"] ?? .null
        var text = "Added feed \(number(feed["id"])): \(feed["url"]?.string ?? "")"
            + (feed["category"]?.string.map { " (\($0))" } ?? "") + "\n"
        let candidates = result["candidates"]?.array ?? []
        if candidates.count > 1 {
            text += "The page links to \(candidates.count) feeds; this is the first. The others:\n"
            text += candidates.dropFirst().map { "  \($0["url"]?.string ?? "")" + ($0["title"]?.string.map { "  \($0)" } ?? "") }
                .joined(separator: "\n") + "\n"
        }
        if let warning = result["warning"]?.string { text += "Note: \(warning)\n" }
        return text
    }

    private func feeds(_ feeds: [JSONValue]) -> String {
        let rows = feeds.map { feed -> [String] in
            let status = feed["status"]?.string ?? "ok"
            let error = feed["last_error"]?.string.map { " — " + $0 } ?? ""
            return [number(feed["id"]), status == "ok" ? status : paint(status, code: "31"),
                    "\(number(feed["unread"]))/\(number(feed["total"]))", feed["category"]?.string ?? "-",
                    relative(feed["next_check_at"]?.string),
                    (feed["title"]?.string ?? feed["url"]?.string ?? "") + (status == "ok" ? "" : error)]
        }
        return table(["ID", "STATUS", "UNREAD", "CATEGORY", "NEXT CHECK", "TITLE"], rows)
    }

    private func articles(_ result: JSONValue) -> String {
        let articles = result["articles"]?.array ?? []
        var text = ""
        for article in articles {
            let unread = article["read"]?.bool == false
            let marker = (unread ? "●" : " ") + (article["starred"]?.bool == true ? "★" : " ")
            let columns = [number(article["id"]).padding(to: 7), marker, relative(article["published"]?.string).padding(to: 9),
                           fitted(article["feed_title"]?.string ?? "", to: 24).padding(to: 25)].joined(separator: " ") + " "
            let title = fitted(article["title"]?.string ?? "(untitled)", to: width.map { max(20, $0 - columns.count) })
            text += columns + (unread ? bold(title) : title) + "\n"
            if let snippet = article["snippet"]?.string {
                text += "        " + fitted(highlight(snippet), to: width.map { max(20, $0 - 8) }) + "\n"
            }
        }
        if articles.isEmpty { text = "No articles.\n" }
        if let cursor = result["next_cursor"]?.string { text += "More: --cursor \(cursor)\n" }
        return text
    }

    /// The live line of `refresh --wait` on a terminal: done/total, failures so far, the feed just done.
    func progressLine(_ progress: JSONValue, failed: Int) -> String {
        let line = "Refreshing \(number(progress["done"]))/\(number(progress["total"]))"
            + (failed > 0 ? ", \(failed) failed" : "") + (progress["url"]?.string.map { ": " + $0 } ?? "")
        return fitted(line, to: width.map { $0 - 1 })  // never wrap: \r must return to this line's start
    }

    /// One line per new entry for `watch`: id, feed, title, link.
    func newEntryLine(_ article: JSONValue) -> String {
        [number(article["id"]), article["feed_title"]?.string ?? "-", bold(article["title"]?.string ?? "(untitled)"),
         article["url"]?.string ?? ""].joined(separator: "  ") + "\n"
    }

    private func article(_ article: JSONValue) -> String {
        // Lines longer than ~100 columns are hard to read, even on a wide terminal.
        ArticleView(width: width.map { min($0, 100) } ?? 78, bold: bold).render(article, relativeDate: relative)
    }

    // MARK: - Pieces

    /// Columns aligned two spaces apart; on a terminal the last column (the titles) is cut to fit.
    func table(_ header: [String], _ rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "Nothing to show.\n" }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { visibleWidth($0[column]) }.max() ?? 0 }
        let lastColumnWidth = width.map { max(12, $0 - widths.dropLast().reduce(0) { $0 + $1 + 2 }) }
        return all.enumerated().map { index, row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? fitted(cell, to: lastColumnWidth)
                                        : cell + String(repeating: " ", count: widths[column] - visibleWidth(cell))
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// `text` cut to `limit` visible characters with "…" (unchanged when it fits or without a limit).
    func fitted(_ text: String, to limit: Int?) -> String {
        guard let limit, visibleWidth(text) > limit else { return text }
        var kept = ""
        var count = 0
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true }
            if !inEscape {
                guard count < limit - 1 else { break }
                count += 1
            } else if character == "m" {
                inEscape = false
            }
            kept.append(character)
        }
        return kept + "…" + (kept.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    private func visibleWidth(_ text: String) -> Int {
        // ANSI escapes take no room on screen.
        var count = 0
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true } else if inEscape { if character == "m" { inEscape = false } } else { count += 1 }
        }
        return count
    }

    private func number(_ value: JSONValue?) -> String {
        value?.int.map(String.init) ?? value?.string ?? "-"
    }

    /// "1 feed", "3 feeds", "0 new entries".
    private func count(_ value: JSONValue?, _ singular: String, _ plural: String? = nil) -> String {
        let text = number(value)
        return "\(text) \(text == "1" ? singular : plural ?? singular + "s")"
    }

    /// "3h ago", "in 12m", or "-".
    func relative(_ timestamp: String?) -> String {
        guard let timestamp, let date = FeedDateParser.date(from: timestamp) else { return "-" }
        let seconds = date.timeIntervalSince(now)
        let text = duration(abs(seconds))
        return seconds < 0 ? text + " ago" : "in " + text
    }

    private func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<60: "\(Int(seconds))s"
        case ..<3600: "\(Int(seconds / 60))m"
        case ..<86_400: "\(Int(seconds / 3600))h"
        default: "\(Int(seconds / 86_400))d"
        }
    }

    private func bytes(_ count: Double) -> String {
        count >= 1_048_576 ? printf("%.1f MB", count / 1_048_576) : printf("%.0f KB", count / 1024)
    }

    private func bold(_ text: String) -> String { paint(text, code: "1") }

    private func paint(_ text: String, code: String) -> String {
        styled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Search matches: bold on a terminal, [brackets] otherwise.
    private func highlight(_ snippet: String) -> String {
        snippet.replacing(SnippetMarker.matchStart, with: styled ? "\u{1B}[1m" : "[")
            .replacing(SnippetMarker.matchEnd, with: styled ? "\u{1B}[0m" : "]")
    }
}
