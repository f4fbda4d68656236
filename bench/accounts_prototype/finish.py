#!/usr/bin/env python3
"""Kept counters for the generated data: full recount (recount.sql) for accounts 1-10, the simple
form for the others (all their subscriptions are old: everything visible, no hidden rows)."""
import sqlite3, sys, time
DB = sys.argv[1] if len(sys.argv) > 1 else "bench/out/accounts-proto.db"
db = sqlite3.connect(DB, isolation_level=None)
db.execute("PRAGMA cache_size = -1000000"); db.execute("PRAGMA temp_store = MEMORY")
t = time.time()
db.execute("BEGIN")
# a feed exactly one account follows (Zipf drew none), for bar 4
db.execute("INSERT OR IGNORE INTO feeds(id, url) VALUES (5001, 'https://lonely.example/rss')")
db.execute("INSERT OR IGNORE INTO subscriptions(account_id, feed_id, category_id) VALUES (5, 5001, 41)")
db.execute("""UPDATE subscriptions SET read_count = d.n FROM (
    SELECT sub.id, count(*) AS n FROM entry_marks m CROSS JOIN entry_sources s ON s.entry_id = m.entry_id
    CROSS JOIN subscriptions sub ON sub.account_id = m.account_id AND sub.feed_id = s.feed_id
    WHERE m.read AND m.account_id > 10 GROUP BY sub.id) d WHERE subscriptions.id = d.id""")
print(f"simple read counts {time.time()-t:.1f}s", flush=True)
db.execute("CREATE TEMP TABLE recount_accounts (id INTEGER PRIMARY KEY)")
db.execute("INSERT INTO temp.recount_accounts SELECT id FROM accounts WHERE id <= 10")
db.executescript(open(__import__("os").path.join(__import__("os").path.dirname(__file__), "recount.sql")).read())   # executescript commits the open transaction first
print(f"recount {time.time()-t:.1f}s", flush=True)
db.execute("ANALYZE")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
print(f"analyze {time.time()-t:.1f}s", flush=True)
