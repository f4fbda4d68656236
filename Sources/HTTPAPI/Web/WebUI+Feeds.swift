import AggregatorCore
import FeedStore
import Foundation
import HTTPServer

extension WebUI {
    // MARK: - The feeds page

    static let feedsPerPage = 100

    /// What a form on the feeds page did, said after its redirect back (a fixed set: the query
    /// cannot make the page say anything else).
    private static let feedNotices = [
        "removed": "The feed was removed.", "refreshing": "The feed is being checked now.",
        "updated": "The feed was saved.", "category-added": "The category was created.",
        "category-renamed": "The category was renamed.", "category-removed": "The category was removed; its feeds are now filed under none.",
    ]

    /// Every feed, failing ones first, with the forms to add one and to manage categories.
    func feedsPage(_ request: WebRequest, notice: String? = nil, error: String? = nil, status: Int = 200,
                   url: String = "", category: String = "") async throws -> HTTPResponse {
        let page = try await self.page(request, section: "feeds")
        let feeds = try await service.feeds(for: request.account).sorted { a, b in
            if (a.status == .failing) != (b.status == .failing) { return a.status == .failing }
            return (a.title ?? a.url).localizedCaseInsensitiveCompare(b.title ?? b.url) == .orderedAscending
        }
        var main: HTML = "<h1>Feeds</h1>"
        if let notice = notice ?? request.http.queryValue("notice").flatMap({ Self.feedNotices[$0] }) {
            main += "<p class=\"notice\" role=\"status\">\(notice)</p>"
        }
        if let error { main += "<p class=\"notice error\" role=\"alert\">\(error)</p>" }
        // A page of feeds at a time: a table of thousands weighs megabytes.
        // Clamped: a page number from the query multiplied out must not overflow.
        let pageNumber = min(max(1, Int(request.http.queryValue("page") ?? "") ?? 1), 1_000_000)
        let shown = feeds.dropFirst((pageNumber - 1) * Self.feedsPerPage).prefix(Self.feedsPerPage)
        main += """
            <section aria-labelledby="add-title"><h2 id="add-title">Add a feed</h2>
            <form method="post" action="\(link("/feeds"))">\(page.csrfField)
            <label for="url">Address of the feed, or of a site that links to one</label>
            <input id="url" name="url" type="url" required maxlength="2000" size="50" value="\(url)" placeholder="https://example.org/">
            <label for="category">Category (optional)</label>
            <input id="category" name="category" list="category-names" maxlength="200" value="\(category)">
            <datalist id="category-names">\(page.categories.map { category -> HTML in "<option value=\"\(category.name)\">" })</datalist>
            <p><button>Add</button></p></form></section>
            <section aria-labelledby="list-title"><h2 id="list-title">\(feeds.count) feeds</h2>
            """
        if !shown.isEmpty {
            main += "<table class=\"feeds\"><thead><tr><th scope=\"col\">Feed</th><th scope=\"col\">Category</th>"
                + "<th scope=\"col\">Unread</th><th scope=\"col\">State</th><th scope=\"col\">Actions</th></tr></thead><tbody>"
            for feed in shown { main += feedRow(feed, page: page) }
            main += "</tbody></table>"
        }
        if feeds.count > Self.feedsPerPage {
            let pages = (feeds.count + Self.feedsPerPage - 1) / Self.feedsPerPage
            main += "<nav class=\"pager\" aria-label=\"Pages of feeds\">"
            main += pageNumber > 1 ? "<a href=\"\(link("/feeds"))?page=\(pageNumber - 1)\" rel=\"prev\">← Previous</a>" : "<span></span>"
            main += "<span>page \(pageNumber) of \(pages)</span>"
            main += pageNumber < pages ? "<a href=\"\(link("/feeds"))?page=\(pageNumber + 1)\" rel=\"next\">Next →</a>" : "<span></span>"
            main += "</nav>"
        }
        main += "</section>" + categoriesSection(page)
        return Self.html(page.document(title: "Feeds", main: main), status: status)
    }

