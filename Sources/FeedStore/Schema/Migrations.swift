/// The schema's history, as an append-only list of steps. A step is never edited once shipped:
/// change the schema by appending a step, written once for both backends (`SchemaWords`).
/// A new database starts at `Baseline` (step 27); steps 1 to 27 are kept for SQLite files made
/// before, in SQLite's terms (PostgreSQL databases always began at the baseline).
enum Migrations {
    /// One step: its SQL in a backend's words, whether it rebuilds tables (`SchemaKeeper.step`), and
    /// Swift work after it.
    struct Step: Sendable {
        let sql: @Sendable (SchemaWords) -> String
        var rebuildsTables = false
        var then: (@Sendable (Database) throws(StoreError) -> Void)?

        /// A step from before the baseline, in SQLite's terms.
        init(sql: String, rebuildsTables: Bool = false, then: (@Sendable (Database) throws(StoreError) -> Void)? = nil) {
            self.init(rebuildsTables: rebuildsTables, then: then) { _ in sql }
        }

        /// A step written once for both backends.
        init(rebuildsTables: Bool = false, then: (@Sendable (Database) throws(StoreError) -> Void)? = nil,
             _ sql: @escaping @Sendable (SchemaWords) -> String) {
            self.sql = sql
            self.rebuildsTables = rebuildsTables
            self.then = then
        }
    }

