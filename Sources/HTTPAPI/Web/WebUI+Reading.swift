import AggregatorCore
import FeedParser
import FeedStore
import Foundation
import HTTPServer

extension WebUI {
    /// Articles a page lists at once.
    static let pageSize = 50

    enum Listing {
        case unread, starred, history, search, uncategorized
        case category(Int64)
        case feed(Int64)
    }

    // MARK: - Lists of articles

    /// What a list of articles shows above them, and which articles it lists.
    private struct ListingHeader {
        var title = ""
        var section = ""
        var query = ArticleQuery()
        /// Buttons and links beside "Mark this page read".
        var extra: HTML = ""
        var searchText = ""
    }

    func listing(_ request: WebRequest, kind: Listing) async throws -> HTTPResponse {
        let http = request.http
        let showAll = http.queryValue("all") == "1"
        let header = try await listingHeader(kind, request, showAll: showAll)
        var page = try await self.page(request, section: header.section, search: header.searchText)
        let heading: HTML = "<h1>\(header.title)</h1>"
        guard kind.isSearch == false || !header.searchText.isEmpty else {
            let main: HTML = heading + "<p>Type words to look for in the box at the top: every word must appear "
                + "(<code>\"a phrase\"</code>, <code>word*</code> and <code>-word</code> work too).</p>"
            return Self.html(page.document(title: header.title, main: main))
        }
        let result = try await service.articles(header.query, limit: Self.pageSize, cursor: http.queryValue("cursor"),
                                                for: request.account)
        // The icons of the page's feeds only (all 5,000 feeds' cost 4 ms a page at a million entries).
        page.feedIcons = try await service.feedIconDigests(of: Set(result.articles.compactMap(\.feedID)), for: request.account)
        let back = Self.pathWithQuery(http)
        var main = heading
        let ids = result.articles.map(\.id)
        let unreadIDs = result.articles.filter { !$0.isRead }.map(\.id)
        main += "<div class=\"toolbar\">"
        if !unreadIDs.isEmpty {
            main += page.button("Mark this page read", action: "/entries/mark",
                                fields: [("ids", Self.idList(unreadIDs)), ("read", "1"), ("back", back)])
        }
        main += header.extra + "</div>"
        if result.articles.isEmpty {
            main += "<p class=\"muted\">\(Self.emptyText(kind, showAll: showAll))</p>"
        }
        let words = Self.searchWords(header.searchText)
        main += "<div class=\"entries\">"
        for (index, article) in result.articles.enumerated() {
            main += entryItem(article, page: page, back: back, above: Array(ids[...index]), words: words)
        }
        main += "</div><nav class=\"pager\" aria-label=\"Pages\"><span></span>"
        if let next = result.nextCursor {
            var items = http.query.filter { $0.name != "cursor" }
            items.append(("cursor", next))
            main += "<a href=\"\(link(http.path))?\(Self.encodedQuery(items))\" rel=\"next\">Older articles →</a>"
        }
        main += "</nav>"
        return Self.html(page.document(title: header.title, main: main))
    }

