import Dispatch
import Foundation
import Synchronization

/// What several daemons sharing one PostgreSQL database agree on through it (docs/ARCHITECTURE.md): which
/// daemon fetches which feed (claims), who is alive (the `nodes` heartbeats), and the wake-ups and
/// events they send each other. It has a connection of its own: a claim is committed at once,
/// never held in the writer's group commit, and never waits behind one.
///
/// A claim sets `claimed_by` and moves the feed's `next_check_at` to the lease's end: no other
/// daemon takes it before then. The claimer renews the lease while it works; when the fetch ends it
/// clears `claimed_by` (the feed's host is free again for the per-host bound) and its commit sets
/// the real next check. A daemon that dies leaves feeds whose lease runs out: they are due again,
/// and another daemon claims them.
public final class ClusterStore: Sendable {
    /// This daemon's name (`node-name`), as claims and heartbeats carry it.
    public let node: String
    private let database: Mutex<Database>
    /// Every call runs here, off Swift's cooperative pool: libpq's calls block.
    private let queue = DispatchQueue(label: "cluster-store")
    /// The channels daemons listen on: events to show (`watch`) and "feeds are due, look again".
    public static let eventChannel = "aggregator_events"
    public static let wakeChannel = "aggregator_wake"
    /// Serializes claim transactions across the cluster, so that two daemons never both see a host
    /// below its bound and together take it past it. A claim is a few milliseconds.
    private static let claimLock = 7_234_002
    /// How many pages of due feeds (4 × the batch each) one claim looks through at most.
    private static let claimPages = 10

    /// Connects to the PostgreSQL database at `uri` (whose schema the store made).
    public init(uri: String, node: String) throws(StoreError) {
        self.node = node
        database = Mutex(try Database(path: uri))
    }

