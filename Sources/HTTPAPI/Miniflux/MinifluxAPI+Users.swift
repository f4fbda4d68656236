import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation
import HTTPServer

extension MinifluxAPI {
    // MARK: - Users (docs/ARCHITECTURE.md): admins manage every account; everyone reads and changes its own

    func me(_ request: MinifluxRequest) async throws -> HTTPResponse {
        MinifluxJSON.response(MinifluxJSON.user(try await service.accountSummary(request.account)))
    }

    func users(_ request: MinifluxRequest) async throws -> HTTPResponse {
        // By name, as Miniflux lists them.
        let users = try await service.users(by: request.account).sorted { $0.name.lowercased() < $1.name.lowercased() }
        return MinifluxJSON.response(.array(users.map(MinifluxJSON.user)))
    }

    /// `{"username", "password", "is_admin"}`: 201 with the new user; 400 when the name is taken.
    func createUser(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let body = try request.jsonObject()
        guard let name = body["username"]?.string, !name.isEmpty, let password = body["password"]?.string else {
            throw MinifluxError("the username and password are required")
        }
        // A name taken is `alreadySubscribed`: 400, as Miniflux's "This user already exists".
        let user = try await service.createUser(name: name, password: password, isAdmin: body["is_admin"]?.bool ?? false,
                                                by: request.account)
        return MinifluxJSON.response(MinifluxJSON.user(user), status: 201)
    }

    /// `/v1/users/{id}` (one's own, or any for an admin) or `/v1/users/{username}` (admins), as Miniflux
    /// tells them apart: a positive number is an id.
    func user(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let identifier = request.parameters["userID"] ?? ""
        let user = if let id = Int64(identifier), id > 0 {
            try await service.user(id: AccountID(id), by: request.account)
        } else {
            try await service.user(named: identifier, by: request.account)
        }
        return MinifluxJSON.response(MinifluxJSON.user(user))
    }

    /// `{"username", "password", "is_admin"}`, any of them; Miniflux answers 201 with the user.
    func updateUser(_ request: MinifluxRequest) async throws -> HTTPResponse {
        let id = try request.id("userID")
        let body = try request.jsonObject()
        var changes = AccountChanges()
        if let name = body["username"], !name.isNull {
            guard let text = name.string, !text.isEmpty else { throw MinifluxError("the username cannot be empty") }
            changes.name = text
        }
        if let password = body["password"], !password.isNull {
            guard let text = password.string else { throw MinifluxError("the password must be a string") }
            changes.password = text
        }
        if let admin = body["is_admin"], !admin.isNull {
            guard let flag = admin.bool else { throw MinifluxError("is_admin must be true or false") }
            changes.isAdmin = flag
        }
        // The settings sent (the Go client sends every key, null for those it leaves alone).
        for key in AccountSettings.keys {
            if let value = body[key], !value.isNull { changes.settings[key] = value }
        }
        let user = try await service.updateUser(id: AccountID(id), changes, by: request.account)
        return MinifluxJSON.response(MinifluxJSON.user(user), status: 201)
    }

    func deleteUser(_ request: MinifluxRequest) async throws -> HTTPResponse {
        try await service.removeUser(id: AccountID(try request.id("userID")), by: request.account)
        return MinifluxJSON.noContent
    }
}