    private func feedRow(_ feed: FeedSummary, page: WebPage) -> HTML {
        var html: HTML = "<tr><td><a href=\"\(link("/feed/\(feed.id)"))\">\(page.icon(digest: feed.icon?.digest))\(feed.title ?? feed.url)</a>"
            + "<br><span class=\"muted address\">\(feed.url)</span></td>"
        html += "<td>\(feed.category ?? "—")</td><td>\(feed.unread) / \(feed.total)</td><td class=\"state\">"
        switch feed.status {
        case .failing:
            html += "<strong class=\"failing\">failing</strong> (\(feed.errorCount)×): \(feed.lastError ?? "")"
        case .disabled:
            html += "<strong class=\"failing\">gone</strong>: \(feed.lastError ?? "no longer checked")"
        case .ok:
            html += "ok"
        }
        if let checked = feed.checkedAt { html += "<br><span class=\"muted\">checked \(WebPage.time(checked))</span>" }
        if let next = feed.nextCheckAt, feed.status != .disabled {
            html += "<br><span class=\"muted\">next \(WebPage.time(next))</span>"
        }
        html += "</td><td><a href=\"\(link("/feed/\(feed.id)/edit"))\">Edit</a> "
        html += page.button("Check now", action: "/feed/\(feed.id)/refresh", fields: [])
        html += page.button("Remove", action: "/feed/\(feed.id)/remove", fields: [], kind: "danger")
        return html + "</td></tr>"
    }

    private func categoriesSection(_ page: WebPage) -> HTML {
        var html: HTML = "<section aria-labelledby=\"categories-title\"><h2 id=\"categories-title\">Categories</h2>"
        for category in page.categories {
            html += """
                <form class="toolbar" method="post" action="\(link("/category/\(category.id)/rename"))">\(page.csrfField)
                <label class="hidden" for="category-\(category.id)">Name of \(category.name)</label>
                <input id="category-\(category.id)" name="name" value="\(category.name)" required maxlength="200">
                <button>Rename</button> <span class="muted">\(category.feeds) feeds, \(category.unread) unread</span></form>
                """
            html += page.button("Remove \(category.name)", action: "/category/\(category.id)/remove", fields: [], kind: "danger")
        }
        html += """
            <form class="toolbar" method="post" action="\(link("/categories"))">\(page.csrfField)
            <label class="hidden" for="new-category">New category</label>
            <input id="new-category" name="name" required maxlength="200" placeholder="New category">
            <button>Create</button></form></section>
            <section aria-labelledby="opml-title"><h2 id="opml-title">Import and export</h2>
            <p><a href="\(link("/export.opml"))" download="aggregatord.opml">Export every feed as OPML</a></p>
            <form method="post" action="\(link("/settings/import"))" enctype="multipart/form-data">\(page.csrfField)
            <label for="opml">Import an OPML file</label><input id="opml" name="opml" type="file" accept=".opml,.xml,text/xml" required>
            <p><button>Import</button></p></form></section>
            """
        return html
    }

    // MARK: - Feed actions

