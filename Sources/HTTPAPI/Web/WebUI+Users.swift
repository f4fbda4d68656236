import AggregatorCore
import FeedStore
import Foundation
import HTTPServer

extension WebUI {
    // MARK: - The users page, for admins (docs/ARCHITECTURE.md)

    private static let usersNotices = [
        "created": "The account was created.",
        "password": "The password was set; that account's browsers were logged out.",
        "admin": "The account's role was changed.",
        "removed": "The account was removed with its subscriptions, marks, tokens and sessions.",
    ]

    /// Every account, with forms to create one, set a password, change the role and remove.
    func usersPage(_ request: WebRequest, error: String? = nil, status: Int = 200) async throws -> HTTPResponse {
        let users = try await service.users(by: request.account)  // forbidden to regular accounts
        let page = try await self.page(request, section: "users")
        var main: HTML = "<h1>Users</h1>"
        if let notice = request.http.queryValue("notice").flatMap({ Self.usersNotices[$0] }) {
            main += "<p class=\"notice\" role=\"status\">\(notice)</p>"
        }
        if let error { main += "<p class=\"notice error\" role=\"alert\">\(error)</p>" }
        main += "<table><thead><tr><th>Name</th><th>Role</th><th>Feeds</th><th>Unread</th><th>Tokens</th><th>Imported</th><th>Last login</th>"
            + "<th>Password</th><th></th></tr></thead><tbody>"
        for user in users {
            let role = user.isAdmin ? "admin" : "regular"
            let login: HTML = user.lastLoginAt.map { WebPage.time($0) } ?? "never"
            let toggle = page.button(user.isAdmin ? "Make regular" : "Make admin", action: "/users/\(user.id)/admin",
                                     fields: [("admin", user.isAdmin ? "0" : "1")])
            let remove: HTML = user.id == request.account.id ? "<span class=\"muted\">(you)</span>"
                : page.button("Remove", action: "/users/\(user.id)/remove", fields: [], kind: "danger")
            main += """
                <tr><td>\(user.name)</td><td>\(role) \(toggle)</td><td>\(user.feeds)</td><td>\(user.unread)</td>
                <td>\(user.tokens)</td><td>\(user.entriesImported)</td><td>\(login)</td><td><form class="toolbar" method="post" action="\(link("/users/\(user.id)/password"))">\(page.csrfField)
                <label class="hidden" for="password-\(user.id.rawValue)">New password of \(user.name)</label>
                <input id="password-\(user.id.rawValue)" name="password" type="password" autocomplete="new-password" required
                 minlength="\(AggregatorService.minimumPasswordLength)" maxlength="1024"><button>Set</button></form></td>
                <td>\(remove)</td></tr>
                """
        }
        main += """
            </tbody></table>
            <section aria-labelledby="new-user-title"><h2 id="new-user-title">New account</h2>
            <form method="post" action="\(link("/users"))">\(page.csrfField)
            <label for="new-name">Name</label>
            <input id="new-name" name="name" required maxlength="64" autocomplete="off">
            <label for="new-password">Password (at least \(AggregatorService.minimumPasswordLength) characters)</label>
            <input id="new-password" name="password" type="password" autocomplete="new-password" required
             minlength="\(AggregatorService.minimumPasswordLength)" maxlength="1024">
            <label><input type="checkbox" name="admin" value="1"> An admin (manages the accounts)</label>
            <p><button>Create the account</button></p></form></section>
            """
        return Self.html(page.document(title: "Users", main: main), status: status)
    }

    // MARK: - Users actions

    func createUser(_ request: WebRequest) async throws -> HTTPResponse {
        do {
            _ = try await service.createUser(name: request.form.value("name") ?? "", password: request.form.value("password") ?? "",
                                             isAdmin: request.form.value("admin") == "1", by: request.account)
        } catch {
            return try await usersPage(request, error: error.description, status: MinifluxAPI.status(of: error))
        }
        return redirect(to: "/users?notice=created", request.http)
    }

    func setUserPassword(_ request: WebRequest) async throws -> HTTPResponse {
        try await change(request, AccountChanges(password: request.form.value("password") ?? ""), notice: "password")
    }

    func setUserAdmin(_ request: WebRequest) async throws -> HTTPResponse {
        try await change(request, AccountChanges(isAdmin: request.form.value("admin") == "1"), notice: "admin")
    }

    /// A refusal (the last admin, oneself, another's id) shows the error page with its reason.
    func removeUser(_ request: WebRequest) async throws -> HTTPResponse {
        try await service.removeUser(id: AccountID(try request.id()), by: request.account)
        return redirect(to: "/users?notice=removed", request.http)
    }

    /// Applies `changes` to the account of the route (admins only: `updateUser` checks).
    private func change(_ request: WebRequest, _ changes: AccountChanges, notice: String) async throws -> HTTPResponse {
        let id = AccountID(try request.id())
        _ = try await service.users(by: request.account)  // a regular account: 403, whoever it names
        _ = try await service.updateUser(id: id, changes, by: request.account)
        return redirect(to: "/users?notice=\(notice)", request.http)
    }
}
