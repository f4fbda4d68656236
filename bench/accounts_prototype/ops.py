"""The writes of candidate A, as the Swift writer would issue them (one connection, caller's transaction)."""
import time

def next_seqs(db, n):
    first = db.execute("UPDATE store_seq SET next_seq = next_seq + ? WHERE id = 1 RETURNING next_seq - ?", (n, n)).fetchone()[0]
    return range(first, first + n)

def ingest_new(db, feed, n, now, key_prefix):
    """n new entries carried by `feed`: entries + entry_state + entry_sources, one counter update.
    No row per follower: every follower's unread (entry_count - read - hidden) moves by itself."""
    seqs = next_seqs(db, n)
    ids = []
    for k, q in enumerate(seqs):
        sort_at = now - k
        cur = db.execute("INSERT INTO entries(key, sort_at, first_seen_at, title) VALUES (?, ?, ?, ?) ON CONFLICT(key) DO NOTHING",
                         (f"{key_prefix}/{k}", sort_at, now, "t"))
        eid = cur.lastrowid
        db.execute("INSERT INTO entry_state(entry_id, feed_id, sources, seq, sort_at) VALUES (?, ?, 1, ?, ?)", (eid, feed, q, sort_at))
        db.execute("INSERT INTO entry_sources(feed_id, entry_id, seq, sort_at) VALUES (?, ?, ?, ?)", (feed, eid, q, sort_at))
        ids.append(eid)
    db.execute("UPDATE feeds SET entry_count = entry_count + ? WHERE id = ?", (n, feed))
    return ids

def ingest_crosspost(db, feed, eid):
    """`feed` now carries a stored entry. Shared rows only, plus work bounded by this feed's followers
    that have a mark on the entry or follow another of its carriers (index probes, rarely a write)."""
    (q,) = next_seqs(db, 1)
    sort_at, removed = db.execute("SELECT sort_at, removed FROM entry_state WHERE entry_id = ?", (eid,)).fetchone()
    if db.execute("INSERT INTO entry_sources(feed_id, entry_id, seq, shared, sort_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT DO NOTHING",
                  (feed, eid, q, sort_at)).rowcount == 0:
        return
    db.execute("UPDATE entry_sources SET shared = 1 WHERE entry_id = ? AND shared = 0", (eid,))
    db.execute("UPDATE entry_state SET sources = sources + 1 WHERE entry_id = ?", (eid,))
    if removed: return
    db.execute("UPDATE feeds SET entry_count = entry_count + 1 WHERE id = ?", (feed,))
    # Driven from the entry's marks (index by entry) and from the subscriptions whose backlog bound
    # hid it (index by feed, visible_from), never from all of this feed's followers.
    db.execute("CREATE TEMP TABLE IF NOT EXISTS newly (account_id INTEGER PRIMARY KEY)"); db.execute("DELETE FROM temp.newly")
    db.execute("""INSERT OR IGNORE INTO temp.newly
        SELECT c.account_id FROM (
            SELECT m.account_id FROM entry_marks m INDEXED BY entry_marks_by_entry WHERE m.entry_id = ?2 AND m.hidden
            UNION
            SELECT o.account_id FROM entry_sources s JOIN subscriptions o INDEXED BY subscriptions_by_feed_vf
                ON o.feed_id = s.feed_id AND o.visible_from > s.seq
            WHERE s.entry_id = ?2 AND s.feed_id != ?1) c
        WHERE EXISTS (SELECT 1 FROM subscriptions sub WHERE sub.account_id = c.account_id AND sub.feed_id = ?1)
          AND (EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = c.account_id AND m.entry_id = ?2 AND m.hidden)
               OR NOT EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions o ON o.account_id = c.account_id AND o.feed_id = s.feed_id
                              WHERE s.entry_id = ?2 AND s.feed_id != ?1 AND s.seq >= o.visible_from))""", (feed, eid))
    # For them the entry is visible now (the new source is past every bound): their other carriers'
    # subscriptions stop counting it hidden, and count it read if it is.
    db.execute("""UPDATE subscriptions SET hidden_count = hidden_count - 1,
                      read_count = read_count + EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?2 AND m.read)
                  WHERE account_id IN (SELECT account_id FROM temp.newly) AND feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2 AND feed_id != ?1)""",
               (feed, eid))
    db.execute("UPDATE entry_marks SET hidden = 0 WHERE entry_id = ?1 AND hidden AND account_id IN (SELECT account_id FROM temp.newly)", (eid,))
    # followers of this feed that had read it (through another feed or while starred): counted read here
    db.execute("""UPDATE subscriptions SET read_count = read_count + 1 WHERE feed_id = ?1 AND account_id IN (
                      SELECT m.account_id FROM entry_marks m INDEXED BY entry_marks_by_entry WHERE m.entry_id = ?2 AND m.read)""", (feed, eid))