    func addFeed(_ request: WebRequest) async throws -> HTTPResponse {
        let url = (request.form.value("url") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let category = (request.form.value("category") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let added: FeedAddition
        do {
            added = try await service.addFeed(url: url, category: category.isEmpty ? nil : category, for: request.account)
        } catch {
            return try await feedsPage(request, error: error.description, status: MinifluxAPI.status(of: error), url: url,
                                       category: category)
        }
        if let warning = added.warning {
            return try await feedsPage(request, notice: "Subscribed to \(added.feed.url), but: \(warning)")
        }
        return redirect(to: "/feed/\(added.feed.id)?all=1", request.http)
    }

    func editFeedPage(_ request: WebRequest) async throws -> HTTPResponse {
        let feed = try await service.feed(.id(SubscriptionID(try request.id())), for: request.account)
        let page = try await self.page(request, section: "feeds")
        let main: HTML = """
            <h1>Edit \(feed.title ?? feed.url)</h1>
            <form method="post" action="\(link("/feed/\(feed.id)/edit"))">\(page.csrfField)
            <label for="title">Title</label><input id="title" name="title" value="\(feed.title ?? "")" maxlength="500" size="50">
            <label for="category">Category (empty for none)</label>
            <input id="category" name="category" list="category-names" value="\(feed.category ?? "")" maxlength="200">
            <datalist id="category-names">\(page.categories.map { category -> HTML in "<option value=\"\(category.name)\">" })</datalist>
            <label for="scraper-rules">Article selector for "Fetch original content" (CSS: tags, #id, .class; empty: found by itself)</label>
            <input id="scraper-rules" name="scraper_rules" value="\(feed.scraperRules ?? "")" maxlength="1000" size="50">
            <label><input type="checkbox" name="crawler" value="1"\(feed.crawler ? " checked" : "")>
            Show each new entry's article from its page instead of the feed's text (crawler)</label>
            \(fetchSettingsFields(feed, isAdmin: request.account.isAdmin))
            <p><button>Save</button> <a href="\(link("/feeds"))">Cancel</a></p></form>
            <p class="muted">Address: \(feed.url)</p>
            """
        return Self.html(page.document(title: "Edit feed", main: main))
    }

    /// The feed's fetch settings (docs/ARCHITECTURE.md). The secrets are never put in the page: their fields are
    /// empty, an empty one keeps what is set, and a box clears it.
    private func fetchSettingsFields(_ feed: FeedSummary, isAdmin: Bool) -> HTML {
        let settings = feed.fetchSettings
        func checked(_ flag: Bool) -> HTML { flag ? " checked" : "" }
        func secret(_ name: String, _ label: String, isSet: Bool) -> HTML {
            let clear: HTML = isSet ? "<label><input type=\"checkbox\" name=\"clear_\(name)\" value=\"1\"> Clear it</label>" : ""
            return """
            <label for="\(name)">\(label)\(isSet ? " (set: empty keeps it)" : "")</label>
            <input id="\(name)" name="\(name)" type="password" autocomplete="off" maxlength="4096" size="50">
            \(clear)
            """
        }
        let selfSigned: HTML = isAdmin ? """
            <label><input type="checkbox" name="allow_self_signed_certificates" value="1"\(checked(settings.allowsSelfSignedCertificates))>
            Accept a certificate no authority signed</label>
            """ : ""
        return """
            <fieldset><legend>Fetching</legend>
            <p class="muted">Any of these makes this feed yours alone: fetched with them for you, its articles kept apart
            from everyone else's.\(feed.isPrivateCopy ? " It is your private copy now." : "")</p>
            <label for="user-agent">User agent (empty: ours)</label>
            <input id="user-agent" name="user_agent" value="\(settings.userAgent ?? "")" maxlength="4096" size="50">
            <label for="username">HTTP Basic user name</label>
            <input id="username" name="username" value="\(settings.username ?? "")" maxlength="4096" autocomplete="off">
            \(secret("password", "HTTP Basic password", isSet: settings.password != nil))
            \(secret("cookie", "Cookie (a=b; c=d)", isSet: settings.cookie != nil))
            <label><input type="checkbox" name="ignore_http_cache" value="1"\(checked(settings.ignoresHTTPCache))>
            Ignore the HTTP cache (send no ETag or Last-Modified)</label>
            \(selfSigned)</fieldset>
            """
    }

    func updateFeed(_ request: WebRequest) async throws -> HTTPResponse {
        let form = request.form
        func trimmed(_ name: String) -> String { (form.value(name) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        let (title, category, rules) = (trimmed("title"), trimmed("category"), trimmed("scraper_rules"))
        guard title.count <= 500, category.count <= 200 else { throw WebError("the title or category is too long") }
        // A secret's empty field keeps it; its box clears it ("" to the store).
        func secret(_ name: String) -> String? {
            form.value("clear_\(name)") == "1" ? "" : (form.value(name).flatMap { $0.isEmpty ? nil : $0 })
        }
        let fetch = FetchSettingsChange(
            userAgent: trimmed("user_agent"), cookie: secret("cookie"), username: trimmed("username"),
            password: secret("password"), ignoresHTTPCache: form.value("ignore_http_cache") == "1",
            allowsSelfSignedCertificates: request.account.isAdmin ? form.value("allow_self_signed_certificates") == "1" : nil)
        var changes = FeedChanges(title: title.isEmpty ? nil : title, category: category)
        (changes.scraperRules, changes.fetchSettings, changes.crawler) = (rules, fetch, form.value("crawler") == "1")
        _ = try await service.updateFeed(.id(SubscriptionID(try request.id())), changes, for: request.account)
        return redirect(to: "/feeds?notice=updated", request.http)
    }

    func refreshFeed(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.refreshOnDemand([try await service.feed(.id(SubscriptionID(try request.id())), for: request.account).id],
                                              for: request.account)
        return redirect(to: "/feeds?notice=refreshing", request.http)
    }

    func removeFeed(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.removeFeed(.id(SubscriptionID(try request.id())), for: request.account)
        return redirect(to: "/feeds?notice=removed", request.http)
    }

    // MARK: - Categories

    func createCategory(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.createCategory(request.form.value("name") ?? "", for: request.account)
        return redirect(to: "/feeds?notice=category-added", request.http)
    }

    func renameCategory(_ request: WebRequest) async throws -> HTTPResponse {
        _ = try await service.renameCategory(id: try request.id(), to: request.form.value("name") ?? "", for: request.account)
        return redirect(to: "/feeds?notice=category-renamed", request.http)
    }

    func removeCategory(_ request: WebRequest) async throws -> HTTPResponse {
        try await service.removeCategory(id: try request.id(), for: request.account)
        return redirect(to: "/feeds?notice=category-removed", request.http)
    }
}
