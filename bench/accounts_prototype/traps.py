#!/usr/bin/env python3
"""Correctness traps on the big DB (in one transaction, rolled back): after each operation the kept
counters of account 1 (per subscription, per category, total) must equal a brute-force count."""
import os, sqlite3, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ops, queries as Q
DB = sys.argv[1] if len(sys.argv) > 1 else "bench/out/accounts-proto.db"
db = sqlite3.connect(DB, isolation_level=None)
db.execute("PRAGMA cache_size = -2000000"); db.execute("PRAGMA temp_store = MEMORY")
A = 1
BRUTE_VIS = f"""SELECT DISTINCT s.entry_id FROM subscriptions sub JOIN entry_sources s ON s.feed_id = sub.feed_id
    JOIN entry_state st ON st.entry_id = s.entry_id AND st.removed = 0 WHERE sub.account_id = ?1
    AND {ops.VISIBLE.format(e='s.entry_id')}"""

def check(step):
    vis = {r[0] for r in db.execute(BRUTE_VIS, (A,))}
    read = {r[0] for r in db.execute("SELECT entry_id FROM entry_marks WHERE account_id = ? AND read", (A,))}
    unread = vis - read
    bad = []
    kept_sub = dict(db.execute(Q.COUNTERS, (A,)).fetchall())
    brute_sub = {}
    for sid, feed in db.execute("SELECT id, feed_id FROM subscriptions WHERE account_id = ?", (A,)):
        ents = {r[0] for r in db.execute("SELECT entry_id FROM entry_sources WHERE feed_id = ?", (feed,))}
        brute_sub[sid] = len(ents & unread)
    bad += [f"sub {s}: kept {kept_sub[s]} brute {brute_sub[s]}" for s in brute_sub if kept_sub[s] != brute_sub[s]]
    kept_cat = {r[0]: r[2] for r in db.execute(Q.PER_CATEGORY, (A,))}
    for cid in kept_cat:
        ents = {r[0] for r in db.execute("SELECT s.entry_id FROM subscriptions sub JOIN entry_sources s ON s.feed_id = sub.feed_id WHERE sub.category_id = ?", (cid,))}
        if kept_cat[cid] != len(ents & unread): bad.append(f"category {cid}: kept {kept_cat[cid]} brute {len(ents & unread)}")
    kept_total = db.execute(Q.TOTAL, (A,)).fetchone()[0]
    if kept_total != len(unread): bad.append(f"total: kept {kept_total} brute {len(unread)}")
    listed = db.execute(Q.unread_sql().replace("LIMIT 100", "LIMIT 1000000"), (A, 1 << 62, 1 << 62)).fetchall()
    if len(listed) != len(unread): bad.append(f"listing: {len(listed)} vs {len(unread)}")
    print(f"{'OK ' if not bad else 'BAD'} {step}: total unread {len(unread)}" + ("".join("\n      " + b for b in bad[:5])))

subs = dict(db.execute("SELECT feed_id, id FROM subscriptions WHERE account_id = ?", (A,)).fetchall())
db.execute("BEGIN")
check("baseline")
# 1. cross-post carried by two followed feeds in different/same categories: mark it read, unread
e, f1, f2 = db.execute("""SELECT a.entry_id, a.feed_id, b.feed_id FROM entry_sources a JOIN entry_sources b ON b.entry_id = a.entry_id AND b.feed_id > a.feed_id
    JOIN subscriptions sa ON sa.account_id = ?1 AND sa.feed_id = a.feed_id JOIN subscriptions sb ON sb.account_id = ?1 AND sb.feed_id = b.feed_id
    WHERE sa.visible_from = 0 AND sb.visible_from = 0
      AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = a.entry_id) LIMIT 1""", (A,)).fetchone()
