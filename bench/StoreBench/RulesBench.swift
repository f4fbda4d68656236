import AggregatorCore
import ControlProtocol
import FeedStore
import Foundation

/// `storebench rules DB`: gives account 1 of a store made by `storebench subscribe` twenty filter
/// rules, as a reader with a noisy subscription list might: fifteen of its own (Miniflux's syntax,
/// `EntryContent` among them) and a blocklist on five of its feeds (bench/rules_round.sh).
enum RulesBench {
    static let accountRules = [
        "EntryTitle=(?i)sponsored", "EntryTitle=(?i)\\bgiveaway\\b", "EntryTitle=(?i)^\\[ad\\]", "EntryTitle=(?i)webinar",
        "EntryTitle=(?i)(black friday|cyber monday)", "EntryURL=utm_source=newsletter", "EntryURL=/sponsored/",
        "EntryAuthor=(?i)^press release$", "EntryAuthor=(?i)marketing team", "EntryContent=(?i)buy now",
        "EntryContent=(?i)limited[- ]time offer", "EntryContent=(?i)affiliate link", "EntryContent=(?i)promo code [A-Z0-9]{4,}",
        "EntryContent=(?i)subscribe to our premium", "EntryDate=future",
    ]
    static let feedBlocklist = "(?i)(podcast|episode \\d+|live stream)"

    static func run(databasePath: String) async throws {
        let store = try FeedStore(path: databasePath, entryRules: EntryRuleMatcher())
        var settings = AccountSettings()
        try settings.apply(["block_filter_entry_rules": .string(accountRules.joined(separator: "\n"))])
        try await store.setSettings(settings.storedText, account: 1)
        let feeds = try StoreReader(path: databasePath).feeds(account: 1)
        for feed in feeds.prefix(5) {
            _ = try await store.saveRules(subscription: feed.id, account: 1, blocklist: feedBlocklist, keeplist: nil)
        }
        print(#"RESULT {"account_rules": \#(accountRules.count), "feed_rules": \#(min(5, feeds.count))}"#)
    }
}