VISIBLE = """NOT EXISTS (SELECT 1 FROM entry_marks h WHERE h.account_id = ?1 AND h.entry_id = {e} AND h.hidden)
  AND EXISTS (SELECT 1 FROM entry_sources vs JOIN subscriptions vsub ON vsub.account_id = ?1 AND vsub.feed_id = vs.feed_id
              WHERE vs.entry_id = {e} AND vs.seq >= vsub.visible_from)"""

def mark_read(db, acct, ids, read=True, now=None):
    """Marks entries read (or unread) for one account; counters move by exactly the visible entries that changed."""
    now = now or int(time.time())
    db.execute("CREATE TEMP TABLE IF NOT EXISTS ids (entry_id INTEGER PRIMARY KEY)"); db.execute("DELETE FROM temp.ids")
    db.execute("CREATE TEMP TABLE IF NOT EXISTS changed (entry_id INTEGER PRIMARY KEY, counts INTEGER)"); db.execute("DELETE FROM temp.changed")
    db.executemany("INSERT OR IGNORE INTO temp.ids VALUES (?)", ((i,) for i in ids))
    want = 1 if read else 0
    # changed rows; `counts`: visible and live, so subscription counters move
    db.execute(f"""INSERT INTO temp.changed
        SELECT t.entry_id, st.removed = 0 AND {VISIBLE.format(e='t.entry_id')}
        FROM temp.ids t JOIN entry_state st ON st.entry_id = t.entry_id
        WHERE coalesce((SELECT m.read FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = t.entry_id), 0) != ?2""", (acct, want))
    if read:
        db.execute("""INSERT INTO entry_marks(account_id, entry_id, read, changed_at) SELECT ?1, entry_id, 1, ?2 FROM temp.changed WHERE true
                      ON CONFLICT DO UPDATE SET read = 1, changed_at = excluded.changed_at""", (acct, now))
    else:
        db.execute("""UPDATE entry_marks SET read = 0, changed_at = ?2 WHERE account_id = ?1 AND entry_id IN (SELECT entry_id FROM temp.changed)""", (acct, now))
        # (a row with no flag left could be deleted; kept here for changed_at, as Miniflux sync needs it)
    db.execute("""UPDATE subscriptions SET read_count = read_count + d.n * ?2 FROM (
            SELECT sub.id, count(*) AS n FROM temp.changed c JOIN entry_sources s ON s.entry_id = c.entry_id
            JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id WHERE c.counts GROUP BY sub.id) d
        WHERE subscriptions.id = d.id""", (acct, 1 if read else -1))
    return db.execute("SELECT count(*) FROM temp.changed").fetchone()[0]

def star(db, acct, eid, on=True, now=0):
    if on:
        n = db.execute("""INSERT INTO entry_marks(account_id, entry_id, starred, changed_at) VALUES (?1, ?2, 1, ?3)
                          ON CONFLICT DO UPDATE SET starred = 1, changed_at = ?3 WHERE starred = 0""", (acct, eid, now)).rowcount
    else:
        n = db.execute("UPDATE entry_marks SET starred = 0, changed_at = ?3 WHERE account_id = ?1 AND entry_id = ?2 AND starred", (acct, eid, now)).rowcount
    if n: db.execute("UPDATE entry_state SET stars = stars + ? WHERE entry_id = ?", (1 if on else -1, eid))

def recount_sub(db, sid):
    acct, feed = db.execute("SELECT account_id, feed_id FROM subscriptions WHERE id = ?", (sid,)).fetchone()
    db.execute(f"""UPDATE subscriptions SET
        hidden_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id AND st.removed = 0
                        WHERE s.feed_id = ?2 AND NOT ({VISIBLE.format(e='s.entry_id')})),
        read_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id AND st.removed = 0
                      JOIN entry_marks m ON m.account_id = ?1 AND m.entry_id = s.entry_id AND m.read
                      WHERE s.feed_id = ?2 AND {VISIBLE.format(e='s.entry_id')})
        WHERE id = ?3""", (acct, feed, sid))

