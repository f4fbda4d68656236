/// The schema as of migration step 27, written once for both backends: a new database, SQLite's or
/// PostgreSQL's, starts here and takes the later steps (`Migrations`). An SQLite file made before
/// took steps 1 to 27 one by one; `MigrationTests` checks that they end in exactly this schema, and
/// `SchemaParityTests` that both backends build the same one. Frozen: change the schema by appending
/// a step.
enum Baseline {
    static let version: Int64 = 27

    static func sql(_ w: SchemaWords) -> String {
        functions(w) + accounts(w) + entries(w) + feeds(w) + readers(w) + search(w)
    }

    /// PostgreSQL's stand-ins for SQLite's scalar `max(a, b)`, `min(a, b)` (NULL when either is) and
    /// `unixepoch()`, so that SQL using them is written once; `aggregator_nocase` folds A–Z to a–z and
    /// nothing else, as NOCASE does, and names sorted by it under the "C" collation (bytes) come in
    /// the same order on both backends.
    private static func functions(_ w: SchemaWords) -> String {
        w.postgres("""
            CREATE FUNCTION aggregator_nocase(text) RETURNS text IMMUTABLE STRICT PARALLEL SAFE LANGUAGE sql
                AS $$ SELECT translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$;
            CREATE FUNCTION max(bigint, bigint) RETURNS bigint IMMUTABLE STRICT PARALLEL SAFE LANGUAGE sql
                AS $$ SELECT greatest($1, $2) $$;
            CREATE FUNCTION min(bigint, bigint) RETURNS bigint IMMUTABLE STRICT PARALLEL SAFE LANGUAGE sql
                AS $$ SELECT least($1, $2) $$;
            CREATE FUNCTION unixepoch() RETURNS bigint STABLE LANGUAGE sql
                AS $$ SELECT floor(extract(epoch FROM now()))::bigint $$;

            """)
    }

    /// Accounts (account 1, the first admin, exists from the start), their tokens and sessions.
    private static func accounts(_ w: SchemaWords) -> String {
        """
        CREATE TABLE accounts (
            id            \(w.identity),
            name          \(w.text) NOT NULL\(w.sqlite(" UNIQUE"))\(w.caseless),
            password_hash \(w.text) NOT NULL,
            admin         \(w.integer) NOT NULL DEFAULT 0,
            fever_key     \(w.text),
            created_at    \(w.integer) NOT NULL,
            updated_at    \(w.integer) NOT NULL,
            last_login_at \(w.integer),
            settings      \(w.text) NOT NULL DEFAULT '{}');
        \(w.postgres("CREATE UNIQUE INDEX accounts_by_name ON accounts(aggregator_nocase(name));"))
        INSERT INTO accounts(id, name, password_hash, admin, created_at, updated_at)
            VALUES (1, 'admin', '', 1, unixepoch(), unixepoch());
        \(w.postgres("SELECT setval(pg_get_serial_sequence('accounts', 'id'), 1);"))
        CREATE TABLE api_tokens (
            id           \(w.identity),
            account_id   \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            label        \(w.text) NOT NULL,
            digest       \(w.text) NOT NULL UNIQUE,
            created_at   \(w.integer) NOT NULL,
            last_used_at \(w.integer),
            UNIQUE (account_id, label));
        CREATE TABLE web_sessions (
            id           \(w.identity),
            account_id   \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            digest       \(w.text) NOT NULL UNIQUE,
            created_at   \(w.integer) NOT NULL,
            last_seen_at \(w.integer) NOT NULL,
            user_agent   \(w.text) NOT NULL,
            address      \(w.text) NOT NULL);
        CREATE INDEX web_sessions_by_account ON web_sessions(account_id);
        CREATE TABLE categories (
            id            \(w.identity),
            account_id    \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            name          \(w.text) NOT NULL\(w.caseless),
            hide_globally \(w.integer) NOT NULL DEFAULT 0\(w.sqlite(",\n    UNIQUE (account_id, name)")));
        \(w.postgres("CREATE UNIQUE INDEX categories_by_name ON categories(account_id, aggregator_nocase(name));"))

        """
    }

    /// Entries, stored once per key, their state rows and the totals of them all.
    private static func entries(_ w: SchemaWords) -> String {
        """
        CREATE TABLE store_totals (
            id      \(w.integer) PRIMARY KEY CHECK (id = 1),
            entries \(w.integer) NOT NULL);
        INSERT INTO store_totals(id, entries) VALUES (1, 0);
        CREATE TABLE entries (
            id            \(w.identity),
            key           \(w.text) NOT NULL UNIQUE,
            sort_at       \(w.integer) NOT NULL,
            first_seen_at \(w.integer) NOT NULL,
            published_at  \(w.integer),
            updated_at    \(w.integer),
            fingerprint   \(w.integer) NOT NULL,
            url           \(w.text),
            guid          \(w.text),
            title         \(w.text),
            author        \(w.text),
            image_url     \(w.text),
            enclosures    \(w.text),
            summary       \(w.text),
            content       \(w.text),
            search_text   \(w.text));
        CREATE INDEX entries_by_sort ON entries(sort_at, id);
        CREATE TABLE icons (
            id         \(w.identity),
            digest     \(w.text) NOT NULL UNIQUE,
            mime_type  \(w.text) NOT NULL,
            data       \(w.blob) NOT NULL,
            created_at \(w.integer) NOT NULL);

        """
    }

