/// The control protocol's methods, declared once for the daemon (which answers them) and the CLI
/// (which calls them). Their params and results are listed in docs/cli.md ("The control protocol").
public enum ControlMethod: String, Sendable, CaseIterable {
    case status
    case feedsList = "feeds.list"
    case feedsAdd = "feeds.add"
    case feedsRemove = "feeds.remove"
    case feedsUpdate = "feeds.update"
    case feedsImport = "feeds.import"
    case feedsExport = "feeds.export"
    case categoriesList = "categories.list"
    case categoriesRename = "categories.rename"
    case articlesList = "articles.list"
    case articlesGet = "articles.get"
    case articlesMark = "articles.mark"
    case refresh
    case eventsSubscribe = "events.subscribe"
    case backup
    case userSet = "user.set"
    case userAdd = "user.add"
    case userRemove = "user.remove"
    case userAdmin = "user.admin"
    case userShow = "user.show"
    case userList = "user.list"
    case userRename = "user.rename"
    case userFever = "user.fever"
    case tokenCreate = "token.create"
    case tokenList = "token.list"
    case tokenRevoke = "token.revoke"
}

/// Notifications the daemon sends before a method's result.
public enum ControlNotification: String, Sendable {
    /// `refresh` with `wait`: one feed finished (`done`, `total`, `feed_id`, `url`, `ok`).
    case refreshProgress = "refresh.progress"
    /// `events.subscribe`: an article was stored (the article object of `articles.list`).
    case entryNew = "entry.new"
    /// `events.subscribe`: the watch is on; every article stored from now on is sent (no params).
    case watchStarted = "watch.started"
}

/// Marks around the matched words in a search result's `snippet`, which clients turn into bold
/// or brackets: control characters, which no feed text keeps.
public enum SnippetMarker {
    public static let matchStart = "\u{2}"
    public static let matchEnd = "\u{3}"
}