    static let steps: [Step] = [
        // 1: feeds and their categories, with the fetch state the scheduler needs.
        Step(sql: """
        CREATE TABLE categories (
            id   INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE
        );
        CREATE TABLE feeds (
            id            INTEGER PRIMARY KEY,
            url           TEXT NOT NULL UNIQUE,
            title         TEXT,
            site_url      TEXT,
            category_id   INTEGER REFERENCES categories(id) ON DELETE SET NULL,
            added_at      INTEGER NOT NULL,
            etag          TEXT,
            last_modified TEXT,
            checked_at    INTEGER,
            next_check_at INTEGER,
            interval_s    INTEGER,
            error_count   INTEGER NOT NULL DEFAULT 0,
            last_error    TEXT,
            status        TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing', 'disabled'))
        );
        CREATE INDEX feeds_by_next_check ON feeds(next_check_at);
        CREATE INDEX feeds_by_category ON feeds(category_id);
        """),
        // 2: entries, stored once per key (canonical URL, else per-feed guid or hash), the feeds that
        // carried each, and a contentless full-text index over title, plain text and author.
        // Prefix index for 3 characters only: a 2-character one made ingest 45 % slower (measured).
        Step(sql: """
        CREATE TABLE entries (
            id            INTEGER PRIMARY KEY,
            feed_id       INTEGER REFERENCES feeds(id) ON DELETE SET NULL,
            key           TEXT NOT NULL UNIQUE,
            url           TEXT,
            guid          TEXT,
            title         TEXT,
            summary       TEXT,
            content       TEXT,
            author        TEXT,
            published_at  INTEGER,
            updated_at    INTEGER,
            first_seen_at INTEGER NOT NULL,
            sort_at       INTEGER NOT NULL,
            image_url     TEXT,
            enclosures    TEXT,
            search_text   TEXT,
            fingerprint   INTEGER NOT NULL,
            read          INTEGER NOT NULL DEFAULT 0,
            starred       INTEGER NOT NULL DEFAULT 0,
            removed       INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX entries_by_sort ON entries(sort_at, id);
        CREATE INDEX entries_by_feed_sort ON entries(feed_id, sort_at, id);
        CREATE TABLE entry_sources (
            feed_id  INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            guid     TEXT,
            PRIMARY KEY (feed_id, entry_id)
        ) WITHOUT ROWID;
        CREATE INDEX entry_sources_by_entry ON entry_sources(entry_id);
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            title, body, author, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
        );
        INSERT INTO entries_fts(entries_fts, rank) VALUES ('rank', 'bm25(10.0, 1.0, 2.0)');
        """),
        // 3: entry and unread totals from a small index instead of the whole table (`status`).
        Step(sql: """
        CREATE INDEX entries_by_state ON entries(removed, read);
        """),
        // 4: what changes often moves out of the wide entries rows into `entry_state` (a category
        // marked read rewrote ~200 MB of entry pages at 1M entries; now a few bytes per entry), with
        // each entry's primary feed and number of sources, which keep counters without lookups.
        // Unread and total counters per feed, per category and in all replace counting at query time.
        // `entries` is rebuilt with its small, often-read columns first and the text last.
        Step(sql: """
        CREATE TABLE entry_state (
            entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            feed_id  INTEGER REFERENCES feeds(id) ON DELETE SET NULL,
            sources  INTEGER NOT NULL DEFAULT 1,
            read     INTEGER NOT NULL DEFAULT 0,
            starred  INTEGER NOT NULL DEFAULT 0,
            removed  INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO entry_state(entry_id, feed_id, sources, read, starred, removed)
            SELECT id, feed_id, (SELECT count(*) FROM entry_sources s WHERE s.entry_id = e.id), read, starred, removed
            FROM entries e;
        CREATE INDEX entry_state_by_feed ON entry_state(feed_id);
        CREATE TABLE entries_v4 (
            id            INTEGER PRIMARY KEY,
            key           TEXT NOT NULL UNIQUE,
            sort_at       INTEGER NOT NULL,
            first_seen_at INTEGER NOT NULL,
            published_at  INTEGER,
            updated_at    INTEGER,
            fingerprint   INTEGER NOT NULL,
            url           TEXT,
            guid          TEXT,
            title         TEXT,
            author        TEXT,
            image_url     TEXT,
            enclosures    TEXT,
            summary       TEXT,
            content       TEXT,
            search_text   TEXT
        );
        INSERT INTO entries_v4(id, key, sort_at, first_seen_at, published_at, updated_at, fingerprint, url, guid,
                               title, author, image_url, enclosures, summary, content, search_text)
            SELECT id, key, sort_at, first_seen_at, published_at, updated_at, fingerprint, url, guid,
                   title, author, image_url, enclosures, summary, content, search_text
            FROM entries;
        DROP TABLE entries;
        ALTER TABLE entries_v4 RENAME TO entries;
        CREATE INDEX entries_by_sort ON entries(sort_at, id);
        ALTER TABLE feeds ADD COLUMN entry_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE categories ADD COLUMN entry_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE categories ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE store_totals (
            id      INTEGER PRIMARY KEY CHECK (id = 1),
            entries INTEGER NOT NULL,
            unread  INTEGER NOT NULL
        );
        INSERT INTO store_totals(id, entries, unread) VALUES (1, 0, 0);
        """, rebuildsTables: true, then: { database throws(StoreError) in try database.execute(countersAsOfStep4) }),
        // 5: the full-text index keyed by an order key, max(sort_at, 0) * 2^29 + id, instead of the
        // entry id, so searches walk it newest or oldest first and stop after a page (Connection/SearchSQL.swift).
        Step(sql: """
        DROP TABLE entries_fts;
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            title, body, author, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
        );
        INSERT INTO entries_fts(rowid, title, body, author)
            SELECT max(e.sort_at, 0) * 536870912 + e.id, e.title, e.search_text, e.author
            FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE st.removed = 0;
        """),
        // 6: the full-text index keyed by entry id again (written in rowid order: a cold ingest twice as
        // fast as with step 5's date key, and a third smaller), and each entry's sort date kept in its
        // state too, where searches in date order rank their matches without reading the wide rows.
        // FTS5 merges segments once 16 of a level exist rather than 4: a cold ingest 17 % faster, searches
        // at a million entries as fast (measured).
        Step(sql: """
        ALTER TABLE entry_state ADD COLUMN sort_at INTEGER NOT NULL DEFAULT 0;
        UPDATE entry_state SET sort_at = (SELECT e.sort_at FROM entries e WHERE e.id = entry_state.entry_id);
        DROP TABLE entries_fts;
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            title, body, author, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
        );
        INSERT INTO entries_fts(rowid, title, body, author)
            SELECT e.id, e.title, e.search_text, e.author
            FROM entries e JOIN entry_state st ON st.entry_id = e.id WHERE st.removed = 0 ORDER BY e.id;
        INSERT INTO entries_fts(entries_fts, rank) VALUES ('automerge', 16);
        """),
        // 7: the owner account of the HTTP APIs (one row: name, Argon2id password hash, Fever's key
        // when turned on) and its API tokens, stored as SHA-256 digests, never in clear.
        Step(sql: """
        CREATE TABLE account (
            id            INTEGER PRIMARY KEY CHECK (id = 1),
            name          TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            fever_key     TEXT,
            created_at    INTEGER NOT NULL,
            updated_at    INTEGER NOT NULL
        );
        CREATE TABLE api_tokens (
            id           INTEGER PRIMARY KEY,
            label        TEXT NOT NULL UNIQUE,
            digest       TEXT NOT NULL UNIQUE,
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER
        );
        """),
        // 8: when each entry's read or starred state last changed (reader apps sync by it: Miniflux's
        // `changed_after`); NULL until the first change, read as the time the entry was first seen.
        Step(sql: """
        ALTER TABLE entry_state ADD COLUMN changed_at INTEGER;
        """),
        // 9: expired entries sort below every date (FeedStore.expiredSortKey), so that listings oldest
        // first skip them with the sort index instead of stepping over each.
        Step(sql: """
        UPDATE entries SET sort_at = -9223372036854775808
        WHERE id IN (SELECT entry_id FROM entry_state WHERE removed = 1);
        """),
        // 10: the web page's login sessions, stored as SHA-256 digests of the cookie (never in clear),
        // with what the settings page shows to tell them apart and revoke one.
        Step(sql: """
        CREATE TABLE web_sessions (
            id           INTEGER PRIMARY KEY,
            digest       TEXT NOT NULL UNIQUE,
            created_at   INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            user_agent   TEXT NOT NULL,
            address      TEXT NOT NULL
        );
        """),
        // 11: a category can be hidden from the global listings (Miniflux's `hide_globally`): its
        // entries stay in its own listing and its feeds', not in "everything".
        Step(sql: """
        ALTER TABLE categories ADD COLUMN hide_globally INTEGER NOT NULL DEFAULT 0;
        """),
        // 12: the live entries in date order on the narrow state rows, which a deep page in that order
        // walks instead of the wide entries' date index with a state lookup per row (offset 20,000:
        // 32 ms → 1.2 ms in SQLite alone at 1,000,000 entries).
        Step(sql: """
        CREATE INDEX entry_state_by_sort ON entry_state(sort_at, entry_id) WHERE removed = 0;
        """),
        // 13: when each feed last brought an entry (stored, or newly carried): Google Reader's
        // `newestItemTimestampUsec`, by which some apps decide whether to read a feed again.
        Step(sql: """
        ALTER TABLE feeds ADD COLUMN newest_entry_at INTEGER;
        UPDATE feeds SET newest_entry_at = (
            SELECT max(e.first_seen_at) FROM entry_sources s JOIN entries e ON e.id = s.entry_id WHERE s.feed_id = feeds.id);
        """),
        // 14: many accounts (docs/ARCHITECTURE.md). The owner becomes account 1, an admin; a database without
        // one gets account 1 named "admin" with no password (it cannot log in until `user set` gives
        // it one), so that everything always belongs to an account. Tokens and sessions belong to
        // one. AUTOINCREMENT: an account's, token's or session's id is never given out again.
        Step(sql: """
        CREATE TABLE accounts (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            admin         INTEGER NOT NULL DEFAULT 0,
            fever_key     TEXT,
            created_at    INTEGER NOT NULL,
            updated_at    INTEGER NOT NULL,
            last_login_at INTEGER
        );
        INSERT INTO accounts(id, name, password_hash, admin, fever_key, created_at, updated_at)
            SELECT 1, name, password_hash, 1, fever_key, created_at, updated_at FROM account;
        INSERT INTO accounts(id, name, password_hash, admin, created_at, updated_at)
            SELECT 1, 'admin', '', 1, unixepoch(), unixepoch() WHERE NOT EXISTS (SELECT 1 FROM accounts);
        DROP TABLE account;
        CREATE TABLE api_tokens_v14 (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            label        TEXT NOT NULL,
            digest       TEXT NOT NULL UNIQUE,
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER,
            UNIQUE (account_id, label)
        );
        INSERT INTO api_tokens_v14(id, account_id, label, digest, created_at, last_used_at)
            SELECT id, 1, label, digest, created_at, last_used_at FROM api_tokens;
        DROP TABLE api_tokens;
        ALTER TABLE api_tokens_v14 RENAME TO api_tokens;
        CREATE TABLE web_sessions_v14 (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            digest       TEXT NOT NULL UNIQUE,
            created_at   INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            user_agent   TEXT NOT NULL,
            address      TEXT NOT NULL
        );
        INSERT INTO web_sessions_v14(id, account_id, digest, created_at, last_seen_at, user_agent, address)
            SELECT id, 1, digest, created_at, last_seen_at, user_agent, address FROM web_sessions;
        DROP TABLE web_sessions;
        ALTER TABLE web_sessions_v14 RENAME TO web_sessions;
        CREATE INDEX web_sessions_by_account ON web_sessions(account_id);
        """, rebuildsTables: true),
        // 15: feed icons (docs/ARCHITECTURE.md), kept once per distinct image (by SHA-256) however many feeds show
        // it; each feed's icon, when it was last looked for, and the image its document names.
        Step(sql: """
        CREATE TABLE icons (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            digest     TEXT NOT NULL UNIQUE,
            mime_type  TEXT NOT NULL,
            data       BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        ALTER TABLE feeds ADD COLUMN icon_id INTEGER REFERENCES icons(id) ON DELETE SET NULL;
        ALTER TABLE feeds ADD COLUMN icon_checked_at INTEGER;
        ALTER TABLE feeds ADD COLUMN image_url TEXT;
        CREATE INDEX feeds_by_icon ON feeds(icon_id) WHERE icon_id IS NOT NULL;
        """),
        // 16: where each account stopped in an enclosure (Miniflux's `media_progression`, seconds into a
        // podcast), a row only once it is past the start.
        Step(sql: """
        CREATE TABLE media_progress (
            account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            enclosure  INTEGER NOT NULL,
            seconds    INTEGER NOT NULL,
            PRIMARY KEY (account_id, entry_id, enclosure)
        ) WITHOUT ROWID;
        """),
        // 17: an entry's id is never given out again (apps cache ids; issue 29): removing a feed deletes
        // the entries only it carried, and SQLite reused the highest of those for the next entry. The
        // rebuild keeps every id (a minute or two at a million entries, once).
        Step(sql: """
        CREATE TABLE entries_v17 (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            key           TEXT NOT NULL UNIQUE,
            sort_at       INTEGER NOT NULL,
            first_seen_at INTEGER NOT NULL,
            published_at  INTEGER,
            updated_at    INTEGER,
            fingerprint   INTEGER NOT NULL,
            url           TEXT,
            guid          TEXT,
            title         TEXT,
            author        TEXT,
            image_url     TEXT,
            enclosures    TEXT,
            summary       TEXT,
            content       TEXT,
            search_text   TEXT
        );
        INSERT INTO entries_v17(id, key, sort_at, first_seen_at, published_at, updated_at, fingerprint, url, guid,
                                title, author, image_url, enclosures, summary, content, search_text)
            SELECT id, key, sort_at, first_seen_at, published_at, updated_at, fingerprint, url, guid,
                   title, author, image_url, enclosures, summary, content, search_text
            FROM entries ORDER BY id;
        DROP TABLE entries;
        ALTER TABLE entries_v17 RENAME TO entries;
        CREATE INDEX entries_by_sort ON entries(sort_at, id);
        """, rebuildsTables: true),
        // 18: where each feed's icon was found: looked at again first, one request a fortnight.
        Step(sql: """
        ALTER TABLE feeds ADD COLUMN icon_url TEXT;
        """),
        // 19: an account's own title or content for an entry (Miniflux's `PUT /v1/entries/{id}`),
        // shown to that account only; the entry stays as its feed wrote it for everyone else.
        Step(sql: """
        CREATE TABLE entry_edits (
            account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            title      TEXT,
            content    TEXT,
            edited_at  INTEGER NOT NULL,
            PRIMARY KEY (account_id, entry_id)
        ) WITHOUT ROWID;
        """),
        // 20: each account's own view of the shared feeds (docs/ARCHITECTURE.md). A feed is one fetch identity;
        // a subscription holds what is an account's (its title, category, `disabled`) and how many of
        // the feed's live entries it has read, so its unread count is the feed's total minus that, with
        // no write per follower when an entry arrives. Categories belong to an account; read and
        // starred marks are per (account, entry), and `stars` says how many accounts starred an entry
        // (retention keeps it while any does). Account 1 keeps everything, its subscriptions with the
        // feeds' ids (apps cache them). Feeds and categories get AUTOINCREMENT: ids never given again.
        Step(sql: """
        CREATE TABLE categories_v20 (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            account_id    INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            name          TEXT NOT NULL COLLATE NOCASE,
            hide_globally INTEGER NOT NULL DEFAULT 0,
            UNIQUE (account_id, name)
        );
        INSERT INTO categories_v20(id, account_id, name, hide_globally)
            SELECT id, 1, name, hide_globally FROM categories ORDER BY id;
        CREATE TABLE feeds_v20 (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            url             TEXT NOT NULL UNIQUE,
            title           TEXT,
            site_url        TEXT,
            added_at        INTEGER NOT NULL,
            etag            TEXT,
            last_modified   TEXT,
            checked_at      INTEGER,
            next_check_at   INTEGER,
            interval_s      INTEGER,
            error_count     INTEGER NOT NULL DEFAULT 0,
            last_error      TEXT,
            status          TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing', 'disabled')),
            entry_count     INTEGER NOT NULL DEFAULT 0,
            newest_entry_at INTEGER,
            icon_id         INTEGER REFERENCES icons(id) ON DELETE SET NULL,
            icon_checked_at INTEGER,
            image_url       TEXT,
            icon_url        TEXT
        );
        INSERT INTO feeds_v20(id, url, title, site_url, added_at, etag, last_modified, checked_at, next_check_at,
                              interval_s, error_count, last_error, status, entry_count, newest_entry_at, icon_id,
                              icon_checked_at, image_url, icon_url)
            SELECT id, url, title, site_url, added_at, etag, last_modified, checked_at, next_check_at,
                   interval_s, error_count, last_error, status, entry_count, newest_entry_at, icon_id,
                   icon_checked_at, image_url, icon_url
            FROM feeds ORDER BY id;
        CREATE TABLE subscriptions (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            feed_id     INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            title       TEXT,
            category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL,
            disabled    INTEGER NOT NULL DEFAULT 0,
            added_at    INTEGER NOT NULL,
            read_count  INTEGER NOT NULL DEFAULT 0,
            UNIQUE (account_id, feed_id)
        );
        INSERT INTO subscriptions(id, account_id, feed_id, title, category_id, added_at, read_count)
            SELECT id, 1, id, title, category_id, added_at, entry_count - unread_count FROM feeds ORDER BY id;
        CREATE INDEX subscriptions_by_feed ON subscriptions(feed_id);
        CREATE INDEX subscriptions_by_category ON subscriptions(category_id) WHERE category_id IS NOT NULL;
        CREATE TABLE entry_marks (
            account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            read       INTEGER NOT NULL DEFAULT 0,
            starred    INTEGER NOT NULL DEFAULT 0,
            changed_at INTEGER NOT NULL,
            PRIMARY KEY (account_id, entry_id)
        ) WITHOUT ROWID;
        INSERT INTO entry_marks(account_id, entry_id, read, starred, changed_at)
            SELECT 1, st.entry_id, st.read, st.starred, coalesce(st.changed_at, e.first_seen_at)
            FROM entry_state st JOIN entries e ON e.id = st.entry_id
            WHERE st.removed = 0 AND (st.read = 1 OR st.starred = 1 OR st.changed_at IS NOT NULL)
            ORDER BY st.entry_id;
        CREATE INDEX entry_marks_by_entry ON entry_marks(entry_id);
        CREATE INDEX entry_marks_starred ON entry_marks(account_id, entry_id) WHERE starred = 1;
        CREATE TABLE entry_state_v20 (
            entry_id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            feed_id  INTEGER REFERENCES feeds(id) ON DELETE SET NULL,
            sources  INTEGER NOT NULL DEFAULT 1,
            stars    INTEGER NOT NULL DEFAULT 0,
            removed  INTEGER NOT NULL DEFAULT 0,
            sort_at  INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO entry_state_v20(entry_id, feed_id, sources, stars, removed, sort_at)
            SELECT entry_id, feed_id, sources, starred, removed, sort_at FROM entry_state ORDER BY entry_id;
        DROP TABLE entry_state;
        DROP TABLE feeds;
        DROP TABLE categories;
        ALTER TABLE categories_v20 RENAME TO categories;
        ALTER TABLE feeds_v20 RENAME TO feeds;
        ALTER TABLE entry_state_v20 RENAME TO entry_state;
        CREATE INDEX feeds_by_next_check ON feeds(next_check_at);
        CREATE INDEX feeds_by_icon ON feeds(icon_id) WHERE icon_id IS NOT NULL;
        CREATE INDEX entry_state_by_feed ON entry_state(feed_id);
        CREATE INDEX entry_state_by_sort ON entry_state(sort_at, entry_id) WHERE removed = 0;
        CREATE INDEX entry_state_crossposted ON entry_state(entry_id) WHERE sources > 1 AND removed = 0;
        ALTER TABLE store_totals DROP COLUMN unread;
        """, rebuildsTables: true),
        // 21: full article content (docs/ARCHITECTURE.md). The article extracted from an entry's page is the
        // page's text, whoever asked: kept once per entry. It is shown instead of the feed's content
        // only to the accounts that asked for that (`update_content=true`, the web page's button).
        Step(sql: """
        CREATE TABLE entry_pages (
            entry_id   INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            content    TEXT NOT NULL,
            fetched_at INTEGER NOT NULL
        );
        CREATE TABLE page_readers (
            account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            PRIMARY KEY (account_id, entry_id)
        ) WITHOUT ROWID;
        CREATE INDEX page_readers_by_entry ON page_readers(entry_id);
        """),
        // 22: entries hidden from one account (docs/ARCHITECTURE.md): the backlog of a stored feed older than its
        // latest document, when the account subscribes (what it would have got subscribing alone). A
        // hidden mark is neither read nor unread; `hidden_count` keeps it out of the subscription's
        // counts as `read_count` does for reads. `latest_entries` (a JSON array of entry ids) is the
        // feed's latest stored document; a feed stored before this step has none and hides nothing.
        Step(sql: """
        ALTER TABLE entry_marks ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX entry_marks_hidden ON entry_marks(account_id, entry_id) WHERE hidden = 1;
        ALTER TABLE subscriptions ADD COLUMN hidden_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN latest_entries TEXT;
        """),
        // 23: an account's reading preferences (Miniflux's user settings: theme, language, time zone,
        // …), a JSON object of those that differ from the defaults; the service knows their rules.
        Step(sql: """
        ALTER TABLE accounts ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
        """),
        // 24: the date index of the state rows carries what a walk asks of each row (its first feed
        // and how many feeds carry it): an account's page walked past everyone else's entries
        // without reading their rows (500 feeds of 5,000 at 1,000,000 entries: 5.4 → 1.0 ms).
        Step(sql: """
        DROP INDEX entry_state_by_sort;
        CREATE INDEX entry_state_by_sort ON entry_state(sort_at, entry_id, feed_id, sources) WHERE removed = 0;
        """),
        // 25: an account can keep one feed out of its global listings (Miniflux's feed `hide_globally`),
        // as it can a whole category.
        Step(sql: """
        ALTER TABLE subscriptions ADD COLUMN hide_globally INTEGER NOT NULL DEFAULT 0;
        """),
        // 26: an account's selector of a feed's article content (Miniflux's `scraper_rules`, docs/ARCHITECTURE.md).
        Step(sql: """
        ALTER TABLE subscriptions ADD COLUMN scraper_rules TEXT;
        """),
        // 27: an account's filter rules for a feed (Miniflux's `blocklist_rules`, `keeplist_rules`,
        // docs/ARCHITECTURE.md); what they hide is a hidden mark `by_rule`, which a change of the rules takes back.
        Step(sql: """
        ALTER TABLE subscriptions ADD COLUMN blocklist_rules TEXT;
        ALTER TABLE subscriptions ADD COLUMN keeplist_rules TEXT;
        ALTER TABLE entry_marks ADD COLUMN by_rule INTEGER NOT NULL DEFAULT 0;
        """),
        // 28: several daemons on one database (docs/ARCHITECTURE.md). `claimed_by` names the daemon fetching a
        // feed now (its lease is the feed's `next_check_at`); `nodes` holds each daemon's heartbeat,
        // and the host it waits for when every due feed's host is another daemon's (`ClusterStore`);
        // `login_failures` is the password-guessing throttle every daemon consults (`LoginThrottle`).
        // SQLite has one daemon, which claims nothing and throttles in memory: they stay empty there,
        // and only PostgreSQL's daemons claim due feeds by `feeds_due`.
        Step { w in """
        ALTER TABLE feeds ADD COLUMN claimed_by \(w.text);
        CREATE INDEX feeds_by_claimer ON feeds(claimed_by) WHERE claimed_by IS NOT NULL;
        \(w.postgres("CREATE INDEX feeds_due ON feeds((coalesce(next_check_at, 0)), id) WHERE status <> 'disabled';"))
        CREATE TABLE nodes (
            name               \(w.text) PRIMARY KEY,
            started_at         \(w.integer) NOT NULL,
            heartbeat_at       \(w.integer) NOT NULL,
            feeds_claimed      \(w.integer) NOT NULL DEFAULT 0,
            last_round_fetches \(w.integer) NOT NULL DEFAULT 0,
            waiting_for        \(w.text),
            waiting_since      \(w.integer)
        );
        CREATE TABLE login_failures (address \(w.text) PRIMARY KEY, failures \(w.integer) NOT NULL, last_at \(w.integer) NOT NULL);
        """ },
        // 29: private copies of feeds (docs/ARCHITECTURE.md, §15). A feed with fetch settings of its own (a user
        // agent, a cookie, HTTP Basic credentials, ignoring the HTTP cache, accepting a self-signed
        // certificate) belongs to one account (`owner_account_id`, the account's subscription the only
        // one), its entries keyed apart from everyone else's: URLs are unique among shared feeds, and
        // per owner among private ones. SQLite cannot drop a column's UNIQUE: the table is rebuilt there.
        // The owner is a plain column: removing an account removes its private feeds with their entries
        // (`removeAccount`), which a cascade would skip.
        Step(rebuildsTables: true) { w in
            w.sqlite(feedsRebuiltAsOfStep29) + w.postgres("""
            ALTER TABLE feeds DROP CONSTRAINT feeds_url_key;
            ALTER TABLE feeds ADD COLUMN owner_account_id bigint, ADD COLUMN user_agent text, ADD COLUMN cookie text,
                ADD COLUMN username text, ADD COLUMN password text, ADD COLUMN ignore_http_cache bigint NOT NULL DEFAULT 0,
                ADD COLUMN allow_self_signed bigint NOT NULL DEFAULT 0;
            """) + """

            CREATE UNIQUE INDEX feeds_shared_url ON feeds(url) WHERE owner_account_id IS NULL;
            CREATE UNIQUE INDEX feeds_private_url ON feeds(owner_account_id, url) WHERE owner_account_id IS NOT NULL;
            """
        },
        // 30: each account's starred orphans kept (the entries it starred that none of its feeds
        // carries): counted at read time they were most of an unread page's total (`Counters`).
        Step { w in """
        ALTER TABLE accounts ADD COLUMN starred_orphans \(w.integer) NOT NULL DEFAULT 0;
        ALTER TABLE accounts ADD COLUMN starred_orphans_unread \(w.integer) NOT NULL DEFAULT 0;
        UPDATE accounts SET (starred_orphans, starred_orphans_unread) = (
            SELECT count(*), coalesce(sum(CASE WHEN m.read = 0 THEN 1 ELSE 0 END), 0)
            FROM entry_marks m JOIN entry_state st ON st.entry_id = m.entry_id
            WHERE m.account_id = accounts.id AND m.starred = 1 AND st.removed = 0
              AND NOT EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions u ON u.feed_id = s.feed_id
                              WHERE s.entry_id = m.entry_id AND u.account_id = accounts.id));
        """ },
        // 31: the crawler (docs/ARCHITECTURE.md): since when the account has every new entry of the feed
        // extracted from its page (NULL: not; else when the subscription began, so that a backlog
        // others had is left alone).
        Step { w in """
        ALTER TABLE subscriptions ADD COLUMN crawler_since \(w.integer);
        """ },
        // 32: each feed's latest document (step 22's `latest_entries`, ~1.4 KB of ids) in a table of
        // its own: it was most of a feeds row, every round rewrites the row, and the unread page's
        // totals scan the table (at 1,000,000 entries on PostgreSQL, 7.9 MB for 5,000 feeds). And a
        // count of each feed's checks: `checked_at` is in seconds, so a check made in the second of a
        // `refresh --wait` was taken for the one it waited for (ClusterStore.checks).
        Step { w in """
        CREATE TABLE feed_latest (
            feed_id \(w.integer) PRIMARY KEY REFERENCES feeds(id) ON DELETE CASCADE,
            entries \(w.text) NOT NULL
        );
        INSERT INTO feed_latest(feed_id, entries) SELECT id, latest_entries FROM feeds WHERE latest_entries IS NOT NULL;
        ALTER TABLE feeds DROP COLUMN latest_entries;
        ALTER TABLE feeds ADD COLUMN check_count \(w.integer) NOT NULL DEFAULT 0;
        """ },
        // 33: whether a kept page or a feed's icon came from a non-public address (docs/SECURITY.md): then
        // only accounts whose own fetches may reach one are shown it. What was kept before is taken as
        // public (nothing recorded where it came from).
        Step { w in """
        ALTER TABLE entry_pages ADD COLUMN non_public \(w.integer) NOT NULL DEFAULT 0;
        ALTER TABLE feeds ADD COLUMN icon_non_public \(w.integer) NOT NULL DEFAULT 0;
        """ },
        // 34: text versions (docs/SECURITY.md): an entry's row holds the text of its primary feed (the one
        // that stored it first); another feed that delivers the same URL with other text has its own
        // version here, read by that feed's followers. Kept only while the texts differ.
        Step { w in """
        CREATE TABLE entry_versions (
            entry_id     \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            feed_id      \(w.integer) NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            fingerprint  \(w.integer) NOT NULL,
            title        \(w.text),
            summary      \(w.text),
            content      \(w.text),
            author       \(w.text),
            published_at \(w.integer),
            updated_at   \(w.integer),
            image_url    \(w.text),
            enclosures   \(w.text),
            PRIMARY KEY (entry_id, feed_id)
        );
        CREATE INDEX entry_versions_by_feed ON entry_versions(feed_id);
        """ },
        // 35: who imported an entry (`importEntry`; its key says so too, `import:ACCOUNT:…`, but a range
        // of keys follows the database's collation on PostgreSQL, where ':' and ';' need not be
        // neighbours): other accounts' imports are hidden by it, and an account's usage counts it.
        // And whether a feed's last document came from a non-public address only admins may reach
        // (`IncomingFeed.onlyForAdmins`): regular accounts may not follow it then.
        Step { w in """
        ALTER TABLE entries ADD COLUMN imported_by \(w.integer);
        \(w.sqlite("""
            UPDATE entries SET imported_by = CAST(substr(key, 8, instr(substr(key, 8), ':') - 1) AS INTEGER)
            WHERE substr(key, 1, 7) = 'import:';
            """))\(w.postgres("UPDATE entries SET imported_by = split_part(key, ':', 2)::bigint WHERE substr(key, 1, 7) = 'import:';"))
        CREATE INDEX entries_imported ON entries(imported_by) WHERE imported_by IS NOT NULL;
        ALTER TABLE feeds ADD COLUMN only_for_admins \(w.integer) NOT NULL DEFAULT 0;
        """ },
        // 36: text versions are searched as they are read (docs/SECURITY.md): a version keeps its plain
        // text and has an index of its own (a feed's or an entry's removal deletes versions by
        // cascade). Its rows get an id that VACUUM never renumbers (the index is keyed by it; SQLite
        // rebuilds the table for it, its FTS5 index kept by triggers). Versions kept before have no
        // plain text: fingerprint 0 rewrites each at its feed's next document (until then its title
        // and author are indexed). `entry_state.versioned`: the entry may have versions (set when one
        // is kept, never cleared): a search asks the versions of those only.
        Step(rebuildsTables: true,
             then: { database throws(StoreError) in try database.dialect.search.indexVersions(entry: nil, in: database) }) { w in
            w.sqlite(versionsRebuiltAsOfStep36) + w.postgres("""
            ALTER TABLE entry_versions ADD COLUMN id bigint GENERATED BY DEFAULT AS IDENTITY UNIQUE;
            ALTER TABLE entry_versions ADD COLUMN search_text text;
            UPDATE entry_versions SET fingerprint = 0;
            CREATE TABLE entry_version_search (
                version_id bigint PRIMARY KEY REFERENCES entry_versions(id) ON DELETE CASCADE,
                document   tsvector NOT NULL);
            CREATE INDEX entry_version_search_documents ON entry_version_search USING gin(document);
            """) + """

            ALTER TABLE entry_state ADD COLUMN versioned \(w.integer) NOT NULL DEFAULT 0;
            UPDATE entry_state SET versioned = 1 WHERE entry_id IN (SELECT entry_id FROM entry_versions);
            """
        },
    ]