db.execute("UPDATE subscriptions SET category_id = (SELECT category_id FROM subscriptions WHERE id = ?) WHERE id = ?", (subs[f1], subs[f2]))
ops.recount_sub(db, subs[f2]); check(f"cross-post {e} in followed feeds {f1},{f2} put in one category")
ops.mark_read(db, A, [e]); check("  marked it read (counts once in the category and total, in each feed)")
ops.mark_read(db, A, [e], read=False); check("  marked it unread")
# 2. an entry A read arrives as a cross-post in another followed feed
x = db.execute("SELECT m.entry_id FROM entry_marks m JOIN entry_state st ON st.entry_id = m.entry_id WHERE m.account_id = ?1 AND m.read AND st.sources = 1 LIMIT 1", (A,)).fetchone()[0]
g = next(f for f in subs if f not in (f1, f2) and db.execute("SELECT 1 FROM entry_sources WHERE feed_id = ? AND entry_id = ?", (f, x)).fetchone() is None)
ops.ingest_crosspost(db, g, x); check(f"read entry {x} arrives in followed feed {g}")
# 3. a hidden backlog entry (seq < visible_from) arrives in another followed feed: becomes visible
hb, hf = db.execute("""SELECT s.entry_id, s.feed_id FROM subscriptions sub JOIN entry_sources s ON s.feed_id = sub.feed_id AND s.seq < sub.visible_from
    JOIN entry_state st ON st.entry_id = s.entry_id AND st.sources = 1 WHERE sub.account_id = ?1 LIMIT 1""", (A,)).fetchone()
ops.ingest_crosspost(db, g, hb); check(f"hidden backlog entry {hb} of feed {hf} arrives in followed feed {g}")
# 4. an entry of a feed A does not follow arrives in a followed feed
y = db.execute("SELECT entry_id FROM entry_state WHERE sources = 1 AND feed_id NOT IN (SELECT feed_id FROM subscriptions WHERE account_id = ?) ORDER BY entry_id DESC LIMIT 1", (A,)).fetchone()[0]
ops.ingest_crosspost(db, g, y); check(f"entry {y} of an unfollowed feed arrives in followed feed {g}")
# 5. new entries in a followed feed, and in one followed by nobody here
ops.ingest_new(db, g, 10, 1_760_000_000, "https://new.example/t"); check("10 new entries in a followed feed")
# 6. subscribe to a stored feed: only its latest document (newest 50 sources, one of them dropped out) is shown
h = db.execute("SELECT id FROM feeds WHERE id NOT IN (SELECT feed_id FROM subscriptions WHERE account_id = ?) AND id IN (SELECT feed_id FROM entry_sources WHERE shared) LIMIT 1", (A,)).fetchone()[0]
doc = [r[0] for r in db.execute("SELECT entry_id FROM entry_sources WHERE feed_id = ? ORDER BY seq DESC LIMIT 50", (h,))]
dropped = doc.pop(10)
sid = ops.subscribe(db, A, h, 1, doc)
n = db.execute("SELECT f.entry_count - s.read_count - s.hidden_count, f.entry_count FROM subscriptions s JOIN feeds f ON f.id = s.feed_id WHERE s.id = ?", (sid,)).fetchone()
check(f"subscribed to stored feed {h} ({n[1]} entries): unread {n[0]} (document of 49 + any already visible via other subscriptions)")
# 7. a hidden entry of the new subscription is expired by retention; a read one too
ops.expire(db, dropped); check(f"retention expired hidden entry {dropped}")
r_ = db.execute("SELECT m.entry_id FROM entry_marks m JOIN entry_state st ON st.entry_id = m.entry_id AND st.removed = 0 AND st.stars = 0 WHERE m.account_id = ?1 AND m.read LIMIT 1", (A,)).fetchone()[0]
ops.expire(db, r_); check(f"retention expired read entry {r_}")
# 8. star an entry carried only by f2, read the cross-post, then unsubscribe f2
only2 = db.execute("SELECT entry_id FROM entry_sources WHERE feed_id = ? AND shared = 0 LIMIT 1", (f2,)).fetchone()[0]
ops.star(db, A, only2); ops.mark_read(db, A, [e, only2])
ops.unsubscribe(db, A, f2)
kept = db.execute("SELECT read, starred FROM entry_marks WHERE account_id = ? AND entry_id = ?", (A, e)).fetchone()
kst = db.execute("SELECT read, starred FROM entry_marks WHERE account_id = ? AND entry_id = ?", (A, only2)).fetchone()
check(f"unsubscribed {f2}: cross-post {e} still read via {f1}: {kept}; starred {only2} kept (read dropped): {kst}")
print("retention keeps it:", not ops.expire(db, only2))
db.execute("ROLLBACK")
