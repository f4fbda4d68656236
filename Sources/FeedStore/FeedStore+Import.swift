import Foundation

/// What importing an entry did: its id, and whether the feed gained it (Miniflux answers 201) or
/// carried it already (200, the entry unchanged).
public struct ImportedEntry: Sendable, Equatable {
    public let id: Int64
    public let isNew: Bool
}

extension FeedStore {
    /// Adds an entry an app hands over to the account's subscription `subscription` (Miniflux's entry
    /// import), with the account's read and starred marks, in one transaction.
    ///
    /// The entry is keyed as a fetched one (its canonical URL, else `guid`): an entry the feed carries
    /// already is returned unchanged, as Miniflux does; one that another feed carries gains this feed
    /// as a source; any other is stored. The import is the importing account's alone (DESIGN §12): the
    /// feed's other followers get a hidden mark for it, as for a backlog they never subscribed to,
    /// unless they see it through another feed already; their unread counts do not move.
    /// - Throws: `.notFound` for another account's subscription; `.invalidQuery` for an entry that
    ///   retention removed (it never comes back).
    public func importEntry(_ entry: IncomingEntry, subscription: Int64, account: Int64, read: Bool, starred: Bool,
                            now: Date = Date()) throws(StoreError) -> ImportedEntry {
        let seenAt = Int64(now.timeIntervalSince1970)
        return try database.transaction { () throws(StoreError) -> ImportedEntry in
            guard let feed = try database.integer("SELECT feed_id FROM subscriptions WHERE id = ?1 AND account_id = ?2",
                                                  [.integer(subscription), .integer(account)]) else {
                throw StoreError(.notFound, message: "no feed with id \(subscription)")
            }
            let isPrivate = try database.integer("SELECT owner_account_id IS NOT NULL FROM feeds WHERE id = ?1", [.integer(feed)]) == 1
            let document = IncomingFeed(feedID: feed, entries: [entry], isPrivate: isPrivate)
            var counters = CounterChanges(database: database)
            var stored: (id: Int64, isRemoved: Bool)?
            try database.statement("""
                SELECT e.id, st.removed FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE e.key = ?1
                """).query([.text(document.keys[0])]) { row in stored = (row.int64(at: 0), row.int64(at: 1) != 0) }
            let id: Int64
            var isNew = true
            if let stored {
                guard !stored.isRemoved else {
                    throw StoreError(.invalidQuery, message: "entry \(stored.id) was removed by retention and is not imported again")
                }
                id = stored.id
                try database.statement(
                    "INSERT INTO entry_sources(feed_id, entry_id, guid) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
                    .run([.integer(feed), .integer(id), SQLValue(entry.guid)])
                if try database.changes() > 0 {
                    try database.statement("UPDATE entry_state SET sources = sources + 1 WHERE entry_id = ?1").run([.integer(id)])
                    try counters.sourceAdded(id, feed: feed)
                    try hideFromOtherFollowers(id, feed: feed, importer: account, now: seenAt)
                } else {
                    isNew = false
                }
            } else {
                guard let inserted = try insert(entry, key: document.keys[0], feedID: feed,
                                                fingerprint: document.fingerprints[0], seenAt: seenAt) else {
                    throw StoreError(.sqlite, message: "the imported entry could not be stored")
                }
                id = inserted
                try database.statement("INSERT INTO entry_sources(feed_id, entry_id, guid) VALUES (?1, ?2, ?3)")
                    .run([.integer(feed), .integer(id), SQLValue(entry.guid)])
                try counters.entryChanged(id, primaryFeed: feed, sources: 1, by: 1)
                try hideFromOtherFollowers(id, feed: feed, importer: account, now: seenAt)
            }
            try counters.apply()
            if stored != nil { try makeOwn(id, entry, importer: account, now: seenAt) }
            _ = try changeFlags(account: account, read: read, starred: starred, from: "entry_state st",
                            where: ["st.entry_id = ?1"], values: [.integer(id)])
            return ImportedEntry(id: id, isNew: isNew)
        }
    }

    /// An entry stored before its import is shown to the importer as it gave it: an entry hidden from
    /// it comes back, and a title or content other than the stored one becomes its own edit.
    private func makeOwn(_ id: Int64, _ entry: IncomingEntry, importer: Int64, now: Int64) throws(StoreError) {
        let values: [SQLValue] = [.integer(importer), .integer(id)]
        if try database.integer("SELECT hidden FROM entry_marks WHERE account_id = ?1 AND entry_id = ?2", values) == 1 {
            try database.statement("""
                UPDATE subscriptions SET hidden_count = hidden_count - 1
                WHERE account_id = ?1 AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)
                """).run(values)
            try database.statement("UPDATE entry_marks SET hidden = 0, by_rule = 0 WHERE account_id = ?1 AND entry_id = ?2")
                .run(values)
        }
        var stored: (title: String?, content: String?)?
        try database.statement("SELECT title, content FROM entries WHERE id = ?1").query([.integer(id)]) { row in
            stored = (row.text(at: 0), row.text(at: 1))
        }
        let title = entry.title == stored?.title ? nil : entry.title
        let content = entry.content == nil || entry.content == stored?.content ? nil : entry.content
        guard title != nil || content != nil else { return }
        try recordEdit(id, title: title, content: content, account: importer, now: now)
    }

    /// Hides entry `id`, new in `feed`, from the feed's followers other than `importer` who see it
    /// nowhere else (no mark on it, no other followed feed carrying it); their subscription's hidden
    /// count moves with the feed's entry count, so their unread count stays as it was.
    private func hideFromOtherFollowers(_ id: Int64, feed: Int64, importer: Int64, now: Int64) throws(StoreError) {
        let others = """
            feed_id = ?2 AND account_id != ?3
            AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM entry_sources o CROSS JOIN subscriptions v ON v.feed_id = o.feed_id
                            WHERE o.entry_id = ?1 AND o.feed_id != ?2 AND v.account_id = subscriptions.account_id)
            """
        let values: [SQLValue] = [.integer(id), .integer(feed), .integer(importer)]
        // Counted before the marks exist: both statements select the same followers.
        try database.statement("UPDATE subscriptions SET hidden_count = hidden_count + 1 WHERE \(others)").run(values)
        try database.statement("""
            INSERT INTO entry_marks(account_id, entry_id, hidden, changed_at)
            SELECT account_id, ?1, 1, ?4 FROM subscriptions WHERE \(others)
            """).run(values + [.integer(now)])
    }
}