    /// Runs `body` on the queue, with the connection.
    private func perform<T: Sendable>(_ body: @escaping @Sendable (Database) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: self.database.withLock { database in
                    Result { () throws(StoreError) -> T in try body(database) }
                })
            }
        }
        return try result.get()
    }

    // MARK: - Claims

    /// What one claim took, and whether due feeds were left because their hosts are taken.
    public struct Claim: Sendable {
        public var feeds: [FeedFetchState]
        /// Due feeds not taken: another daemon (or this one) is fetching from their hosts, or has
        /// waited longer for them.
        public var heldBack: Int
        /// No other daemon was seen alive: nobody can wait for this one's hosts.
        public var isAlone = false
    }

    /// The channel on which a daemon says it finished with a host that another daemon waits for.
    public static let freedChannel = "aggregator_freed"

    /// Claims up to `limit` due feeds (or due feeds among `only`) for `lease` seconds.
    ///
    /// Politeness across the cluster: a host is one daemon's at a time. A daemon takes up to
    /// `perTurn` feeds a claim of a host no other daemon holds claims on, fetches them (its fetcher
    /// keeps to `per-host-connections`), and the host is free again once the last of them is fetched.
    /// While nobody waits for it, the daemon may top its turn up as feeds finish: up to `perTurn` in
    /// flight when other daemons run; alone, up to `limit`, and a claim takes more than `perTurn` of
    /// a host once every other due host had its turn in it. A daemon that found every due feed's host
    /// taken records the first as the one it waits for, and a host someone has waited for longer is
    /// left to them (no more top-ups there): on a server that carries many feeds the daemons take
    /// turns rather than the quickest keeping it.
    /// - Parameter host: the host of a feed's URL (the fetcher's notion of it).
    public func claim(limit: Int, perTurn: Int, lease: TimeInterval, now: Date = Date(), only feeds: [FeedID]? = nil,
                      host: @escaping @Sendable (String) -> String) async throws(StoreError) -> Claim {
        let only = feeds?.map(\.rawValue)
        if only?.isEmpty == true { return Claim(feeds: [], heldBack: 0) }
        let node = self.node
        return try await perform { database throws(StoreError) in
            try database.transaction { () throws(StoreError) -> Claim in
                let nowSeconds = Int64(now.timeIntervalSince1970)
                // A daemon cut off mid-claim must not hold the lock every claim waits for: the server
                // ends its transaction, and a claim that waits too long fails (and is tried again).
                try database.execute("SET LOCAL lock_timeout = '5s'; SET LOCAL idle_in_transaction_session_timeout = '30s'")
                try database.statement("SELECT pg_advisory_xact_lock(\(Self.claimLock))").run()
                let (taken, mine) = try Self.hostsInUse(by: node, now: nowSeconds, host: host, in: database)
                // A host this daemon holds and nobody else waits for is topped up as its feeds finish
                // (its turn goes on), up to a turn's worth in flight while other daemons run, up to a
                // whole claim's when it runs alone: a turn of 8 that had to end before the next began
                // made a warm round of 1,000 feeds on one host a claim and a release per feed, 4.2 s
                // against SQLite's 0.1 s.
                let othersRun = (try database.integer("SELECT count(*) FROM nodes WHERE name <> ?1 AND heartbeat_at >= ?2",
                                                      [.text(node), .integer(nowSeconds - 30)]) ?? 0) > 0
                var choice = ClaimChoice(limit: limit, perTurn: perTurn, inFlightBound: othersRun ? perTurn : max(perTurn, limit),
                                         taken: taken, mine: mine)
                let seen = try Self.considerDueFeeds(now: nowSeconds, only: only, into: &choice, host: host, in: database)
                // Alone, the claim is filled with more of the hosts it took, once every host had its
                // turn in it: a claim and a release per eight feeds of one host was most of a warm
                // round's time.
                if !othersRun { choice.fillBeyondTurn() }
                let claimed = try Self.take(choice.chosen, node: node, leaseEnd: nowSeconds + Int64(lease.rounded(.up)),
                                            now: nowSeconds, in: database)
                let waitsFor = claimed.isEmpty ? choice.firstHeldBack : nil
                try database.statement("""
                    UPDATE nodes SET feeds_claimed = feeds_claimed + ?2, waiting_for = CAST(?3 AS TEXT),
                        waiting_since = CASE WHEN CAST(?3 AS TEXT) IS NULL THEN NULL ELSE coalesce(waiting_since, ?4) END
                    WHERE name = ?1
                    """).run([.text(node), .integer(Int64(claimed.count)), SQLValue(waitsFor), .integer(nowSeconds)])
                return Claim(feeds: claimed, heldBack: seen - claimed.count, isAlone: !othersRun)
            }
        }
    }

    /// The hosts another daemon holds claims on or has waited for longer than `node` (`taken`), and
    /// `node`'s own feeds in flight by host (`mine`: it waits for nobody there).
    private static func hostsInUse(by node: String, now: Int64, host: (String) -> String,
                                   in database: Database) throws(StoreError) -> (taken: Set<String>, mine: [String: Int]) {
        var taken = Set<String>()
        var mine: [String: Int] = [:]
        try database.statement("SELECT url, claimed_by FROM feeds WHERE claimed_by IS NOT NULL AND next_check_at > ?1")
            .query([.integer(now)]) { row in
                let key = host(row.text(at: 0) ?? "")
                if row.text(at: 1) == node { mine[key, default: 0] += 1 } else { taken.insert(key) }
            }
        let waitingSince = try database.integer("SELECT waiting_since FROM nodes WHERE name = ?1", [.text(node)])
        try database.statement("""
            SELECT waiting_for FROM nodes
            WHERE name <> ?1 AND waiting_for IS NOT NULL AND heartbeat_at >= ?2 AND waiting_since < ?3
            """).query([.text(node), .integer(now - 30), .integer(waitingSince ?? now + 1)]) { row in
            taken.insert(row.text(at: 0) ?? "")
        }
        return (taken, mine)
    }

    /// Hands `choice` the due feeds (among `only`) in due order, a page at a time, until it is full:
    /// a host with hundreds of due feeds (an import) must not hide the others behind it. Only what
    /// the choice needs is read, and nothing is locked: the rows chosen are locked and read whole by
    /// the claim itself. Returns how many due feeds it looked at.
    private static func considerDueFeeds(now: Int64, only: [Int64]?, into choice: inout ClaimChoice,
                                         host: (String) -> String, in database: Database) throws(StoreError) -> Int {
        var seen = 0
        var after: (due: Int64, id: Int64) = (Int64.min, Int64.min)
        let page = choice.limit * 4
        for _ in 0..<claimPages where !choice.isFull {
            var values: [SQLValue] = [.integer(now), .integer(Int64(page)), .integer(after.due), .integer(after.id)]
            let restriction = only.map { "AND id IN (\(SQLValue.placeholders(for: $0, appendingTo: &values)))" } ?? ""
            var candidates: [Candidate] = []
            try database.statement("""
                SELECT id, url, coalesce(next_check_at, 0) FROM feeds
                WHERE status <> 'disabled' AND coalesce(next_check_at, 0) <= ?1
                    AND (coalesce(next_check_at, 0), id) > (?3, ?4) \(restriction)
                ORDER BY coalesce(next_check_at, 0), id LIMIT ?2
                """).query(values) { row in
                candidates.append(Candidate(id: row.int64(at: 0), host: host(row.text(at: 1) ?? ""), due: row.int64(at: 2)))
            }
            seen += candidates.count
            for feed in candidates where !choice.isFull { choice.consider(feed) }
            guard candidates.count == page, let last = candidates.last else { break }
            after = (last.due, last.id)
        }
        return seen
    }

    /// A claim's choice among due feeds, host by host: a host taken by another daemon is passed
    /// over; of a free one, at most `perTurn` feeds this claim and `inFlightBound` in flight.
    private struct ClaimChoice {
        let limit: Int
        let perTurn: Int
        let inFlightBound: Int
        let taken: Set<String>
        let mine: [String: Int]
        var chosen: [Candidate] = []
        var perHost: [String: Int] = [:]
        /// The first host passed over that this daemon has nothing of: the one it then waits for.
        var firstHeldBack: String?
        /// Due feeds of free hosts past this claim's turn on them.
        var beyondTurn: [Candidate] = []

        var isFull: Bool { chosen.count >= limit }

        mutating func consider(_ feed: Candidate) {
            let claiming = perHost[feed.host, default: 0]
            let inFlight = mine[feed.host, default: 0] + claiming
            guard !taken.contains(feed.host), claiming < perTurn, inFlight < inFlightBound else {
                if firstHeldBack == nil, perHost[feed.host] == nil, mine[feed.host] == nil { firstHeldBack = feed.host }
                if !taken.contains(feed.host), claiming >= perTurn { beyondTurn.append(feed) }
                return
            }
            perHost[feed.host, default: 0] += 1
            chosen.append(feed)
        }

        /// More of the hosts taken, up to `inFlightBound` each (a daemon alone).
        mutating func fillBeyondTurn() {
            for feed in beyondTurn where !isFull {
                guard mine[feed.host, default: 0] + perHost[feed.host, default: 0] < inFlightBound else { continue }
                perHost[feed.host, default: 0] += 1
                chosen.append(feed)
            }
        }
    }

    /// A due feed as a claim chooses among them.
    private struct Candidate {
        var id: Int64
        var host: String
        var due: Int64
    }

    /// Claims the feeds `chosen` that are still due and that no other transaction holds (a daemon's
    /// commit recording a fetch, an edit: skipped, not waited for), and reads them as they are now,
    /// in the order chosen. Reading 1,000 due feeds whole and locked, three pages a claim, was
    /// most of a claim's 11 ms.
    private static func take(_ chosen: [Candidate], node: String, leaseEnd: Int64, now: Int64,
                             in database: Database) throws(StoreError) -> [FeedFetchState] {
        guard !chosen.isEmpty else { return [] }
        var values: [SQLValue] = [.text(node), .integer(leaseEnd), .integer(now)]
        let ids = SQLValue.placeholders(for: chosen.map(\.id), appendingTo: &values)
        var taken: [FeedID: FeedFetchState] = [:]
        try database.statement("""
            UPDATE feeds SET claimed_by = ?1, next_check_at = ?2
            WHERE id IN (SELECT id FROM feeds WHERE id IN (\(ids)) AND status <> 'disabled'
                AND coalesce(next_check_at, 0) <= ?3 ORDER BY id FOR UPDATE SKIP LOCKED)
            RETURNING \(FeedFetchState.columns)
            """).query(values) { row in
            let feed = FeedFetchState(row: row)
            taken[feed.id] = feed
        }
        return chosen.compactMap { candidate in
            // When it was due, as the feed's state said before the lease moved it.
            taken[FeedID(candidate.id)].map { feed in
                var feed = feed
                feed.nextCheckAt = candidate.due == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(candidate.due))
                return feed
            }
        }
    }

    /// Extends to `lease` seconds from now the leases of `feedIDs`, those this daemon claimed and
    /// is still working on (not every row that names it: a claim it lost track of, in a failed call
    /// or a previous life under the same name, must run out). Rows a commit is recording are skipped
    /// (their fetch is over), never waited for.
    public func renewClaims(_ feeds: [FeedID], lease: TimeInterval, now: Date = Date()) async throws(StoreError) {
        let feedIDs = feeds.map(\.rawValue)
        guard !feedIDs.isEmpty else { return }
        let node = self.node
        try await perform { database throws(StoreError) in
            var values: [SQLValue] = [.text(node), .integer(Int64(now.timeIntervalSince1970 + lease.rounded(.up)))]
            let ids = SQLValue.placeholders(for: feedIDs, appendingTo: &values)
            try database.statement("""
                UPDATE feeds SET next_check_at = ?2
                WHERE id IN (SELECT id FROM feeds WHERE claimed_by = ?1 AND id IN (\(ids)) ORDER BY id FOR UPDATE SKIP LOCKED)
                """).run(values)
        }
    }

    /// Fetches ended: their feeds no longer hold their hosts. Their leases (`next_check_at`) stay
    /// until the commit that records each fetch sets the next check. Daemons waiting for a host are told.
    public func fetched(_ feeds: [FeedID]) async throws(StoreError) {
        let feedIDs = feeds.map(\.rawValue)
        guard !feedIDs.isEmpty else { return }
        let node = self.node
        try await perform { database throws(StoreError) in
            var values: [SQLValue] = [.text(node)]
            let ids = SQLValue.placeholders(for: feedIDs, appendingTo: &values)
            // Rows a commit is recording are skipped: it clears their claims itself (and waiting for it
            // while it waits for a row locked here would be a deadlock).
            try database.statement("""
                UPDATE feeds SET claimed_by = NULL
                WHERE id IN (SELECT id FROM feeds WHERE claimed_by = ?1 AND id IN (\(ids)) ORDER BY id FOR UPDATE SKIP LOCKED)
                """).run(values)
            try database.statement("""
                SELECT pg_notify('\(Self.freedChannel)', '') WHERE EXISTS (SELECT 1 FROM nodes WHERE waiting_for IS NOT NULL AND name <> ?1)
                """).run([.text(node)])
        }
    }

    /// Gives back every feed this daemon holds (it is stopping): due again now, for any daemon.
    public func releaseClaims(now: Date = Date()) async throws(StoreError) {
        let node = self.node
        try await perform { database throws(StoreError) in
            try database.statement("""
                UPDATE feeds SET claimed_by = NULL, next_check_at = ?2
                WHERE id IN (SELECT id FROM feeds WHERE claimed_by = ?1 FOR UPDATE SKIP LOCKED)
                """).run([.text(node), .integer(Int64(now.timeIntervalSince1970))])
            try database.statement("UPDATE nodes SET waiting_for = NULL, waiting_since = NULL WHERE name = ?1").run([.text(node)])
            try database.statement("SELECT pg_notify('\(Self.freedChannel)', '')").run()
        }
    }

    /// Makes `feedIDs` (every feed when nil) due now for whichever daemon claims them first, and
    /// wakes every daemon. Feeds being fetched now are left alone: that fetch counts.
    /// - Returns: how many feeds were made due.
    @discardableResult
    public func makeDue(_ feeds: [FeedID]?, now: Date = Date()) async throws(StoreError) -> Int {
        let feedIDs = feeds?.map(\.rawValue)
        if feedIDs?.isEmpty == true { return 0 }
        return try await perform { database throws(StoreError) in
            var values: [SQLValue] = [.integer(Int64(now.timeIntervalSince1970))]
            let restriction = feedIDs.map { "AND id IN (\(SQLValue.placeholders(for: $0, appendingTo: &values)))" } ?? ""
            // Rows a commit is recording are left alone (it sets their next check; never a deadlock with it).
            let statement = try database.statement("""
                UPDATE feeds SET next_check_at = 0
                WHERE id IN (SELECT id FROM feeds
                             WHERE status <> 'disabled' AND (claimed_by IS NULL OR next_check_at <= ?1) \(restriction)
                             ORDER BY id FOR UPDATE SKIP LOCKED)
                """)
            try statement.run(values)
            let changed = try database.changes()
            try database.statement("SELECT pg_notify('\(Self.wakeChannel)', '')").run()
            return changed
        }
    }

    /// Wakes every daemon's scheduler (feeds were added or changed).
    public func wakeEveryone() async throws(StoreError) {
        try await perform { database throws(StoreError) in
            try database.statement("SELECT pg_notify('\(Self.wakeChannel)', '')").run()
        }
    }

    /// When the soonest feed is due (claimed ones: when their lease ends); nil without feeds.
    public func nextDue() async throws(StoreError) -> Date? {
        try await perform { database throws(StoreError) in
            try database.integer("SELECT min(coalesce(next_check_at, 0)) FROM feeds WHERE status <> 'disabled'", [])
                .map { Date(timeIntervalSince1970: TimeInterval($0)) }
        }
    }

    /// A feed's last check, by whichever daemon made it.
    public struct Check: Sendable {
        public var at: Date
        /// Whether it succeeded (a document or a 304), as the feed's status says.
        public var succeeded: Bool
        /// How many checks the feed has had: a later check has a higher count, even in the same second.
        public var count: Int64
    }

    /// The last check of each of `feedIDs` (those checked at all).
    public func checks(_ feeds: [FeedID]) async throws(StoreError) -> [FeedID: Check] {
        guard !feeds.isEmpty else { return [:] }
        let feedIDs = feeds.map(\.rawValue)
        return try await perform { database throws(StoreError) -> [FeedID: Check] in
            var values: [SQLValue] = []
            let ids = SQLValue.placeholders(for: feedIDs, appendingTo: &values)
            var found: [FeedID: Check] = [:]
            try database.statement("""
                SELECT id, checked_at, status, check_count FROM feeds WHERE checked_at IS NOT NULL AND id IN (\(ids))
                """).query(values) { row in
                    found[row.feedID(at: 0)] = Check(at: Date(timeIntervalSince1970: TimeInterval(row.int64(at: 1))),
                                                    succeeded: row.text(at: 2) == "ok", count: row.int64(at: 3))
                }
            return found
        }
    }

    // MARK: - Events

    /// Tells every daemon listening on `channel` (`PostgresListener`) `payload` (at most 7,900 bytes).
    public func notify(_ channel: String, _ payload: String) async throws(StoreError) {
        try await perform { database throws(StoreError) in
            try database.statement("SELECT pg_notify(?1, ?2)").run([.text(channel), .text(String(decoding: payload.utf8.prefix(7900), as: UTF8.self))])
        }
    }

    // MARK: - Nodes

    /// One daemon as `status` lists it.
    public struct Node: Sendable, Equatable {
        public var name: String
        public var started: Date
        public var lastHeartbeat: Date
        /// Feeds it claimed since it started.
        public var feedsClaimed: Int
        /// Fetches its last finished round made.
        public var lastRoundFetches: Int
    }

    /// Records this daemon's start (its counters from zero) and forgets daemons unseen for a day.
    public func register(started: Date, lease: TimeInterval) async throws(StoreError) {
        let node = self.node
        try await perform { database throws(StoreError) in
            let now = Int64(started.timeIntervalSince1970)
            try database.statement("""
                INSERT INTO nodes (name, started_at, heartbeat_at, feeds_claimed, last_round_fetches) VALUES (?1, ?2, ?2, 0, 0)
                ON CONFLICT (name) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,
                    feeds_claimed = 0, last_round_fetches = 0
                """).run([.text(node), .integer(now)])
            try database.statement("DELETE FROM nodes WHERE heartbeat_at < ?1").run([.integer(now - 86_400)])
            // Claims under this name from an earlier life (restarted within its lease) are due again
            // now. This life's own claims, which may already be made, end after `now + lease`.
            try database.statement("""
                UPDATE feeds SET claimed_by = NULL, next_check_at = ?2
                WHERE id IN (SELECT id FROM feeds WHERE claimed_by = ?1 AND next_check_at < ?3 FOR UPDATE SKIP LOCKED)
                """).run([.text(node), .integer(now), .integer(now + Int64(lease.rounded(.up)))])
        }
    }

    /// This daemon is alive; `lastRoundFetches` when a round finished since the last beat.
    public func heartbeat(now: Date = Date(), lastRoundFetches: Int?) async throws(StoreError) {
        let node = self.node
        try await perform { database throws(StoreError) in
            try database.statement("""
                UPDATE nodes SET heartbeat_at = ?2, last_round_fetches = coalesce(?3, last_round_fetches) WHERE name = ?1
                """).run([.text(node), .integer(Int64(now.timeIntervalSince1970)), SQLValue(lastRoundFetches.map(Int64.init))])
        }
    }

    /// The daemons whose heartbeat is at most `window` seconds old, by name.
    public func nodes(seenWithin window: TimeInterval = 60, now: Date = Date()) async throws(StoreError) -> [Node] {
        try await perform { database throws(StoreError) in
            var nodes: [Node] = []
            try database.statement("""
                SELECT name, started_at, heartbeat_at, feeds_claimed, last_round_fetches FROM nodes
                WHERE heartbeat_at >= ?1 ORDER BY name
                """).query([.integer(Int64(now.timeIntervalSince1970 - window))]) { row in
                nodes.append(Node(name: row.text(at: 0) ?? "", started: Date(timeIntervalSince1970: TimeInterval(row.int64(at: 1))),
                                  lastHeartbeat: Date(timeIntervalSince1970: TimeInterval(row.int64(at: 2))),
                                  feedsClaimed: Int(row.int64(at: 3)), lastRoundFetches: Int(row.int64(at: 4))))
            }
            return nodes
        }
    }

    // MARK: - Login failures

    /// The failed logins in a row from `address` that any daemon counted, and when the last was.
    public func loginFailures(from address: String) async throws(StoreError) -> (count: Int, last: Date)? {
        try await perform { database throws(StoreError) in
            var found: (count: Int, last: Date)?
            try database.statement("SELECT failures, last_at FROM login_failures WHERE address = ?1").query([.text(address)]) { row in
                found = (Int(row.int64(at: 0)), Date(timeIntervalSince1970: TimeInterval(row.int64(at: 1))))
            }
            return found
        }
    }

    /// Counts a failed login from `address`; forgets addresses idle for an hour.
    /// - Returns: the failures in a row from it, across the cluster.
    public func loginFailed(from address: String, now: Date = Date()) async throws(StoreError) -> Int {
        try await perform { database throws(StoreError) in
            let seconds = Int64(now.timeIntervalSince1970)
            try database.statement("DELETE FROM login_failures WHERE last_at < ?1").run([.integer(seconds - 3600)])
            return Int(try database.integer("""
                INSERT INTO login_failures (address, failures, last_at) VALUES (?1, 1, ?2)
                ON CONFLICT (address) DO UPDATE SET failures = login_failures.failures + 1, last_at = excluded.last_at
                RETURNING failures
                """, [.text(address), .integer(seconds)]) ?? 1)
        }
    }

    /// A login from `address` succeeded: its failures are forgotten.
    public func loginSucceeded(from address: String) async throws(StoreError) {
        try await perform { database throws(StoreError) in
            try database.statement("DELETE FROM login_failures WHERE address = ?1").run([.text(address)])
        }
    }

    /// Asks the database a trivial question: throws when it does not answer (`/healthcheck`).
    public func check() async throws(StoreError) {
        _ = try await perform { database throws(StoreError) in try database.integer("SELECT 1", []) }
    }
}
