#!/usr/bin/env python3
"""Variants for the slow cases: account 2 (newest half read) with a kept skip hint; category walk with an IN list."""
import os, sqlite3, statistics, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queries as Q
db = sqlite3.connect("bench/out/accounts-proto.db", isolation_level=None)
db.execute("PRAGMA cache_size = -2000000")
def med(sql, args, reps=9):
    db.execute(sql, args).fetchall(); db.execute(sql, args).fetchall()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); rows = db.execute(sql, args).fetchall(); ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts), len(rows)
print("load", os.getloadavg())
# kept per-account hint: (sort_at, id) just above its newest unread entry, and the highest entry id / seq then.
first = db.execute(f"""SELECT w.sort_at, w.entry_id FROM entry_state w INDEXED BY entry_state_walk WHERE w.removed = 0
    AND {Q.VIS_FAST} AND {Q.NOT_READ} ORDER BY w.sort_at DESC, w.entry_id DESC LIMIT 1""", (2,)).fetchone()
hint = (first[0], first[1] + 1)
max_id = db.execute("SELECT max(id) FROM entries").fetchone()[0]
# simulate 3,000 entries arrived since the hint was set: the newest 3,000 ids count as "new"
since_id = max_id - 3000
PART_NEW = f"""SELECT w.entry_id, w.sort_at FROM entry_state w WHERE w.entry_id > ?4 AND w.removed = 0
    AND {Q.VIS_FAST} AND {Q.NOT_READ}"""
HINTED = f"""SELECT * FROM ({Q.unread_sql()}) UNION SELECT e.id, e.sort_at, e.title FROM ({PART_NEW}) n JOIN entries e ON e.id = n.entry_id
    ORDER BY 2 DESC, 1 DESC LIMIT 100"""
print("account 2, walk from kept hint + entries since hint (3,000): %.2f ms rows=%d" % med(HINTED, (2,) + hint + (since_id,)))
print("    plan: " + " | ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + HINTED, (2,) + hint + (since_id,))))
# category walk with the category's followed feeds as an IN list (materialized once)
cat = db.execute("SELECT category_id FROM subscriptions WHERE account_id = 1 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
VIS_CAT_IN = f"""CASE WHEN w.sources = 1
      THEN w.feed_id IN (SELECT feed_id FROM subscriptions WHERE account_id = ?1 AND category_id = ?4)
           AND w.seq >= (SELECT visible_from FROM subscriptions WHERE account_id = ?1 AND feed_id = w.feed_id)
      ELSE EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id
                   WHERE s.entry_id = w.entry_id AND sub.category_id = ?4) AND {Q.VIS_GENERAL} END"""
sql = Q.unread_sql(VIS_CAT_IN)
print("category (60 feeds) walk, IN-list membership: %.2f ms rows=%d" % med(sql, (1, 1 << 62, 1 << 62, cat)))
print("    plan: " + " | ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + sql, (1, 1 << 62, 1 << 62, cat))))
VIS_ACC_IN = f"""CASE WHEN w.sources = 1
      THEN w.feed_id IN (SELECT feed_id FROM subscriptions WHERE account_id = ?1)
           AND w.seq >= (SELECT visible_from FROM subscriptions WHERE account_id = ?1 AND feed_id = w.feed_id)
      ELSE {Q.VIS_GENERAL} END"""
print("account 1 page 1, IN-list membership: %.2f ms rows=%d" % med(Q.unread_sql(VIS_ACC_IN), (1, 1 << 62, 1 << 62)))
print("account 1 page 1, V2 (for comparison): %.2f ms rows=%d" % med(Q.unread_sql(), (1, 1 << 62, 1 << 62)))