    /// Feeds (fetch identities), the entries each carried, and each account's subscriptions.
    private static func feeds(_ w: SchemaWords) -> String {
        """
        CREATE TABLE feeds (
            id              \(w.identity),
            url             \(w.text) NOT NULL UNIQUE,
            title           \(w.text),
            site_url        \(w.text),
            added_at        \(w.integer) NOT NULL,
            etag            \(w.text),
            last_modified   \(w.text),
            checked_at      \(w.integer),
            next_check_at   \(w.integer),
            interval_s      \(w.integer),
            error_count     \(w.integer) NOT NULL DEFAULT 0,
            last_error      \(w.text),
            status          \(w.text) NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing', 'disabled')),
            entry_count     \(w.integer) NOT NULL DEFAULT 0,
            newest_entry_at \(w.integer),
            icon_id         \(w.integer) REFERENCES icons(id) ON DELETE SET NULL,
            icon_checked_at \(w.integer),
            image_url       \(w.text),
            icon_url        \(w.text),
            latest_entries  \(w.text));
        CREATE INDEX feeds_by_next_check ON feeds(next_check_at);
        CREATE INDEX feeds_by_icon ON feeds(icon_id) WHERE icon_id IS NOT NULL;
        CREATE TABLE entry_sources (
            feed_id  \(w.integer) NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            entry_id \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            guid     \(w.text),
            PRIMARY KEY (feed_id, entry_id))\(w.keyedTable);
        CREATE INDEX entry_sources_by_entry ON entry_sources(entry_id);
        CREATE TABLE entry_state (
            entry_id \(w.integer) PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            feed_id  \(w.integer) REFERENCES feeds(id) ON DELETE SET NULL,
            sources  \(w.integer) NOT NULL DEFAULT 1,
            stars    \(w.integer) NOT NULL DEFAULT 0,
            removed  \(w.integer) NOT NULL DEFAULT 0,
            sort_at  \(w.integer) NOT NULL DEFAULT 0);
        CREATE INDEX entry_state_by_feed ON entry_state(feed_id);
        CREATE INDEX entry_state_crossposted ON entry_state(entry_id) WHERE sources > 1 AND removed = 0;
        CREATE INDEX entry_state_by_sort ON entry_state(sort_at, entry_id, feed_id, sources) WHERE removed = 0;
        CREATE TABLE subscriptions (
            id              \(w.identity),
            account_id      \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            feed_id         \(w.integer) NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
            title           \(w.text),
            category_id     \(w.integer) REFERENCES categories(id) ON DELETE SET NULL,
            disabled        \(w.integer) NOT NULL DEFAULT 0,
            added_at        \(w.integer) NOT NULL,
            read_count      \(w.integer) NOT NULL DEFAULT 0,
            hidden_count    \(w.integer) NOT NULL DEFAULT 0,
            hide_globally   \(w.integer) NOT NULL DEFAULT 0,
            scraper_rules   \(w.text),
            blocklist_rules \(w.text),
            keeplist_rules  \(w.text),
            UNIQUE (account_id, feed_id));
        CREATE INDEX subscriptions_by_feed ON subscriptions(feed_id);
        CREATE INDEX subscriptions_by_category ON subscriptions(category_id) WHERE category_id IS NOT NULL;

        """
    }

    /// What each account did with entries: marks, edits, where it stopped in their media, and the
    /// full articles kept for it.
    private static func readers(_ w: SchemaWords) -> String {
        """
        CREATE TABLE entry_marks (
            account_id \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            read       \(w.integer) NOT NULL DEFAULT 0,
            starred    \(w.integer) NOT NULL DEFAULT 0,
            changed_at \(w.integer) NOT NULL,
            hidden     \(w.integer) NOT NULL DEFAULT 0,
            by_rule    \(w.integer) NOT NULL DEFAULT 0,
            PRIMARY KEY (account_id, entry_id))\(w.keyedTable);
        CREATE INDEX entry_marks_by_entry ON entry_marks(entry_id);
        CREATE INDEX entry_marks_starred ON entry_marks(account_id, entry_id) WHERE starred = 1;
        CREATE INDEX entry_marks_hidden ON entry_marks(account_id, entry_id) WHERE hidden = 1;
        CREATE TABLE entry_edits (
            account_id \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            title      \(w.text),
            content    \(w.text),
            edited_at  \(w.integer) NOT NULL,
            PRIMARY KEY (account_id, entry_id))\(w.keyedTable);
        CREATE TABLE media_progress (
            account_id \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            enclosure  \(w.integer) NOT NULL,
            seconds    \(w.integer) NOT NULL,
            PRIMARY KEY (account_id, entry_id, enclosure))\(w.keyedTable);
        CREATE TABLE entry_pages (
            entry_id   \(w.integer) PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
            content    \(w.text) NOT NULL,
            fetched_at \(w.integer) NOT NULL);
        CREATE TABLE page_readers (
            account_id \(w.integer) NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            entry_id   \(w.integer) NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            PRIMARY KEY (account_id, entry_id))\(w.keyedTable);
        CREATE INDEX page_readers_by_entry ON page_readers(entry_id);

        """
    }

    /// The full-text index of entries (Connection/SearchSQL.swift): SQLite's contentless FTS5 table,
    /// keyed by entry id, merging segments once 16 of a level exist (a cold ingest 17 % faster);
    /// PostgreSQL's tsvector documents under a GIN index.
    private static func search(_ w: SchemaWords) -> String {
        w.sqlite("""
            CREATE VIRTUAL TABLE entries_fts USING fts5(
                title, body, author, content = '', tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
            );
            INSERT INTO entries_fts(entries_fts, rank) VALUES ('automerge', 16);
            """)
            + w.postgres("""
            CREATE TABLE entry_search (
                entry_id bigint PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
                document tsvector NOT NULL);
            CREATE INDEX entry_search_documents ON entry_search USING gin(document);
            """)
    }
}
