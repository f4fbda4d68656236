import FeedStore
import Foundation
import HTTPServer

/// What every page shares: the signed-in frame (header, navigation, sidebar) around a page's main
/// part, and the pieces pages repeat (forms with their CSRF token, dates, counts).
struct WebPage {
    let base: String
    let csrf: String
    /// Unread articles in all, for the navigation and the title.
    var unread = 0
    var categories: [CategorySummary] = []
    /// Unread articles of the feeds filed under no category; nil when every feed has one.
    var uncategorizedUnread: Int?
    /// The navigation entry to mark as the current page ("unread", "starred", …).
    var section = ""
    var search = ""
    /// Whether the navigation links the users page (admins').
    var showsUsers = false
    /// The icon digests of the feeds a page shows articles of (the listing fills it in).
    var feedIcons: [SubscriptionID: String] = [:]

    /// A feed's icon as a 16-pixel image (decorative: the feed's name is beside it), or "".
    func icon(ofFeed feedID: SubscriptionID?) -> HTML {
        icon(digest: feedID.flatMap { feedIcons[$0] })
    }

    func icon(digest: String?) -> HTML {
        guard let digest else { return .empty }
        return "<img class=\"feed-icon\" src=\"\(FeedIcons.path(digest, basePath: base))\" alt=\"\" width=\"16\" height=\"16\" "
            + "loading=\"lazy\"> "
    }

    /// `path` under the base path the daemon is served at.
    func link(_ path: String) -> String {
        base == "/" ? path : base + path
    }

    /// The whole document: `title`, then `main` inside the frame.
    func document(title: String, main: HTML) -> HTML {
        let counted = unread > 0 ? "(\(unread)) " : ""
        var html: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(counted + title) · aggregatord</title>
            <link rel="stylesheet" href="\(link(WebAssets.stylesheet.path))">
            <link rel="icon" href="\(link(WebAssets.icon.path))" type="image/svg+xml">
            <script src="\(link(WebAssets.script.path))" defer></script>
            </head>
            <body data-base="\(base)" data-csrf="\(csrf)">
            <a class="skip" href="#main">Skip to content</a>
            <header class="top">
            <a class="brand" href="\(link("/unread"))">aggregatord</a>
            <nav aria-label="Sections">
            """
        let users = showsUsers ? [("users", "Users", "/users")] : []
        for (key, label, path) in [("unread", "Unread", "/unread"), ("starred", "Starred", "/starred"),
                                   ("history", "History", "/history"), ("feeds", "Feeds", "/feeds")] + users
                                   + [("settings", "Settings", "/settings")] {
            let current: HTML = key == section ? " aria-current=\"page\"" : ""
            let count: HTML = key == "unread" && unread > 0 ? " <span class=\"count\" id=\"unread-total\">\(unread)</span>" : ""
            html += "<a href=\"\(link(path))\"\(current)>\(label)\(count)</a>"
        }
        html += """
            </nav>
            <form class="search" role="search" method="get" action="\(link("/search"))">
            <label class="hidden" for="q">Search</label>
            <input type="search" id="q" name="q" value="\(search)" placeholder="Search" maxlength="500">
            </form>
            <form method="post" action="\(link("/logout"))">\(csrfField)<button class="link">Log out</button></form>
            </header>
            <div class="layout">
            <main id="main">
            \(main)
            </main>
            \(sidebar)
            </div>
            \(WebPage.shortcutHelp)
            </body></html>
            """
        return html
    }

    /// The categories with their unread counts.
    private var sidebar: HTML {
        var html: HTML = "<aside aria-label=\"Categories\"><h2>Categories</h2><ul>"
        for category in categories {
            let count: HTML = category.unread > 0 ? " <span class=\"count\">\(category.unread)</span>" : ""
            html += "<li><a href=\"\(link("/category/\(category.id)"))\">\(category.name)\(count)</a></li>"
        }
        if let unread = uncategorizedUnread {
            let count: HTML = unread > 0 ? " <span class=\"count\">\(unread)</span>" : ""
            html += "<li><a href=\"\(link("/uncategorized"))\">Uncategorized\(count)</a></li>"
        }
        if categories.isEmpty && uncategorizedUnread == nil {
            html += "<li class=\"muted\">None yet: add feeds on the feeds page.</li>"
        }
        return html + "</ul></aside>"
    }

    var csrfField: HTML { "<input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">" }

    /// A form of one button posting `fields` to `action` (a path under the base). `inline` forms are
    /// sent by the page's script without a reload when it runs; without it they post and come back.
    func button(_ label: String, action: String, fields: [(String, String)], inline: String? = nil,
                pressed: Bool? = nil, kind: String = "") -> HTML {
        let data: HTML = inline.map { " data-inline=\"\($0)\"" } ?? ""
        var html: HTML = "<form method=\"post\" action=\"\(link(action))\"\(data)>\(csrfField)"
        for (name, value) in fields {
            html += "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">"
        }
        let pressedAttribute: HTML = pressed.map { " aria-pressed=\"\($0 ? "true" : "false")\"" } ?? ""
        let kindAttribute: HTML = kind.isEmpty ? "" : " class=\"\(kind)\""
        return html + "<button\(kindAttribute)\(pressedAttribute)>\(label)</button></form>"
    }

    /// A `<time>` with the moment for machines and "3 h ago" for people.
    static func time(_ date: Date?, now: Date = Date()) -> HTML {
        guard let date else { return .empty }
        let stamp = ISO8601DateFormatter().string(from: date)
        return "<time datetime=\"\(stamp)\" title=\"\(stamp)\">\(relative(date, now: now))</time>"
    }

    static func relative(_ date: Date, now: Date = Date()) -> String {
        let seconds = now.timeIntervalSince(date)
        let future = seconds < 0
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<60: return future ? "in a moment" : "just now"
        case ..<3600: text = "\(Int(magnitude / 60)) min"
        case ..<86_400: text = "\(Int(magnitude / 3600)) h"
        case ..<(86_400 * 60): text = "\(Int(magnitude / 86_400)) d"
        case ..<(86_400 * 730): text = "\(Int(magnitude / (86_400 * 30))) months"
        default: text = "\(Int(magnitude / (86_400 * 365))) years"
        }
        return future ? "in \(text)" : "\(text) ago"
    }

    /// The keyboard shortcuts, in a dialog the script opens with `?`.
    static let shortcutHelp: HTML = """
        <dialog id="help" aria-labelledby="help-title"><h2 id="help-title">Keyboard shortcuts</h2><dl>
        <dt>j / k</dt><dd>next / previous article</dd><dt>o, Enter</dt><dd>open the article</dd>
        <dt>m</dt><dd>mark read or unread</dd><dt>s</dt><dd>star or unstar</dd><dt>v</dt><dd>open the original</dd>
        <dt>g u / g s</dt><dd>go to unread / starred</dd><dt>/</dt><dd>search</dd><dt>?</dt><dd>this help</dd>
        </dl><form method="dialog"><button>Close</button></form></dialog>
        """
}