    /// Step 29 on SQLite: the feeds table rebuilt without its URL's UNIQUE (frozen with the step).
    private static let feedsRebuiltAsOfStep29 = """
        CREATE TABLE feeds_v29 (
            id                INTEGER PRIMARY KEY AUTOINCREMENT,
            url               TEXT NOT NULL,
            title             TEXT,
            site_url          TEXT,
            added_at          INTEGER NOT NULL,
            etag              TEXT,
            last_modified     TEXT,
            checked_at        INTEGER,
            next_check_at     INTEGER,
            interval_s        INTEGER,
            error_count       INTEGER NOT NULL DEFAULT 0,
            last_error        TEXT,
            status            TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing', 'disabled')),
            entry_count       INTEGER NOT NULL DEFAULT 0,
            newest_entry_at   INTEGER,
            icon_id           INTEGER REFERENCES icons(id) ON DELETE SET NULL,
            icon_checked_at   INTEGER,
            image_url         TEXT,
            icon_url          TEXT,
            latest_entries    TEXT,
            claimed_by        TEXT,
            owner_account_id  INTEGER,
            user_agent        TEXT,
            cookie            TEXT,
            username          TEXT,
            password          TEXT,
            ignore_http_cache INTEGER NOT NULL DEFAULT 0,
            allow_self_signed INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO feeds_v29(id, url, title, site_url, added_at, etag, last_modified, checked_at, next_check_at,
                              interval_s, error_count, last_error, status, entry_count, newest_entry_at, icon_id,
                              icon_checked_at, image_url, icon_url, latest_entries, claimed_by)
            SELECT id, url, title, site_url, added_at, etag, last_modified, checked_at, next_check_at,
                   interval_s, error_count, last_error, status, entry_count, newest_entry_at, icon_id,
                   icon_checked_at, image_url, icon_url, latest_entries, claimed_by
            FROM feeds ORDER BY id;
        DROP TABLE feeds;
        ALTER TABLE feeds_v29 RENAME TO feeds;
        CREATE INDEX feeds_by_next_check ON feeds(next_check_at);
        CREATE INDEX feeds_by_icon ON feeds(icon_id) WHERE icon_id IS NOT NULL;
        CREATE INDEX feeds_by_claimer ON feeds(claimed_by) WHERE claimed_by IS NOT NULL;
        """

