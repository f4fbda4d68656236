import Foundation

extension FeedStore {
    /// Stores fetched documents in one transaction (group commit): all of them or none. With
    /// `holdingOpen` the commit may wait for the next call's documents (see `groupCommit`).
    ///
    /// Entries are deduplicated by key (docs/ARCHITECTURE.md, "Storage"): the canonical URL, shared across feeds;
    /// else the feed's guid; else a hash of title and date. A known entry whose title, content
    /// or `updated` changed is updated in place and keeps its read and starred state; an entry
    /// that retention expired is never brought back.
    /// - Returns: what happened, per document, in order.
    @discardableResult
    public func ingest(_ feeds: [IncomingFeed], now: Date = Date(), holdingOpen: Bool = false) throws(StoreError) -> [IngestCounts] {
        let seenAt = Int64(now.timeIntervalSince1970)
        return try groupCommit(holdingOpen: holdingOpen) { () throws(StoreError) -> [IngestCounts] in
            var counters = CounterChanges(database: database)
            var results: [IngestCounts] = []
            for feed in feeds {
                results.append(try ingestOne(feed, seenAt: seenAt, counters: &counters))
            }
            try counters.apply()
            return results
        }
    }

    func ingestOne(_ feed: IncomingFeed, seenAt: Int64, counters: inout CounterChanges) throws(StoreError) -> IngestCounts {
        let find = try database.statement("""
            SELECT e.id, e.fingerprint, st.removed, st.feed_id,
                   (SELECT v.fingerprint FROM entry_versions v WHERE v.entry_id = e.id AND v.feed_id = ?2)
            FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE e.key = ?1
            """)
        let addSource = try database.statement(
            "INSERT INTO entry_sources(feed_id, entry_id, guid) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
        let countSource = try database.statement(
            "UPDATE entry_state SET sources = sources + 1, feed_id = coalesce(feed_id, ?2) WHERE entry_id = ?1")
        var counts = IngestCounts()
        // The live entries of this document, for whoever subscribes next (docs/ARCHITECTURE.md: the latest document).
        var documentEntries: [Int64] = []
        // Entries new to this feed (and their index in the document), for its followers' filter rules.
        var arrived: [(id: Int64, index: Int)] = []
        // Most entries of a cold poll are new: the inserts are tried first, a lookup made only on a conflict.
        let inserted = try insertNew(feed, seenAt: seenAt)
        for (index, entry) in feed.entries.enumerated() {
            let key = feed.keys[index], fingerprint = feed.fingerprints[index]
            if let id = inserted[index] {
                try addSource.run([.integer(feed.feedID.rawValue), .integer(id), SQLValue(entry.guid)])
                try counters.entryChanged(id, primaryFeed: feed.feedID.rawValue, sources: 1, by: 1)
                documentEntries.append(id)
                arrived.append((id, index))
                counts.new += 1
                continue
            }
            var found: StoredText?
            try find.query([.text(key), .integer(feed.feedID.rawValue)]) { row in
                found = StoredText(id: row.int64(at: 0), fingerprint: row.int64(at: 1), isRemoved: row.int64(at: 2) != 0,
                                   primaryFeed: row.optionalInt64(at: 3), versionFingerprint: row.optionalInt64(at: 4))
            }
            guard let existing = found else { continue }
            if !existing.isRemoved { documentEntries.append(existing.id) }
            try addSource.run([.integer(feed.feedID.rawValue), .integer(existing.id), SQLValue(entry.guid)])
            if try database.changes() > 0 {
                // Another feed carried it first: this feed is now a source too.
                try countSource.run([.integer(existing.id), .integer(feed.feedID.rawValue)])
                if !existing.isRemoved {
                    try counters.sourceAdded(existing.id, feed: feed.feedID.rawValue)
                    arrived.append((existing.id, index))
                    _ = try keepText(of: entry, fingerprint: fingerprint, for: existing, feed: feed.feedID.rawValue, seenAt: seenAt)
                }
                counts.seenInAnotherFeed += 1
            } else if existing.isRemoved {
                counts.unchanged += 1
            } else if try keepText(of: entry, fingerprint: fingerprint, for: existing, feed: feed.feedID.rawValue, seenAt: seenAt) {
                counts.updated += 1
            } else {
                counts.unchanged += 1
            }
        }
        if !arrived.isEmpty { try applyRules(feed, to: arrived) }
        try database.statement("UPDATE feeds SET only_for_admins = ?2 WHERE id = ?1 AND only_for_admins <> ?2")
            .run([.integer(feed.feedID.rawValue), SQLValue(feed.onlyForAdmins)])
        if feed.onlyForAdmins, !arrived.isEmpty { try hideFromRegularFollowers(arrived.map(\.id), feed: feed.feedID.rawValue) }
        try database.statement("""
            INSERT INTO feed_latest(feed_id, entries) VALUES (?1, ?2)
            ON CONFLICT(feed_id) DO UPDATE SET entries = excluded.entries
            """).run([.integer(feed.feedID.rawValue),
                     .text("[" + documentEntries.map(String.init).joined(separator: ",") + "]")])
        if counts.new > 0 || counts.seenInAnotherFeed > 0 {
            try database.statement("UPDATE feeds SET newest_entry_at = max(coalesce(newest_entry_at, 0), ?2) WHERE id = ?1")
                .run([.integer(feed.feedID.rawValue), .integer(seenAt)])
        }
        return counts
    }

    /// Inserts the document's entries whose keys are new, with their state, and indexes them.
    /// - Returns: the new entries' ids by their index in the document.
    private func insertNew(_ feed: IncomingFeed, seenAt: Int64) throws(StoreError) -> [Int: Int64] {
        var inserted: [Int: Int64] = [:]
        guard database.dialect.batchesRows else {
            for (index, entry) in feed.entries.enumerated() {
                inserted[index] = try insert(entry, key: feed.keys[index], feedID: feed.feedID.rawValue,
                                             fingerprint: feed.fingerprints[index], seenAt: seenAt)
            }
            return inserted
        }
        // On PostgreSQL a statement's round trip costs more than its rows: a document's entries go in
        // a few statements of many rows (runs of 64, 16, 4 and 1: few shapes to prepare).
        var start = 0
        while start < feed.entries.count {
            let count = [64, 16, 4, 1].first { start + $0 <= feed.entries.count }!
            try insertRows(feed, start..<(start + count), seenAt: seenAt, into: &inserted)
            start += count
        }
        return inserted
    }

    /// The columns a new entry's row fills, and their values (`entryRow`), for both inserts.
    private static let entryColumnNames = """
        (key, sort_at, first_seen_at, published_at, updated_at, fingerprint, url, guid, title, author, image_url,
         enclosures, summary, content, search_text)
        """
    private static let entryColumns = 15

    private static func entryRow(_ entry: IncomingEntry, key: String, fingerprint: Int64, seenAt: Int64) -> [SQLValue] {
        let published = clamped(entry.published, seenAt: seenAt)
        return [
            .text(key), .integer(published ?? seenAt), .integer(seenAt), SQLValue(published),
            SQLValue(clamped(entry.updated, seenAt: seenAt)), .integer(fingerprint), SQLValue(entry.url),
            SQLValue(entry.guid), SQLValue(entry.title), SQLValue(entry.author), SQLValue(entry.imageURL),
            SQLValue(ArticleEnclosure.columnText(entry.enclosures)), SQLValue(entry.summary), SQLValue(entry.content),
            SQLValue(entry.searchText),
        ]
    }

    /// Inserts the entries `range` of `feed` in one statement (those whose key is new), then their
    /// state rows and index documents in one statement each.
    private func insertRows(_ feed: IncomingFeed, _ range: Range<Int>, seenAt: Int64,
                            into inserted: inout [Int: Int64]) throws(StoreError) {
        var values: [SQLValue] = []
        values.reserveCapacity(range.count * Self.entryColumns)
        for index in range {
            values += Self.entryRow(feed.entries[index], key: feed.keys[index], fingerprint: feed.fingerprints[index],
                                    seenAt: seenAt)
        }
        var newKeys: [String: Int64] = [:]
        try database.statement("""
            INSERT INTO entries\(Self.entryColumnNames)
            VALUES \(SQLValue.rowPlaceholders(range.count, columns: Self.entryColumns))
            ON CONFLICT(key) DO NOTHING RETURNING id, key
            """).query(values) { row in newKeys[row.text(at: 1) ?? ""] = row.int64(at: 0) }
        guard !newKeys.isEmpty else { return }
        var states: [SQLValue] = []
        for index in range {
            // A key twice in one document: its first row was inserted, the others are known entries.
            guard let id = newKeys.removeValue(forKey: feed.keys[index]) else { continue }
            let entry = feed.entries[index]
            inserted[index] = id
            states += [.integer(id), .integer(feed.feedID.rawValue), .integer(Self.clamped(entry.published, seenAt: seenAt) ?? seenAt)]
            pendingDocuments += [.integer(id), .text(feed.searchDocuments?[index] ?? SearchText.document(of: entry))]
        }
        try database.statement("INSERT INTO entry_state(entry_id, feed_id, sort_at) VALUES \(SQLValue.rowPlaceholders(states.count / 3, columns: 3))")
            .run(states)
    }

    /// Indexes the entries `insertRows` inserted, 64 at a time, at the end of an ingest: sent in one
    /// pipeline with the group's last statements, answered together.
    func indexPendingDocuments() throws(StoreError) {
        var start = 0
        while start < pendingDocuments.count {
            let end = min(start + 64 * 2, pendingDocuments.count)
            try PostgresSearch.insert(Array(pendingDocuments[start..<end]), into: database)
            start = end
        }
        pendingDocuments.removeAll(keepingCapacity: true)
    }

    /// Inserts a new entry and its state, and indexes it; nil when its key is already stored.
    func insert(_ entry: IncomingEntry, key: String, feedID: Int64, fingerprint: Int64,
                        seenAt: Int64) throws(StoreError) -> Int64? {
        let published = Self.clamped(entry.published, seenAt: seenAt)
        let inserted = try database.integer("""
            INSERT INTO entries\(Self.entryColumnNames) VALUES \(SQLValue.rowPlaceholders(1, columns: Self.entryColumns))
            ON CONFLICT(key) DO NOTHING RETURNING id
            """, Self.entryRow(entry, key: key, fingerprint: fingerprint, seenAt: seenAt))
        guard let id = inserted else { return nil }
        try database.statement("INSERT INTO entry_state(entry_id, feed_id, sort_at) VALUES (?1, ?2, ?3)")
            .run([.integer(id), .integer(feedID), .integer(published ?? seenAt)])
        try indexText(id, entry.title, entry.searchText, entry.author)
        return id
    }

    /// Hides entries a document from a non-public address brought from the feed's regular followers
    /// (`IncomingFeed.onlyForAdmins`): what an admin's fetch may reach is the admins' to read.
    private func hideFromRegularFollowers(_ entries: [Int64], feed: Int64) throws(StoreError) {
        var regular: [AccountID] = []
        try database.statement("""
            SELECT u.account_id FROM subscriptions u JOIN accounts a ON a.id = u.account_id WHERE u.feed_id = ?1 AND a.admin = 0
            """).query([.integer(feed)]) { regular.append($0.accountID(at: 0)) }
        for account in regular {
            for entry in entries { try hide(entry, from: account, byRule: false) }
        }
    }

    /// What the store holds of a known entry, as one feed's document meets it.
    struct StoredText {
        var id: Int64
        var fingerprint: Int64
        var isRemoved: Bool
        /// The feed whose text the entry's row holds (the first to store it); nil once that feed is gone.
        var primaryFeed: Int64?
        /// The fingerprint of this feed's own version, when it has one.
        var versionFingerprint: Int64?
    }

    /// Keeps the text `feed` delivers for a known entry (docs/SECURITY.md, "Text versions"): the primary feed's
    /// in the entry's row (the other sources first keep the text they had, as versions), another
    /// feed's as its own version while it differs from the row. A feed never changes the text read
    /// through another. - Returns: whether the feed's text changed.
    private func keepText(of entry: IncomingEntry, fingerprint: Int64, for stored: StoredText, feed: Int64,
                          seenAt: Int64) throws(StoreError) -> Bool {
        let values: [SQLValue] = [.integer(stored.id), .integer(feed)]
        if stored.primaryFeed == feed || stored.primaryFeed == nil {
            if stored.primaryFeed == nil {
                try database.statement("UPDATE entry_state SET feed_id = ?2 WHERE entry_id = ?1").run(values)
            }
            if stored.versionFingerprint != nil { try database.statement(Self.dropVersion).run(values) }
            guard stored.fingerprint != fingerprint else { return stored.versionFingerprint != nil }
            try database.statement(Self.keepOtherSourcesText).run(values)
            if try database.changes() > 0 { try indexCopiedVersions(of: stored.id) }
            try update(stored.id, with: entry, fingerprint: fingerprint, seenAt: seenAt)
            return true
        }
        // The fingerprint that decides updates leaves out author, image, enclosures and the published
        // date: a feed whose text differs in those alone keeps a version too (a podcast's enclosure).
        if fingerprint == stored.fingerprint, try sameExtras(entry, as: stored.id, seenAt: seenAt) {
            guard stored.versionFingerprint != nil else { return false }
            try database.statement(Self.dropVersion).run(values)
            return true
        }
        let fingerprint = Self.versionFingerprint(of: entry, seenAt: seenAt)
        guard stored.versionFingerprint != fingerprint else { return false }
        try database.statement(Self.keepVersion).run(values + [
                .integer(fingerprint), SQLValue(entry.title), SQLValue(entry.summary), SQLValue(entry.content),
                SQLValue(entry.author), SQLValue(Self.clamped(entry.published, seenAt: seenAt)),
                SQLValue(Self.clamped(entry.updated, seenAt: seenAt)), SQLValue(entry.imageURL),
                SQLValue(ArticleEnclosure.columnText(entry.enclosures)), SQLValue(entry.searchText),
            ])
        try indexVersion(of: stored.id, feed: feed, entry)
        return true
    }

    /// The text a version keeps, columns of `entries` and `entry_versions` alike (in `keepVersion`'s order).
    private static let versionColumns = ["title", "summary", "content", "author", "published_at", "updated_at", "image_url",
                                         "enclosures", "search_text"]
    private static let dropVersion = "DELETE FROM entry_versions WHERE entry_id = ?1 AND feed_id = ?2"
    /// The entry's other sources (not feed ?2) keep the row's text as versions, those that have none.
    private static let keepOtherSourcesText = """
        INSERT INTO entry_versions(entry_id, feed_id, fingerprint, \(versionColumns.joined(separator: ", ")))
        SELECT e.id, s.feed_id, e.fingerprint, \(versionColumns.map { "e." + $0 }.joined(separator: ", "))
        FROM entries e JOIN entry_sources s ON s.entry_id = e.id WHERE e.id = ?1 AND s.feed_id != ?2
        ON CONFLICT(entry_id, feed_id) DO NOTHING
        """
    /// Entry ?1's version for feed ?2: fingerprint ?3, then the text (?4…).
    private static let keepVersion = """
        INSERT INTO entry_versions(entry_id, feed_id, fingerprint, \(versionColumns.joined(separator: ", ")))
        VALUES (\((1...(3 + versionColumns.count)).map { "?\($0)" }.joined(separator: ", ")))
        ON CONFLICT(entry_id, feed_id) DO UPDATE SET fingerprint = excluded.fingerprint,
            \(versionColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
        """

    /// Whether the entry's row has `entry`'s author, image, enclosures and published date.
    private func sameExtras(_ entry: IncomingEntry, as id: Int64, seenAt: Int64) throws(StoreError) -> Bool {
        var same = false
        try database.statement("SELECT author, image_url, enclosures, published_at FROM entries WHERE id = ?1")
            .query([.integer(id)]) { row in
                same = row.text(at: 0) == entry.author && row.text(at: 1) == entry.imageURL
                    && row.text(at: 2) == ArticleEnclosure.columnText(entry.enclosures)
                    && row.optionalInt64(at: 3) == Self.clamped(entry.published, seenAt: seenAt)
            }
        return same
    }

    /// What decides that a feed's version changed: its whole text, the fields `fingerprint` leaves out too.
    static func versionFingerprint(of entry: IncomingEntry, seenAt: Int64) -> Int64 {
        fnv1a([entry.title ?? "", entry.summary ?? "", entry.content ?? "", entry.updated.map { String($0.timeIntervalSince1970) } ?? "",
               entry.author ?? "", entry.imageURL ?? "", ArticleEnclosure.columnText(entry.enclosures) ?? "",
               clamped(entry.published, seenAt: seenAt).map(String.init) ?? ""])
    }

    /// The sort date follows the date shown (`published_at`, else when first seen): an update that
    /// brings a date, or another one (a second feed carrying the entry with its own), moves the entry in
    /// date order too (issue 29: `articles --sort oldest` was out of order after cross-posts).
    private func update(_ id: Int64, with entry: IncomingEntry, fingerprint: Int64, seenAt: Int64) throws(StoreError) {
        try indexPendingDocuments()  // the entry may be one this ingest inserted (a key twice in a document)
        try unindexText(id)
        // Right-hand sides read the row as it was: sort_at becomes the new published_at.
        let update = try database.statement("""
            UPDATE entries SET url = ?2, guid = ?3, title = ?4, summary = ?5, content = ?6, author = ?7,
                published_at = coalesce(?8, published_at), sort_at = coalesce(?8, published_at, first_seen_at),
                updated_at = ?9, image_url = ?10, enclosures = ?11, search_text = ?12, fingerprint = ?13
            WHERE id = ?1
            """)
        try update.run([
            .integer(id), SQLValue(entry.url), SQLValue(entry.guid), SQLValue(entry.title), SQLValue(entry.summary),
            SQLValue(entry.content), SQLValue(entry.author), SQLValue(Self.clamped(entry.published, seenAt: seenAt)),
            SQLValue(Self.clamped(entry.updated, seenAt: seenAt)), SQLValue(entry.imageURL),
            SQLValue(ArticleEnclosure.columnText(entry.enclosures)), SQLValue(entry.searchText), .integer(fingerprint),
        ])
        try database.statement("UPDATE entry_state SET sort_at = (SELECT sort_at FROM entries WHERE id = ?1) WHERE entry_id = ?1")
            .run([.integer(id)])
        try indexText(id, entry.title, entry.searchText, entry.author)
    }

    // MARK: - Keys

    /// The dedupe key of every entry of a document of feed `feedID`, in order.
    static func keys(feedID: Int64, entries: [IncomingEntry]) -> [String] {
        let links = entries.map { $0.url.flatMap(CanonicalURL.key) }
        // Some feeds link every item to their home page: the link says nothing about the item there.
        let sharesOneLink = entries.count >= 2 && links.allSatisfy { $0 != nil && $0 == links[0] }
        return zip(entries, links).map { entry, link in
            if let link, !sharesOneLink { return link }
            if let guid = entry.guid, !guid.isEmpty { return "guid:\(feedID):\(guid)" }
            let published = entry.published.map { String(Int64($0.timeIntervalSince1970)) } ?? ""
            let digest = fnv1a([entry.title ?? "", published, sharesOneLink ? (entry.summary ?? "") : ""])
            return "hash:\(feedID):\(String(UInt64(bitPattern: digest), radix: 16))"
        }
    }

    /// What decides "changed": title, summary, content and the `updated` date.
    static func fingerprint(of entry: IncomingEntry) -> Int64 {
        fnv1a([entry.title ?? "", entry.summary ?? "", entry.content ?? "",
               entry.updated.map { String($0.timeIntervalSince1970) } ?? ""])
    }

    /// 64-bit FNV-1a over the fields, each followed by a separator byte. Stored keys and fingerprints
    /// depend on these exact values; the loop runs over the UTF-8 buffer (the iterator cost twice as much).
    static func fnv1a(_ fields: [String]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for var field in fields {
            field.withUTF8 { utf8 in
                for byte in utf8 {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01B3
                }
            }
            hash ^= 0x1F
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }

    /// A date in the future is clamped to when the entry was first seen.
    static func clamped(_ date: Date?, seenAt: Int64) -> Int64? {
        date.map { min(Int64($0.timeIntervalSince1970.rounded(.down)), seenAt) }
    }
}
