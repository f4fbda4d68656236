#!/usr/bin/env python3
"""Category unread page by a k-way merge in the application over per-subscription cursors
(each: the feed's sources newest first, unread and visible, in batches)."""
import heapq, os, sqlite3, statistics, sys, time
db = sqlite3.connect("bench/out/accounts-proto.db", isolation_level=None)
db.execute("PRAGMA cache_size = -2000000")
FEED_BATCH = """SELECT s.sort_at, s.entry_id FROM entry_sources s INDEXED BY entry_sources_by_feed_sort
    WHERE s.feed_id = ?2 AND (s.sort_at, s.entry_id) < (?4, ?5)
      AND (s.seq >= ?3 OR (s.shared AND EXISTS (SELECT 1 FROM entry_sources s2 JOIN subscriptions sub2
           ON sub2.account_id = ?1 AND sub2.feed_id = s2.feed_id WHERE s2.entry_id = s.entry_id AND s2.seq >= sub2.visible_from)))
      AND NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = s.entry_id AND (m.read OR m.hidden))
      AND EXISTS (SELECT 1 FROM entry_state st WHERE st.entry_id = s.entry_id AND st.removed = 0)
    ORDER BY s.sort_at DESC, s.entry_id DESC LIMIT ?6"""
def page(acct, cat, limit=100, batch=8):
    subs = db.execute("SELECT feed_id, visible_from FROM subscriptions WHERE account_id = ? AND category_id = ?", (acct, cat)).fetchall()
    heap, buf = [], {}
    for f, vf in subs:
        rows = db.execute(FEED_BATCH, (acct, f, vf, 1 << 62, 1 << 62, batch)).fetchall()
        buf[f] = (vf, rows, 0)
        if rows: heapq.heappush(heap, (-rows[0][0], -rows[0][1], f))
    out, seen = [], set()
    while heap and len(out) < limit:
        ns, ni, f = heapq.heappop(heap)
        vf, rows, i = buf[f]
        if -ni not in seen: seen.add(-ni); out.append(-ni)
        i += 1
        if i == len(rows) and len(rows) == batch:
            rows = db.execute(FEED_BATCH, (acct, f, vf, rows[-1][0], rows[-1][1], batch)).fetchall(); i = 0
        buf[f] = (vf, rows, i)
        if i < len(rows): heapq.heappush(heap, (-rows[i][0], -rows[i][1], f))
    return out
for acct in (1, 2):
    cat = db.execute("SELECT category_id FROM subscriptions WHERE account_id = ? GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", (acct,)).fetchone()[0]
    for _ in range(2): page(acct, cat)
    ts = []
    for _ in range(9):
        t = time.perf_counter(); p = page(acct, cat); ts.append((time.perf_counter() - t) * 1000)
    print(f"account {acct}, largest category: k-way merge of per-feed cursors {statistics.median(ts):.2f} ms, {len(p)} rows; load {os.getloadavg()[0]:.1f}")
# check: same page as the walk of the global sort index
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queries as Q
VIS_CAT = """CASE WHEN w.sources = 1
      THEN EXISTS (SELECT 1 FROM subscriptions sub WHERE sub.account_id = ?1 AND sub.feed_id = w.feed_id AND sub.category_id = ?4 AND w.seq >= sub.visible_from)
      ELSE EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id
                   WHERE s.entry_id = w.entry_id AND sub.category_id = ?4) AND """ + Q.VIS_GENERAL + " END"
cat = db.execute("SELECT category_id FROM subscriptions WHERE account_id = 1 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
walk = [r[0] for r in db.execute(Q.unread_sql(VIS_CAT), (1, 1 << 62, 1 << 62, cat))]
ts = []
for _ in range(9):
    t = time.perf_counter(); db.execute(Q.unread_sql(VIS_CAT), (1, 1 << 62, 1 << 62, cat)).fetchall(); ts.append((time.perf_counter() - t) * 1000)
print("same page as the global walk:", walk == page(1, cat), f"(walk now {statistics.median(ts):.2f} ms, load {os.getloadavg()[0]:.1f})")