def subs_sharing(db, acct, feed):
    """The account's subscriptions on feeds that share a cross-posted entry with `feed`."""
    return [r[0] for r in db.execute("""SELECT DISTINCT sub.id FROM entry_sources a INDEXED BY entry_sources_shared
        JOIN entry_sources b ON b.entry_id = a.entry_id AND b.feed_id != a.feed_id
        JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = b.feed_id
        WHERE a.feed_id = ?2 AND a.shared = 1""", (acct, feed))]

def subscribe(db, acct, feed, category, latest_doc_ids):
    """Follow a stored feed: visible from the oldest source of its latest document; entries of the
    feed past that bound but not in the document get a hidden mark (unless visible through another
    subscription); hidden marks on the document's entries are cleared. Then recount this
    subscription and those sharing cross-posts with it (rare, bounded work)."""
    doc = ",".join(str(int(i)) for i in latest_doc_ids) or "NULL"
    vf = db.execute(f"SELECT coalesce(min(seq), (SELECT next_seq FROM store_seq)) FROM entry_sources WHERE feed_id = ? AND entry_id IN ({doc})", (feed,)).fetchone()[0]
    sid = db.execute("INSERT INTO subscriptions(account_id, feed_id, category_id, visible_from) VALUES (?, ?, ?, ?)", (acct, feed, category, vf)).lastrowid
    db.execute(f"UPDATE entry_marks SET hidden = 0 WHERE account_id = ? AND hidden AND entry_id IN ({doc})", (acct,))
    db.execute(f"""INSERT INTO entry_marks(account_id, entry_id, hidden)
        SELECT ?1, s.entry_id, 1 FROM entry_sources s WHERE s.feed_id = ?2 AND s.seq >= ?3 AND s.entry_id NOT IN ({doc})
          AND NOT EXISTS (SELECT 1 FROM entry_sources vs JOIN subscriptions vsub ON vsub.account_id = ?1 AND vsub.feed_id = vs.feed_id
                          WHERE vs.entry_id = s.entry_id AND vs.feed_id != ?2 AND vs.seq >= vsub.visible_from)
        ON CONFLICT DO UPDATE SET hidden = 1""", (acct, feed, vf))
    for s in [sid] + subs_sharing(db, acct, feed): recount_sub(db, s)
    return sid

def unsubscribe(db, acct, feed):
    """Drops the subscription and the account's read (and hidden) marks on entries no other
    subscription of the account shows; starred stays. Recounts subscriptions sharing cross-posts."""
    others = subs_sharing(db, acct, feed)
    db.execute("DELETE FROM subscriptions WHERE account_id = ? AND feed_id = ?", (acct, feed))
    db.execute(f"""UPDATE entry_marks SET read = 0, hidden = 0 WHERE account_id = ?1
        AND entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = ?2) AND NOT ({VISIBLE.format(e='entry_marks.entry_id').replace('h.hidden', 'h.hidden AND 0')})""", (acct, feed))
    db.execute("DELETE FROM entry_marks WHERE account_id = ?1 AND read = 0 AND starred = 0 AND hidden = 0 AND entry_id IN (SELECT entry_id FROM entry_sources WHERE feed_id = ?2)", (acct, feed))
    for s in others: recount_sub(db, s)

def expire(db, eid):
    """Retention expires one entry (never one with stars > 0): the shared counters of its carriers,
    and per follower of a carrier a probe (index lookups; writes only where read or hidden)."""
    if db.execute("UPDATE entry_state SET removed = 1 WHERE entry_id = ? AND removed = 0 AND stars = 0", (eid,)).rowcount == 0:
        return False
    # before the entry leaves: each follower's subscription on a carrier counted it as read, hidden or unread
    db.execute(f"""UPDATE subscriptions SET
            hidden_count = hidden_count - (NOT ({VISIBLE.format(e='?2').replace('?1', 'subscriptions.account_id')})),
            read_count = read_count - (EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = subscriptions.account_id AND m.entry_id = ?2 AND m.read)
                                       AND ({VISIBLE.format(e='?2').replace('?1', 'subscriptions.account_id')}))
        WHERE feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?2)""".replace("?2", "?1"), (eid,))
    db.execute("UPDATE feeds SET entry_count = entry_count - 1 WHERE id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?)", (eid,))
    db.execute("UPDATE entries SET sort_at = -9223372036854775808 WHERE id = ?", (eid,))
    db.execute("DELETE FROM entry_marks WHERE entry_id = ? AND starred = 0 AND account_id IN (SELECT account_id FROM subscriptions WHERE feed_id IN (SELECT feed_id FROM entry_sources WHERE entry_id = ?))", (eid, eid))
    return True
