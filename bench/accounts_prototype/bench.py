#!/usr/bin/env python3
"""Times bars 1-5 on ma.db (single-threaded; medians of >= 7 runs after warm-up)."""
import os, sqlite3, statistics, sys, time
DB = sys.argv[1] if len(sys.argv) > 1 else "bench/out/accounts-proto.db"
db = sqlite3.connect(DB, isolation_level=None)
db.execute("PRAGMA cache_size = -2000000"); db.execute("PRAGMA temp_store = MEMORY")

def med(fn, reps=9, warm=2):
    for _ in range(warm): fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)

def plan(sql, args):
    rows = db.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()
    return " | ".join(r[3] for r in rows)

def report(name, sql, args, reps=9, show_plan=True):
    rows = db.execute(sql, args).fetchall()
    ms = med(lambda: db.execute(sql, args).fetchall(), reps)
    print(f"{name:58s} {ms:9.2f} ms  rows={len(rows)}", flush=True)
    if show_plan: print("    plan: " + plan(sql, args))
    return rows

BIG = (1 << 62, 1 << 62)
# ---- membership tests (account-level visibility) -------------------------------------------------
VIS_GENERAL = """EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id
                 WHERE s.entry_id = w.entry_id AND s.seq >= sub.visible_from)"""
VIS_FAST = f"""CASE WHEN w.sources = 1
      THEN EXISTS (SELECT 1 FROM subscriptions sub WHERE sub.account_id = ?1 AND sub.feed_id = w.feed_id AND w.seq >= sub.visible_from)
      ELSE {VIS_GENERAL} END"""
NOT_READ = "NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = w.entry_id AND (m.read OR m.hidden))"

def unread_sql(vis, walk="entry_state_walk"):
    return f"""SELECT e.id, e.sort_at, e.title FROM (
        SELECT w.entry_id, w.sort_at FROM entry_state w INDEXED BY {walk}
        WHERE w.removed = 0 AND (w.sort_at, w.entry_id) < (?2, ?3) AND {vis} AND {NOT_READ}
        ORDER BY w.sort_at DESC, w.entry_id DESC LIMIT 100) p
      CROSS JOIN entries e ON e.id = p.entry_id ORDER BY p.sort_at DESC, p.entry_id DESC"""

UNREAD_OLDWALK = f"""SELECT e.id, e.sort_at, e.title FROM entries e INDEXED BY entries_by_sort
      CROSS JOIN entry_state w ON w.entry_id = e.id
      WHERE w.removed = 0 AND (e.sort_at, e.id) < (?2, ?3) AND {VIS_FAST} AND {NOT_READ}
      ORDER BY e.sort_at DESC, e.id DESC LIMIT 100"""

UNREAD_GATHER = f"""SELECT s.entry_id, max(s.sort_at) AS sa FROM subscriptions sub
      CROSS JOIN entry_sources s INDEXED BY entry_sources_by_feed_sort ON s.feed_id = sub.feed_id
      WHERE sub.account_id = ?1 AND (s.sort_at, s.entry_id) < (?2, ?3)
        AND (s.seq >= sub.visible_from OR (s.shared AND EXISTS (SELECT 1 FROM entry_sources s2 JOIN subscriptions sub2
             ON sub2.account_id = ?1 AND sub2.feed_id = s2.feed_id WHERE s2.entry_id = s.entry_id AND s2.seq >= sub2.visible_from)))
        AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = s.entry_id AND (m.read OR m.hidden))
      GROUP BY s.entry_id ORDER BY sa DESC, s.entry_id DESC LIMIT 100"""

def cursor_after(acct, n):
    """(sort_at, id) of the n-th unread entry of the account, to start a later page."""
    rows = db.execute(f"""SELECT w.sort_at, w.entry_id FROM entry_state w INDEXED BY entry_state_walk
        WHERE w.removed = 0 AND {VIS_FAST} AND {NOT_READ} ORDER BY w.sort_at DESC, w.entry_id DESC LIMIT 1 OFFSET ?2""",
        (acct, n - 1)).fetchone()
    return rows