    /// Step 36 on SQLite: text versions rebuilt with an id of their own, and their FTS5 index with
    /// the triggers that keep it (frozen with the step).
    private static let versionsRebuiltAsOfStep36 = """
        CREATE TABLE entry_versions_new (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            entry_id     INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            feed_id      INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            fingerprint  INTEGER NOT NULL,
            title        TEXT,
            summary      TEXT,
            content      TEXT,
            author       TEXT,
            published_at INTEGER,
            updated_at   INTEGER,
            image_url    TEXT,
            enclosures   TEXT,
            search_text  TEXT,
            UNIQUE (entry_id, feed_id)
        );
        INSERT INTO entry_versions_new(entry_id, feed_id, fingerprint, title, summary, content, author, published_at,
                                       updated_at, image_url, enclosures)
            SELECT entry_id, feed_id, 0, title, summary, content, author, published_at, updated_at, image_url, enclosures
            FROM entry_versions ORDER BY entry_id, feed_id;
        DROP TABLE entry_versions;
        ALTER TABLE entry_versions_new RENAME TO entry_versions;
        CREATE INDEX entry_versions_by_feed ON entry_versions(feed_id);
        CREATE VIRTUAL TABLE entry_versions_fts USING fts5(
            title, body, author, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
        );
        INSERT INTO entry_versions_fts(rowid, title, body, author) SELECT id, title, search_text, author FROM entry_versions;
        CREATE TRIGGER entry_versions_indexed AFTER INSERT ON entry_versions BEGIN
            INSERT INTO entry_versions_fts(rowid, title, body, author) VALUES (new.id, new.title, new.search_text, new.author);
        END;
        CREATE TRIGGER entry_versions_unindexed AFTER DELETE ON entry_versions BEGIN
            INSERT INTO entry_versions_fts(entry_versions_fts, rowid, title, body, author)
            VALUES ('delete', old.id, old.title, old.search_text, old.author);
        END;
        CREATE TRIGGER entry_versions_reindexed AFTER UPDATE OF title, search_text, author ON entry_versions BEGIN
            INSERT INTO entry_versions_fts(entry_versions_fts, rowid, title, body, author)
            VALUES ('delete', old.id, old.title, old.search_text, old.author);
            INSERT INTO entry_versions_fts(rowid, title, body, author) VALUES (new.id, new.title, new.search_text, new.author);
        END;
        """

