-- Candidate A: shared feeds/entries, per-(account, feed) subscriptions with kept counters,
-- sparse per-(account, entry) marks, per-source arrival sequence for the "backlog hidden" rule.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;

CREATE TABLE accounts (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE categories (             -- per account
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name       TEXT NOT NULL COLLATE NOCASE,
    UNIQUE (account_id, name)
);
CREATE TABLE feeds (                  -- shared fetch identity
    id          INTEGER PRIMARY KEY,
    url         TEXT NOT NULL UNIQUE,
    entry_count INTEGER NOT NULL DEFAULT 0     -- non-removed entries carried (each source counts)
);
CREATE TABLE subscriptions (          -- ids shown by the APIs as "feed ids"
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    feed_id      INTEGER NOT NULL REFERENCES feeds(id),
    category_id  INTEGER NOT NULL REFERENCES categories(id),
    title        TEXT,
    disabled     INTEGER NOT NULL DEFAULT 0,
    visible_from INTEGER NOT NULL DEFAULT 0,   -- sources with seq >= this are visible (backlog rule)
    read_count   INTEGER NOT NULL DEFAULT 0,   -- entries of the feed visible to the account and read
    hidden_count INTEGER NOT NULL DEFAULT 0,   -- entries of the feed not visible to the account
    UNIQUE (account_id, feed_id)
);
CREATE INDEX subscriptions_by_feed_vf ON subscriptions(feed_id, visible_from);
CREATE INDEX subscriptions_by_category ON subscriptions(category_id);

CREATE TABLE entries (                -- wide row (text columns left out here)
    id            INTEGER PRIMARY KEY,
    key           TEXT NOT NULL UNIQUE,
    sort_at       INTEGER NOT NULL,
    first_seen_at INTEGER NOT NULL,
    title         TEXT
);
CREATE INDEX entries_by_sort ON entries(sort_at, id);

CREATE TABLE entry_state (            -- narrow shared row
    entry_id   INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    feed_id    INTEGER,                 -- primary (first) source
    sources    INTEGER NOT NULL DEFAULT 1,
    seq        INTEGER NOT NULL,        -- seq of the primary source (copy of entry_sources.seq)
    sort_at    INTEGER NOT NULL,
    removed    INTEGER NOT NULL DEFAULT 0,
    stars      INTEGER NOT NULL DEFAULT 0,   -- how many accounts starred it (retention keeps > 0)
    changed_at INTEGER
);
CREATE INDEX entry_state_by_feed ON entry_state(feed_id);
-- the listing walk: covering, live entries only
CREATE INDEX entry_state_walk ON entry_state(sort_at, entry_id, feed_id, sources, seq) WHERE removed = 0;

CREATE TABLE entry_sources (
    feed_id  INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,          -- store-wide arrival counter of this (feed, entry) pair
    shared   INTEGER NOT NULL DEFAULT 0, -- 1 on every source row of an entry with >= 2 sources
    sort_at  INTEGER NOT NULL,          -- copy, for per-feed listings in date order
    PRIMARY KEY (feed_id, entry_id)
) WITHOUT ROWID;
CREATE INDEX entry_sources_by_entry ON entry_sources(entry_id);
CREATE INDEX entry_sources_by_feed_sort ON entry_sources(feed_id, sort_at, entry_id);
CREATE INDEX entry_sources_shared ON entry_sources(feed_id, entry_id, seq) WHERE shared = 1;  -- covering

CREATE TABLE entry_marks (            -- sparse: a row only while a flag is set
    account_id INTEGER NOT NULL,
    entry_id   INTEGER NOT NULL,
    read       INTEGER NOT NULL DEFAULT 0,
    starred    INTEGER NOT NULL DEFAULT 0,
    hidden     INTEGER NOT NULL DEFAULT 0,  -- backlog exception (seq >= visible_from but not in latest doc)
    changed_at INTEGER,
    PRIMARY KEY (account_id, entry_id)
) WITHOUT ROWID;
CREATE INDEX entry_marks_starred ON entry_marks(account_id, entry_id) WHERE starred = 1;
CREATE INDEX entry_marks_by_entry ON entry_marks(entry_id) WHERE read OR hidden;  -- cross-post arrival, retention

CREATE TABLE store_seq (id INTEGER PRIMARY KEY CHECK (id = 1), next_seq INTEGER NOT NULL);
