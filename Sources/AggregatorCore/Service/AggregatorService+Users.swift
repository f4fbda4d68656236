import ControlProtocol
import FeedStore
import Foundation

/// What `PUT /v1/users/{id}` (or the web page's users form) changes; nil leaves a field as it is.
public struct AccountChanges: Sendable, Equatable {
    public var name: String?
    public var password: String?
    public var isAdmin: Bool?
    /// Reading preferences to change, by key (`AccountSettings.keys`).
    public var settings: [String: JSONValue]

    public init(name: String? = nil, password: String? = nil, isAdmin: Bool? = nil, settings: [String: JSONValue] = [:]) {
        (self.name, self.password, self.isAdmin, self.settings) = (name, password, isAdmin, settings)
    }
}

extension AggregatorService {
    // MARK: - Managing accounts (docs/ARCHITECTURE.md): admins manage others; everyone reads and changes itself

    /// Every account, for an admin.
    public func users(by requester: AccountIdentity) async throws(AggregatorError) -> [AccountSummary] {
        try await requireAdmin(requester)
        return try await accounts()
    }

    /// The account with this id: one's own, or any for an admin (another's is forbidden to others).
    public func user(id: AccountID, by requester: AccountIdentity) async throws(AggregatorError) -> AccountSummary {
        if id != requester.id { try await requireAdmin(requester) }
        guard let found = try await summaries(only: id).first else { throw .notFound("no user with id \(id)") }
        return found
    }

    /// The account named `name` (whatever its case), for an admin.
    public func user(named name: String, by requester: AccountIdentity) async throws(AggregatorError) -> AccountSummary {
        try await requireAdmin(requester)
        guard let found = try await accounts().first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw .notFound("no user named \(name)")
        }
        return found
    }

    /// Creates an account (with its category "All"), for an admin.
    public func createUser(name: String, password: String, isAdmin: Bool,
                           by requester: AccountIdentity) async throws(AggregatorError) -> AccountSummary {
        try await requireAdmin(requester)
        return try await addAccount(name: name, password: password, isAdmin: isAdmin)
    }

    /// Creates an account (the control socket acts as an admin).
    public func addAccount(name: String, password: String, isAdmin: Bool) async throws(AggregatorError) -> AccountSummary {
        let name = try Self.validatedName(name)
        guard try await read({ try $0.account(named: name) }) == nil else {
            throw .alreadySubscribed("a user named \(name) exists already")
        }
        let hash = try await hashedPassword(password)
        guard let id = try await write({ try await $0.addAccount(name: name, passwordHash: hash, isAdmin: isAdmin) }) else {
            throw .alreadySubscribed("a user named \(name) exists already")
        }
        return try await accountSummary(AccountIdentity(id: id, name: name, isAdmin: isAdmin))
    }

    /// Changes an account's name, password or admin flag: one's own (but not making oneself an
    /// admin), or any for an admin; the last admin stays one.
    public func updateUser(id: AccountID, _ changes: AccountChanges,
                           by requester: AccountIdentity) async throws(AggregatorError) -> AccountSummary {
        let target = try await user(id: id, by: requester)
        let requesterIsAdmin = try await isAdmin(requester)
        if changes.isAdmin == true, !requesterIsAdmin {
            throw .invalidArgument("only administrators can change permissions of standard users")
        }
        // Every value is checked before anything changes: a refused setting changes nothing.
        var settings = target.settings
        try settings.apply(changes.settings)
        if let password = changes.password, password.count < Self.minimumPasswordLength {
            throw .invalidArgument("the password must be at least \(Self.minimumPasswordLength) characters")
        }
        if let name = changes.name, name.lowercased() != target.name.lowercased() || name != target.name {
            _ = try await renameAccount(target.name, to: name)
        }
        if let password = changes.password {
            let current = try await accountSummary(target.identity)
            _ = try await setPassword(name: current.name, password: password)
        }
        if let isAdmin = changes.isAdmin, isAdmin != target.isAdmin {
            try await write { try await $0.setAdmin(isAdmin, account: id) }
        }
        if settings != target.settings {
            let text = settings.storedText
            try await write(for: id) { try await $0.setSettings(text, account: id) }
            // New filter rules judge the account's stored entries again (docs/ARCHITECTURE.md).
            let rules = ["block_filter_entry_rules", "keep_filter_entry_rules"]
            if rules.contains(where: { settings[$0] != target.settings[$0] }) {
                await judgeAgain(account: target.identity)
            }
        }
        return try await accountSummary(target.identity)
    }

    /// Removes an account and everything of its own, for an admin; not oneself, nor the last admin.
    public func removeUser(id: AccountID, by requester: AccountIdentity) async throws(AggregatorError) {
        try await requireAdmin(requester)
        guard id != requester.id else { throw .invalidArgument("you cannot remove yourself") }
        // Logins look the account up each time: its tokens, sessions and password stop working now.
        try await write { try await $0.removeAccount(id: id) }
    }

    /// Removes the account named `name` (the control socket acts as an admin).
    public func removeAccount(named name: String) async throws(AggregatorError) -> AccountSummary {
        let account = try await account(named: name)
        let summary = try await accountSummary(account)
        try await write { try await $0.removeAccount(id: account.id) }
        return summary
    }

    /// Makes the account named `name` an admin or a regular account (the last admin stays one).
    public func setAdmin(named name: String, _ isAdmin: Bool) async throws(AggregatorError) -> AccountSummary {
        let account = try await account(named: name)
        try await write { try await $0.setAdmin(isAdmin, account: account.id) }
        return try await accountSummary(account)
    }

    /// Whether the account is an admin now (a login remembered from before a change does not say).
    public func isAdmin(_ account: AccountIdentity) async throws(AggregatorError) -> Bool {
        try await read { try $0.account(id: account.id)?.isAdmin ?? false }
    }

    private func requireAdmin(_ account: AccountIdentity) async throws(AggregatorError) {
        guard try await isAdmin(account) else { throw .forbidden("only administrators can manage users") }
    }

    /// What a fetch for `account` may not reach beyond the fetcher's own policy (a regular account's,
    /// under `private-networks = admins`): `FetchRequest.refusingPrivateNetworks`.
    func addressRefusal(for account: AccountIdentity) async throws(AggregatorError) -> String? {
        try await isAdmin(account) ? nil : pipeline.regularAccountsRule
    }
}
