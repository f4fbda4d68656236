import Foundation

/// What importing an entry did: its id, and whether the feed gained it (Miniflux answers 201) or
/// the account had imported it there already (200, the entry unchanged).
public struct ImportedEntry: Sendable, Equatable {
    public let id: Int64
    public let isNew: Bool
}

extension FeedStore {
    /// Adds an entry an app hands over to the account's subscription `subscription` (Miniflux's entry
    /// import), with the account's read and starred marks, in one transaction.
    ///
    /// The import is the importing account's alone (docs/ARCHITECTURE.md): it is keyed apart, by account and
    /// feed (then by its URL, else `guid`, as a fetched entry is), so it never merges with an entry a
    /// feed brings, nor another account's import: nothing an import says reaches anyone else, and
    /// nothing stored for others is shown through it. Importing it again into the same feed answers
    /// the same entry, unchanged, as Miniflux does. The feed's other followers get a hidden mark for
    /// it, as for a backlog they never subscribed to: their counts do not move.
    /// - Throws: `.notFound` for another account's subscription.
    public func importEntry(_ entry: IncomingEntry, subscription: SubscriptionID, account: AccountID, read: Bool, starred: Bool,
                            now: Date = Date()) throws(StoreError) -> ImportedEntry {
        let seenAt = Int64(now.timeIntervalSince1970)
        return try database.transaction { () throws(StoreError) -> ImportedEntry in
            guard let feed = try database.integer("SELECT feed_id FROM subscriptions WHERE id = ?1 AND account_id = ?2",
                                                  [.subscription(subscription), .account(account)]) else {
                throw StoreError(.notFound, message: "no feed with id \(subscription)")
            }
            let document = IncomingFeed(feedID: FeedID(feed), entries: [entry])
            let key = "import:\(account):\(feed):\(document.keys[0])"
            let id: Int64
            var isNew = false
            if let stored = try database.integer("SELECT id FROM entries WHERE key = ?1", [.text(key)]) {
                id = stored
            } else {
                guard let inserted = try insert(entry, key: key, feedID: feed, fingerprint: document.fingerprints[0],
                                                seenAt: seenAt) else {
                    throw StoreError(.failed, message: "the imported entry could not be stored")
                }
                (id, isNew) = (inserted, true)
                try database.statement("UPDATE entries SET imported_by = ?2 WHERE id = ?1").run([.integer(id), .account(account)])
                try database.statement("INSERT INTO entry_sources(feed_id, entry_id, guid) VALUES (?1, ?2, ?3)")
                    .run([.integer(feed), .integer(id), SQLValue(entry.guid)])
                var counters = CounterChanges(database: database)
                try counters.entryChanged(id, primaryFeed: feed, sources: 1, by: 1)
                try counters.apply()
                try hideFromOtherFollowers(id, feed: feed, importer: account, now: seenAt)
            }
            _ = try changeFlags(account: account, read: read, starred: starred, from: "entry_state st",
                                where: ["st.entry_id = ?1", "st.removed = 0"], values: [.integer(id)])
            return ImportedEntry(id: id, isNew: isNew)
        }
    }

    /// Hides entry `id`, new in `feed` and carried by no other, from the feed's followers other than
    /// `importer`; their subscription's hidden count moves with the feed's entry count, so their
    /// unread count stays as it was.
    private func hideFromOtherFollowers(_ id: Int64, feed: Int64, importer: AccountID, now: Int64) throws(StoreError) {
        let values: [SQLValue] = [.integer(id), .integer(feed), .account(importer)]
        try database.statement("UPDATE subscriptions SET hidden_count = hidden_count + 1 WHERE feed_id = ?2 AND account_id != ?3")
            .run(values)
        try database.statement("""
            INSERT INTO entry_marks(account_id, entry_id, hidden, changed_at)
            SELECT account_id, ?1, 1, ?4 FROM subscriptions WHERE feed_id = ?2 AND account_id != ?3
            """).run(values + [.integer(now)])
    }
}