    /// Step 4's counters counted from the rows, in that schema's terms (read and starred on
    /// `entry_state`, counters on feeds and categories): frozen with the step.
    private static let countersAsOfStep4 = """
        UPDATE feeds SET (entry_count, unread_count) = (
            SELECT count(*), coalesce(sum(st.read = 0), 0)
            FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
            WHERE s.feed_id = feeds.id AND st.removed = 0);
        UPDATE store_totals SET (entries, unread) = (
            SELECT count(*), coalesce(sum(read = 0), 0) FROM entry_state WHERE removed = 0);
        UPDATE categories SET (entry_count, unread_count) = (
            SELECT count(DISTINCT s.entry_id), count(DISTINCT CASE WHEN st.read = 0 THEN s.entry_id END)
            FROM feeds f JOIN entry_sources s ON s.feed_id = f.id JOIN entry_state st ON st.entry_id = s.entry_id
            WHERE f.category_id = categories.id AND st.removed = 0);
        """

    /// The schema version this build writes.
    static var currentVersion: Int64 { Int64(steps.count) }

    /// Brings the database up to `currentVersion`: a new one from the baseline, an older one step by
    /// step (on SQLite one transaction per step; on PostgreSQL all in one: `SchemaKeeper`).
    /// - Throws: `StoreError.Kind.newerSchema` when the database was written by a newer build.
    /// - Parameter target: the version to stop at (tests build older databases with it).
    static func apply(to database: Database, upTo target: Int64 = currentVersion) throws(StoreError) {
        let keeper = SchemaKeeper(database: database)
        var isNew = false
        try keeper.migrating { () throws(StoreError) in
            var version = try keeper.version()
            guard version <= currentVersion else {
                throw StoreError(.newerSchema, message: "database \(database.location) has schema version \(version), "
                    + "newer than this build's \(currentVersion) (upgrade aggregatord, or restore an older backup)")
            }
            isNew = version == 0
            if version == 0, target >= Baseline.version || !keeper.mayPredateBaseline {
                try keeper.step(to: Baseline.version, rebuildsTables: false) { () throws(StoreError) in
                    try database.execute(Baseline.sql(database.dialect.schemaWords))
                }
                version = Baseline.version
            }
            for (offset, step) in steps.enumerated().dropFirst(Int(version)).prefix(max(0, Int(target - version))) {
                try keeper.step(to: Int64(offset + 1), rebuildsTables: step.rebuildsTables) { () throws(StoreError) in
                    try database.execute(step.sql(database.dialect.schemaWords))
                    try step.then?(database)
                }
            }
        }
        // A new file is left without the pages its steps freed (tables made and dropped).
        if isNew { try keeper.compactNew() }
    }
}
