/// The SQL that limits a query to one account's view of the shared entries (docs/ARCHITECTURE.md): the
/// entries its subscribed feeds carry, plus those it starred; its marks; its subscription and
/// category for each entry. `account` is the placeholder (`?N`) its id is bound to; `state` the alias
/// of the entry's `entry_state` row. Fixed text only: every value is bound by the caller.
///
/// From an entry to the account's subscriptions carrying it, the entry's sources come first (`CROSS
/// JOIN` keeps that order): left to choose, SQLite walked the account's 5,000 subscriptions for each
/// entry, and a category's first page took 80 ms instead of 3 (1,000,000 entries, measured).
enum AccountScope {
    /// The entry is carried by a feed the account follows (its first feed decides most entries, the
    /// account's feeds collected once), or the account starred it (asked of the small index of starred
    /// marks: a walk asks it of every entry not its own, and the whole table's tree cost ~3 µs a probe).
    static func visible(account: String, state st: String = "st") -> String {
        """
        ((\(st).feed_id IN (SELECT feed_id FROM subscriptions WHERE account_id = \(account))
          OR (\(st).sources > 1 AND EXISTS (
              SELECT 1 FROM entry_sources vs CROSS JOIN subscriptions vu ON vu.feed_id = vs.feed_id
              WHERE vs.entry_id = \(st).entry_id AND vu.account_id = \(account)))
          OR EXISTS (SELECT 1 FROM entry_marks vm INDEXED BY entry_marks_starred
                     WHERE vm.account_id = \(account) AND vm.entry_id = \(st).entry_id AND vm.starred = 1))
         AND \(notHidden(account: account, state: st)))
        """
    }

    /// The entry is not hidden from the account (a backlog it did not subscribe to: docs/ARCHITECTURE.md). The
    /// hidden marks have a partial index of their own: for most accounts it is empty, and the check is
    /// one probe of an empty tree.
    static func notHidden(account: String, state st: String = "st") -> String {
        """
        NOT EXISTS (SELECT 1 FROM entry_marks hm INDEXED BY entry_marks_hidden
                    WHERE hm.account_id = \(account) AND hm.entry_id = \(st).entry_id AND hm.hidden = 1)
        """
    }

    /// The account has a mark on the entry with `flag` (read or starred) set to 1.
    static func marked(_ flag: Flag, account: String, state st: String = "st") -> String {
        "EXISTS (SELECT 1 FROM entry_marks fm WHERE fm.account_id = \(account) AND fm.entry_id = \(st).entry_id AND fm.\(flag.rawValue) = 1)"
    }

    enum Flag: String {
        case read, starred
    }

    /// Joins for the columns of a listed entry: `m` (the account's marks, maybe none), `u` (its
    /// subscription to a feed carrying the entry: the entry's first feed when it follows that),
    /// `f` (that feed) and `c` (the subscription's category). `entry` is the entry's id column.
    static func joins(account: String, entry: String = "e.id", state st: String = "st") -> String {
        """
        LEFT JOIN entry_marks m ON m.account_id = \(account) AND m.entry_id = \(entry)
        LEFT JOIN subscriptions u ON u.id = coalesce(
            (SELECT ju.id FROM subscriptions ju WHERE ju.account_id = \(account) AND ju.feed_id = \(st).feed_id),
            (SELECT ju.id FROM entry_sources js CROSS JOIN subscriptions ju ON ju.feed_id = js.feed_id
             WHERE js.entry_id = \(entry) AND ju.account_id = \(account) LIMIT 1))
        LEFT JOIN feeds f ON f.id = u.feed_id LEFT JOIN categories c ON c.id = u.category_id
        """
    }

    /// The columns `joins` makes readable, as `StoreReader.article(from:)` reads them (0–12).
    static let articleColumns = """
        e.id, u.id, coalesce(u.title, f.title), c.name, e.title, e.url, e.author, e.published_at, e.updated_at,
        e.summary, e.image_url, coalesce(m.read, 0), coalesce(m.starred, 0)
        """

    /// When the account's read or starred state of the entry last changed (when it was stored, before).
    static let changedAt = "coalesce(m.changed_at, e.first_seen_at)"

    /// The entries the account sees, from its feeds' sources and its starred marks, as `own.id` joined
    /// to `entries e` and `entry_state st`: for an account following a small part of the store, whose
    /// entries a walk of the shared date index would find only among everyone else's.
    static func ownEntries(account: String) -> String {
        """
        (SELECT s.entry_id AS id FROM subscriptions u CROSS JOIN entry_sources s ON s.feed_id = u.feed_id
         WHERE u.account_id = \(account)
         UNION SELECT entry_id FROM entry_marks INDEXED BY entry_marks_starred WHERE account_id = \(account) AND starred = 1) own
        CROSS JOIN entries e ON e.id = own.id JOIN entry_state st ON st.entry_id = e.id
        """
    }

    /// The feed of the account's subscription `subscription`, for conditions on a feed's entries.
    static func feed(ofSubscription subscription: String, account: String) -> String {
        "(SELECT feed_id FROM subscriptions WHERE id = \(subscription) AND account_id = \(account))"
    }

    /// The feed through which the account reads entry `entry`'s text (docs/SECURITY.md, "Text
    /// versions"): in a feed's list the feed of `subscription`, elsewhere (nil) the feed of its oldest
    /// subscription carrying the entry; NULL when none does (a starred entry it no longer follows).
    static func readingFeed(of entry: String, account: String, subscription: String?) -> String {
        if let subscription { return feed(ofSubscription: subscription, account: account) }
        return """
            (SELECT ru.feed_id FROM entry_sources rs CROSS JOIN subscriptions ru ON ru.feed_id = rs.feed_id
             WHERE rs.entry_id = \(entry) AND ru.account_id = \(account) ORDER BY ru.added_at, ru.id LIMIT 1)
            """
    }

    /// The version `version` (an `entry_versions` alias) is the text the account reads of its entry.
    static func readsVersion(_ version: String, account: String, subscription: String?) -> String {
        "\(version).feed_id = \(readingFeed(of: "\(version).entry_id", account: account, subscription: subscription))"
    }

    /// The account reads a version of entry `st`, not its row's text. Asked of the entries that may
    /// have versions only (`versioned`: a few in a hundred).
    static func readsAVersion(account: String, subscription: String?, state st: String = "st") -> String {
        """
        (\(st).versioned <> 0 AND EXISTS (SELECT 1 FROM entry_versions rv WHERE rv.entry_id = \(st).entry_id
                                           AND \(readsVersion("rv", account: account, subscription: subscription))))
        """
    }
}