    /// The title, query and buttons of a list of `kind`.
    private func listingHeader(_ kind: Listing, _ request: WebRequest, showAll: Bool) async throws -> ListingHeader {
        let http = request.http
        let page = WebPage(base: basePath, csrf: request.csrf)
        var header = ListingHeader()
        var feedLinks: HTML = ""  // a feed's, after the toggle
        let back = [("back", http.path)]
        switch kind {
        case .unread:
            (header.title, header.section) = ("Unread", "unread")
            header.query.unreadOnly = true
        case .starred:
            (header.title, header.section) = ("Starred", "starred")
            header.query.starredOnly = true
        case .history:
            (header.title, header.section) = ("History", "history")
            header.extra = page.button("Flush history (hide every read entry but the starred)", action: "/history/flush", fields: back)
        case .search:
            header.searchText = String((http.queryValue("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(500))
            header.title = header.searchText.isEmpty ? "Search" : "Search: \(header.searchText)"
            if !header.searchText.isEmpty { header.query.search = header.searchText }
        case .uncategorized:
            header.title = "Uncategorized"
            header.query.uncategorized = true
            header.extra = page.button("Mark all uncategorized read", action: "/uncategorized/mark-read", fields: back)
        case .category(let id):
            let category = try await service.category(id: id, for: request.account)
            (header.title, header.query.category) = (category.name, category.name)
            header.extra = page.button("Mark all of \(category.name) read", action: "/category/\(id)/mark-read", fields: back)
        case .feed(let id):
            let feed = try await service.feed(.id(SubscriptionID(id)), for: request.account)
            header.title = feed.title ?? feed.url
            header.query.feed = .id(SubscriptionID(id))
            header.extra = page.button("Mark the feed read", action: "/feed/\(id)/mark-read", fields: back)
            feedLinks = "<a href=\"\(link("/feed/\(id)/edit"))\">Edit the feed</a>"
            if let site = feed.siteURL, Self.isWebLink(site) {
                feedLinks += "<a href=\"\(site)\" rel=\"noreferrer noopener\" target=\"_blank\">Its site</a>"
            }
        }
        switch kind {
        case .uncategorized, .category, .feed:
            header.query.unreadOnly = !showAll
            header.extra += toggleAll(path: http.path, showAll: showAll)
        case .unread, .starred, .history, .search:
            break
        }
        header.extra += feedLinks
        return header
    }

    /// One article in a list: its title links to it, its buttons mark it without leaving the list.
    private func entryItem(_ article: Article, page: WebPage, back: String, above: [EntryID], words: [String]) -> HTML {
        let state = article.isRead ? "read" : "unread"
        var html: HTML = "<article class=\"entry \(state)\" id=\"entry-\(article.id)\">"
        let title = article.title.flatMap { $0.isEmpty ? nil : $0 } ?? article.url ?? "(untitled)"
        html += "<h2><a href=\"\(link("/entry/\(article.id)"))\">\(Self.highlighted(title, words: words))</a></h2>"
        html += "<p class=\"meta\">"
        var meta: [HTML] = []
        if let feedID = article.feedID {
            meta.append("<a href=\"\(link("/feed/\(feedID)"))\">\(page.icon(ofFeed: feedID))"
                + "\(article.feedTitle ?? "feed \(feedID)")</a>")
        }
        if article.published != nil { meta.append(WebPage.time(article.published)) }
        if let url = article.url, Self.isWebLink(url) {
            meta.append("<a class=\"original\" href=\"\(url)\" rel=\"noreferrer noopener\" target=\"_blank\">original</a>")
        }
        html += meta.joined(separator: " · ") + "</p>"
        if let snippet = article.snippet, !snippet.isEmpty {
            html += "<p class=\"snippet\">\(Self.markedSnippet(snippet))</p>"
        }
        html += "<div class=\"actions\">"
        html += page.button(article.isRead ? "Mark unread" : "Mark read", action: "/entries/mark",
                            fields: [("ids", article.id.description), ("read", article.isRead ? "0" : "1"), ("back", back)],
                            inline: "read")
        html += page.button(article.isStarred ? "Unstar" : "Star", action: "/entries/mark",
                            fields: [("ids", article.id.description), ("starred", article.isStarred ? "0" : "1"), ("back", back)],
                            inline: "star", pressed: article.isStarred)
        if above.count > 1 {
            html += page.button("Mark read up to here", action: "/entries/mark",
                                fields: [("ids", Self.idList(above)), ("read", "1"), ("back", back)], inline: "above")
        }
        return html + "</div></article>"
    }

    private func toggleAll(path: String, showAll: Bool) -> HTML {
        showAll ? "<a href=\"\(link(path))\">Unread only</a>" : "<a href=\"\(link(path))?all=1\">Show read articles too</a>"
    }

    private static func emptyText(_ kind: Listing, showAll: Bool) -> String {
        switch kind {
        case .unread: "Nothing unread. New articles appear here as feeds are checked."
        case .starred: "No starred articles: star one to keep it here."
        case .history: "No articles yet: add a feed on the feeds page."
        case .search: "No article has these words."
        case .category, .feed, .uncategorized: showAll ? "No articles yet." : "Nothing unread here."
        }
    }

    // MARK: - One article

    /// The article, marked read as it is opened.
    func entryPage(_ request: WebRequest) async throws -> HTTPResponse {
        let id = EntryID(try request.id())
        var article = try await service.article(id: id, for: request.account)
        if !article.isRead {
            _ = try await service.mark(.ids([id]), read: true, starred: nil, for: request.account)
            article.isRead = true
        }
        var page = try await self.page(request, section: "")
        page.feedIcons = try await service.feedIconDigests(of: [article.feedID].compactMap { $0 }, for: request.account)
        let back = Self.pathWithQuery(request.http)
        let title = article.title.flatMap { $0.isEmpty ? nil : $0 } ?? article.url ?? "(untitled)"
        var main: HTML = "<article class=\"article read\" id=\"entry-\(id)\"><header>"
        if let url = article.url, Self.isWebLink(url) {
            main += "<h1><a class=\"original\" href=\"\(url)\" rel=\"noreferrer noopener\" target=\"_blank\">"
                + "\(title)</a></h1>"
        } else {
            main += "<h1>\(title)</h1>"
        }
        main += "<p class=\"meta\">"
        if let feedID = article.feedID {
            main += "<a href=\"\(link("/feed/\(feedID)"))\">\(page.icon(ofFeed: feedID))"
                + "\(article.feedTitle ?? "feed \(feedID)")</a>"
        }
        if let author = article.author, !author.isEmpty { main += " · \(author)" }
        if article.published != nil { main += " · " + WebPage.time(article.published) }
        main += "</p><div class=\"actions\">"
        main += page.button("Mark unread", action: "/entries/mark",
                            fields: [("ids", id.description), ("read", "0"), ("back", back)], inline: "read")
        main += page.button(article.isStarred ? "Unstar" : "Star", action: "/entries/mark",
                            fields: [("ids", id.description), ("starred", article.isStarred ? "0" : "1"), ("back", back)],
                            inline: "star", pressed: article.isStarred)
        if article.url.map(Self.isWebLink) == true {
            main += page.button("Fetch original content", action: "/entry/\(id)/fetch-content", fields: [])
        }
        main += "</div></header>"
        let content = HTMLSanitizer.sanitize(article.content ?? article.summary ?? "", baseURL: article.url)
        main += "<div class=\"content\">\(HTML(sanitized: content))</div>"
        main += Self.enclosures(article.enclosures)
        main += "</article>"
        return Self.html(page.document(title: title, main: main))
    }

    /// Fetches the entry's page and shows its article instead of the feed's content, to this account.
    func fetchOriginalContent(_ request: WebRequest) async throws -> HTTPResponse {
        let id = EntryID(try request.id())
        _ = try await service.fetchContent(entryID: id, update: true, for: request.account)
        return redirect(to: "/entry/\(id)", request.http)
    }

    /// Audio and video as players (loading nothing until played), anything else as a link.
    private static func enclosures(_ enclosures: [ArticleEnclosure]) -> HTML {
        let usable = enclosures.filter { isWebLink($0.url) }
        guard !usable.isEmpty else { return .empty }
        var html: HTML = "<section class=\"enclosures\" aria-label=\"Attachments\"><h2>Attachments</h2>"
        for enclosure in usable {
            let url = enclosure.url
            let type = (enclosure.type ?? "").lowercased()
            let name = enclosure.url.split(separator: "/").last.map(String.init) ?? enclosure.url
            if type.hasPrefix("audio/") {
                html += "<p><audio controls preload=\"none\" src=\"\(url)\"></audio><br><a href=\"\(url)\">\(name)</a></p>"
            } else if type.hasPrefix("video/") {
                html += "<p><video controls preload=\"none\" src=\"\(url)\"></video><br><a href=\"\(url)\">\(name)</a></p>"
            } else {
                html += "<p><a href=\"\(url)\" rel=\"noreferrer noopener\">\(name)</a>\(enclosure.type.map { " (\($0))" } ?? "")</p>"
            }
        }
        return html + "</section>"
    }

    // MARK: - Marking

    /// Marks the posted `ids` (at most 1,000) read or unread and/or starred or not.
    func markEntries(_ request: WebRequest) async throws -> HTTPResponse {
        let text = request.form.value("ids") ?? ""
        let ids = text.split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)).map { EntryID($0) } }
        guard !ids.isEmpty, ids.count <= 1000, ids.count == text.split(separator: ",").count else {
            throw WebError("ids must be 1 to 1,000 article ids, separated by commas")
        }
        let read = try Self.flag(request.form.value("read"), name: "read")
        let starred = try Self.flag(request.form.value("starred"), name: "starred")
        _ = try await service.mark(.ids(ids), read: read, starred: starred, for: request.account)
        return done(request, fallback: "/unread")
    }