load = os.getloadavg()
print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
for acct, label in ((1, "random half read"), (2, "newest half read"), (3, "oldest half read")):
    print(f"\n== bar 1: unread listing, account {acct} ({label})")
    unread_total = db.execute("SELECT sum(f.entry_count - sub.read_count - sub.hidden_count) FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id WHERE sub.account_id = ?", (acct,)).fetchone()[0]
    print(f"    (sum of per-subscription unread: {unread_total})")
    report("V2 covering walk + single-source fast path, page 1", unread_sql(VIS_FAST), (acct,) + BIG)
    report("V1 covering walk + general EXISTS, page 1", unread_sql(VIS_GENERAL), (acct,) + BIG, show_plan=False)
    report("V3 walk entries(sort_at,id) + join entry_state, page 1", UNREAD_OLDWALK, (acct,) + BIG, show_plan=(acct == 1))
    for n in (1000, 10000, 30000):
        c = cursor_after(acct, n)
        if c: report(f"V2 keyset page after {n} unread", unread_sql(VIS_FAST), (acct,) + tuple(c), show_plan=False)
    if acct == 1:
        report("V4 gather all followed sources + sort, page 1", UNREAD_GATHER, (acct,) + BIG, reps=7)

print("\n== bar 2: counters")
COUNTERS = """SELECT sub.id, f.entry_count - sub.read_count - sub.hidden_count AS unread
    FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id WHERE sub.account_id = ?1"""
report("per-subscription unread (500 rows)", COUNTERS, (1,))
# An entry visible and unread, carried by k >= 2 followed feeds, is counted k times in the sum:
# subtract (k - 1) in the total, and (k_c - 1) in each category.
DUPS = """SELECT s.entry_id, sub.category_id, count(*) AS n, max(s.seq >= sub.visible_from) AS vis
    FROM subscriptions sub JOIN entry_sources s INDEXED BY entry_sources_shared ON s.feed_id = sub.feed_id AND s.shared = 1
    WHERE sub.account_id = ?1 GROUP BY s.entry_id, sub.category_id"""
LIVE_UNREAD_DUP = """JOIN entry_state st ON st.entry_id = d.entry_id AND st.removed = 0
    WHERE NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = d.entry_id AND (m.read OR m.hidden))"""
TOTAL = f"""SELECT (SELECT sum(f.entry_count - sub.read_count - sub.hidden_count) FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id
                    WHERE sub.account_id = ?1)
  - (SELECT coalesce(sum(n - 1), 0) FROM (SELECT d.entry_id, sum(d.n) AS n, max(d.vis) AS vis FROM ({DUPS}) d GROUP BY d.entry_id HAVING sum(d.n) > 1) d
     {LIVE_UNREAD_DUP} AND d.vis)"""
PER_CATEGORY = f"""SELECT c.id, c.name,
    coalesce((SELECT sum(f.entry_count - sub.read_count - sub.hidden_count) FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id
              WHERE sub.category_id = c.id), 0)
  - coalesce((SELECT sum(d.n - 1) FROM dups d WHERE d.category_id = c.id), 0) AS unread
  FROM categories c WHERE c.account_id = ?1"""
PER_CATEGORY = f"""WITH d0 AS ({DUPS}),
  vis AS (SELECT entry_id FROM d0 GROUP BY entry_id HAVING max(vis)),
  dups AS (SELECT d.category_id, d.n FROM d0 d JOIN vis USING (entry_id) {LIVE_UNREAD_DUP} AND d.n > 1)
  {PER_CATEGORY}"""
report("account total unread (kept sums - cross-post correction)", TOTAL, (1,))
report("per-category unread (10 categories)", PER_CATEGORY, (1,))
print("    naive count for comparison:")
NAIVE = f"""SELECT count(*) FROM entry_state w WHERE w.removed = 0 AND {VIS_FAST} AND {NOT_READ}"""
report("  counted at read time (full walk)", NAIVE, (1,), reps=3, show_plan=False)

print("\n== bar 5: starred, one feed, one category")
STARRED = """SELECT e.id, e.sort_at, e.title FROM entry_marks m INDEXED BY entry_marks_starred
    JOIN entry_state st ON st.entry_id = m.entry_id JOIN entries e ON e.id = m.entry_id
    WHERE m.account_id = ?1 AND m.starred = 1 ORDER BY st.sort_at DESC, st.entry_id DESC LIMIT 100"""
