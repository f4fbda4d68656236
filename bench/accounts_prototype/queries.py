"""The read queries (bars 1, 2, 5), shared by bench.py and traps.py. ?1 = account id."""
VIS_GENERAL = """EXISTS (SELECT 1 FROM entry_sources s JOIN subscriptions sub ON sub.account_id = ?1 AND sub.feed_id = s.feed_id
                 WHERE s.entry_id = w.entry_id AND s.seq >= sub.visible_from)"""
VIS_FAST = f"""CASE WHEN w.sources = 1
      THEN EXISTS (SELECT 1 FROM subscriptions sub WHERE sub.account_id = ?1 AND sub.feed_id = w.feed_id AND w.seq >= sub.visible_from)
      ELSE {VIS_GENERAL} END"""
NOT_READ = "NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = w.entry_id AND (m.read OR m.hidden))"
def unread_sql(vis=VIS_FAST, walk="entry_state_walk"):
    return f"""SELECT e.id, e.sort_at, e.title FROM (
        SELECT w.entry_id, w.sort_at FROM entry_state w INDEXED BY {walk}
        WHERE w.removed = 0 AND (w.sort_at, w.entry_id) < (?2, ?3) AND {vis} AND {NOT_READ}
        ORDER BY w.sort_at DESC, w.entry_id DESC LIMIT 100) p
      CROSS JOIN entries e ON e.id = p.entry_id ORDER BY p.sort_at DESC, p.entry_id DESC"""
COUNTERS = """SELECT sub.id, f.entry_count - sub.read_count - sub.hidden_count AS unread
    FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id WHERE sub.account_id = ?1"""
DUPS = """SELECT s.entry_id, sub.category_id, count(*) AS n, max(s.seq >= sub.visible_from) AS vis
    FROM subscriptions sub JOIN entry_sources s INDEXED BY entry_sources_shared ON s.feed_id = sub.feed_id AND s.shared = 1
    WHERE sub.account_id = ?1 GROUP BY s.entry_id, sub.category_id"""
LIVE_UNREAD_DUP = """JOIN entry_state st ON st.entry_id = d.entry_id AND st.removed = 0
    WHERE NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = ?1 AND m.entry_id = d.entry_id AND (m.read OR m.hidden))"""
TOTAL = f"""SELECT (SELECT coalesce(sum(f.entry_count - sub.read_count - sub.hidden_count), 0) FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id
                    WHERE sub.account_id = ?1)
  - (SELECT coalesce(sum(n - 1), 0) FROM (SELECT d.entry_id, sum(d.n) AS n, max(d.vis) AS vis FROM ({DUPS}) d GROUP BY d.entry_id HAVING sum(d.n) > 1) d
     {LIVE_UNREAD_DUP} AND d.vis)"""
PER_CATEGORY = f"""WITH d0 AS MATERIALIZED ({DUPS}),
  vis AS (SELECT entry_id FROM d0 GROUP BY entry_id HAVING max(vis)),
  corr AS (SELECT d.category_id, sum(d.n - 1) AS x FROM d0 d JOIN vis USING (entry_id) {LIVE_UNREAD_DUP} AND d.n > 1 GROUP BY d.category_id),
  sums AS (SELECT sub.category_id, sum(f.entry_count - sub.read_count - sub.hidden_count) AS u
           FROM subscriptions sub JOIN feeds f ON f.id = sub.feed_id WHERE sub.account_id = ?1 GROUP BY sub.category_id)
  SELECT c.id, c.name, coalesce(s.u, 0) - coalesce(corr.x, 0) AS unread
  FROM categories c LEFT JOIN sums s ON s.category_id = c.id LEFT JOIN corr ON corr.category_id = c.id WHERE c.account_id = ?1"""