    func markCategoryRead(_ request: WebRequest) async throws -> HTTPResponse {
        let category = try await service.category(id: try request.id(), for: request.account)
        _ = try await service.mark(.matching(ArticleQuery(category: category.name, unreadOnly: true)), read: true, starred: nil, for: request.account)
        return done(request, fallback: "/unread")
    }

    func markUncategorizedRead(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.mark(.matching(ArticleQuery(uncategorized: true, unreadOnly: true)), read: true, starred: nil, for: request.account)
        return done(request, fallback: "/unread")
    }

    func flushHistory(_ request: WebRequest) async throws -> HTTPResponse {
        try await service.flushHistory(for: request.account)
        return done(request, fallback: "/history")
    }

    func markFeedRead(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.mark(.matching(ArticleQuery(feed: .id(SubscriptionID(try request.id())), unreadOnly: true)), read: true,
                                   starred: nil, for: request.account)
        return done(request, fallback: "/unread")
    }

    private static func flag(_ value: String?, name: String) throws(WebError) -> Bool? {
        switch value {
        case nil, "": nil
        case "1": true
        case "0": false
        default: throw WebError("\(name) must be 0 or 1")
        }
    }

    // MARK: - Pieces

    static func idList(_ ids: [EntryID]) -> String {
        ids.map(\.description).joined(separator: ",")
    }