report("starred listing, page 1", STARRED, (1,))
# the account's biggest-backlog subscription and one with hidden backlog
sub_feed, vf = db.execute("SELECT feed_id, visible_from FROM subscriptions WHERE account_id = 1 AND visible_from > 0 LIMIT 1").fetchone()
VIS_OTHER = """EXISTS (SELECT 1 FROM entry_sources s2 JOIN subscriptions sub2 ON sub2.account_id = ?1 AND sub2.feed_id = s2.feed_id
                WHERE s2.entry_id = s.entry_id AND s2.seq >= sub2.visible_from)"""
FEED_UNREAD = f"""SELECT e.id, e.sort_at, e.title FROM entry_sources s INDEXED BY entry_sources_by_feed_sort
    CROSS JOIN entry_state st ON st.entry_id = s.entry_id CROSS JOIN entries e ON e.id = s.entry_id
    WHERE s.feed_id = ?2 AND st.removed = 0
      AND (s.seq >= ?3 OR (s.shared AND {VIS_OTHER}))
      AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = s.entry_id AND (m.read OR m.hidden))
    ORDER BY s.sort_at DESC, s.entry_id DESC LIMIT 100"""
report("unread of one subscription (hidden backlog)", FEED_UNREAD, (1, sub_feed, vf))
big_feed = db.execute("SELECT feed_id FROM subscriptions WHERE account_id = 1 AND visible_from = 0 LIMIT 1").fetchone()[0]
report("unread of one subscription (no backlog rule)", FEED_UNREAD, (1, big_feed, 0), show_plan=False)
cat = db.execute("SELECT category_id, count(*) FROM subscriptions WHERE account_id = 1 GROUP BY 1 ORDER BY 2 DESC LIMIT 1").fetchone()
print(f"    category {cat[0]} has {cat[1]} subscriptions")
VIS_CAT = """CASE WHEN w.sources = 1
      THEN EXISTS (SELECT 1 FROM subscriptions sub WHERE sub.account_id = ?1 AND sub.feed_id = w.feed_id AND sub.category_id = ?4 AND w.seq >= sub.visible_from)
      ELSE EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id
                   WHERE s.entry_id = w.entry_id AND sub.category_id = ?4) AND """ + VIS_GENERAL + " END"
CAT_WALK = unread_sql(VIS_CAT)
report("unread of one category: walk global sort index", CAT_WALK, (1,) + BIG + (cat[0],))
CAT_GATHER = f"""SELECT e.id, p.sa, e.title FROM (
    SELECT s.entry_id, max(s.sort_at) AS sa FROM subscriptions sub
    JOIN entry_sources s INDEXED BY entry_sources_by_feed_sort ON s.feed_id = sub.feed_id
    WHERE sub.account_id = ?1 AND sub.category_id = ?4 AND (s.sort_at, s.entry_id) < (?2, ?3)
      AND (s.seq >= sub.visible_from OR (s.shared AND {VIS_OTHER}))
      AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = s.entry_id AND (m.read OR m.hidden))
    GROUP BY s.entry_id ORDER BY sa DESC, s.entry_id DESC LIMIT 100) p
  CROSS JOIN entries e ON e.id = p.entry_id
  WHERE EXISTS (SELECT 1 FROM entry_state st WHERE st.entry_id = p.entry_id AND st.removed = 0)
  ORDER BY p.sa DESC, p.entry_id DESC"""
report("unread of one category: gather its feeds' sources + sort", CAT_GATHER, (1,) + BIG + (cat[0],))
for a in (2,):
    cat2 = db.execute("SELECT category_id FROM subscriptions WHERE account_id = ?1 GROUP BY 1 ORDER BY count(*) LIMIT 1", (a,)).fetchone()[0]
    report(f"  account {a} (newest read), smallest category: walk", CAT_WALK, (a,) + BIG + (cat2,), show_plan=False)
    report(f"  account {a} (newest read), smallest category: gather", CAT_GATHER, (a,) + BIG + (cat2,), show_plan=False)
