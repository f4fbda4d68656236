import Foundation

extension FeedStore {
    /// A held group commit ends once it has written this many entries…
    static let heldEntryLimit = 10_000
    /// …or has been open this long, so readers never wait long for what a round stored.
    static let heldDuration = Duration.seconds(2)

    /// Runs `body` as one group commit. With `holdingOpen`, its transaction stays open for the next
    /// group's feeds until it is large or old enough (or another write, a backup or
    /// `finishHeldCommit()` ends it): at 134,000 entries, commits of ~5,000 entries rather than
    /// ~1,300 took a fifth less time, the same index pages being rewritten less often. A feed is
    /// still stored whole or not at all: a failing group undoes those held with it, and a crash
    /// loses the uncommitted ones, which the next round fetches again (their validators went too).
    func groupCommit(holdingOpen: Bool,
                     _ ingest: () throws(StoreError) -> [IngestCounts]) throws(StoreError) -> [IngestCounts] {
        let body = { () throws(StoreError) -> [IngestCounts] in
            self.pendingDocuments.removeAll()  // those of a group that failed went with its transaction
            if let setup = self.database.dialect.groupCommitSetup { try self.database.statement(setup).run() }
            let results = try ingest()
            try self.indexPendingDocuments()
            // Whatever failed in this group is this group's failure, said here (not by the next call).
            try self.database.connection.drain()
            return results
        }
        // Alone, the group is run again when it loses a deadlock to another daemon's, or its connection
        // before COMMIT (`Database.transaction`; its body starts afresh).
        guard holdingOpen || database.held != nil else { return try database.transaction(body) }
        let earlier = database.held?.calls ?? 0
        let results: [IngestCounts]
        do {
            results = try database.heldTransaction(body) { $0.reduce(0) { $0 + $1.new + $1.updated } }
        } catch where earlier > 0 {
            throw StoreError(error.kind, code: error.code,
                             message: "\(error.message) (undone with it: \(earlier) earlier group\(earlier == 1 ? "" : "s") held open)")
        }
        if let held = database.held,
           !holdingOpen || held.entries >= Self.heldEntryLimit || ContinuousClock.now - held.since >= Self.heldDuration {
            try database.commitHeld()
        }
        return results
    }

    /// Whether a group commit is held open: what it holds is not yet stored for good.
    public var isHoldingCommit: Bool { database.held != nil }

    /// Limits the database to `pages` pages (SQLite's max_page_count): tests make a full disk with it.
    func limitPages(to pages: Int) throws(StoreError) {
        try database.execute("PRAGMA max_page_count = \(pages)")
    }

    /// Commits the group commit held open, if any: at the end of a refresh round.
    public func finishHeldCommit() throws(StoreError) {
        try database.commitHeld()
    }
}