    /// Links we put in an `href`: http and https only (never `javascript:` or `data:`).
    static func isWebLink(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    static func pathWithQuery(_ request: HTTPRequest) -> String {
        request.query.isEmpty ? request.path : request.path + "?" + encodedQuery(request.query)
    }

    static func encodedQuery(_ items: [(name: String, value: String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return items.map { item in
            (item.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }

    /// The words of a search to highlight in titles (quotes, `*` and `-word` set aside).
    static func searchWords(_ search: String) -> [String] {
        search.split { !$0.isLetter && !$0.isNumber && $0 != "-" }
            .filter { !$0.hasPrefix("-") && !["AND", "OR", "NOT", "NEAR"].contains($0) }
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "-")) }
            .filter { !$0.isEmpty }
    }

    /// `text` escaped, with each occurrence of `words` (ignoring case and accents) in `<mark>`.
    static func highlighted(_ text: String, words: [String]) -> HTML {
        guard !words.isEmpty else { return "\(text)" }
        var ranges: [Range<String.Index>] = []
        for word in words {
            var start = text.startIndex
            while start < text.endIndex,
                  let found = text.range(of: word, options: [.caseInsensitive, .diacriticInsensitive], range: start..<text.endIndex) {
                ranges.append(found)
                start = found.upperBound
            }
        }
        guard !ranges.isEmpty else { return "\(text)" }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var html: HTML = ""
        var position = text.startIndex
        for range in ranges where range.lowerBound >= position {
            html += "\(String(text[position..<range.lowerBound]))<mark>\(String(text[range]))</mark>"
            position = range.upperBound
        }
        return html + "\(String(text[position...]))"
    }

    /// A search snippet (its matches between the store's markers) as HTML with `<mark>`.
    static func markedSnippet(_ snippet: String) -> HTML {
        var html: HTML = ""
        var open = false
        for piece in snippet.split(separator: Snippet.matchStart.first!, omittingEmptySubsequences: false).enumerated() {
            let parts = piece.element.split(separator: Snippet.matchEnd.first!, maxSplits: 1, omittingEmptySubsequences: false)
            if piece.offset > 0 { html += "<mark>"; open = true }
            html += "\(String(parts[0]))"
            if parts.count > 1, open { html += "</mark>\(String(parts[1]))"; open = false }
        }
        return open ? html + "</mark>" : html
    }
}

extension WebUI.Listing {
    var isSearch: Bool {
        if case .search = self { return true }
        return false
    }
}
