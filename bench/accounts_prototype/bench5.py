#!/usr/bin/env python3
"""Bar 2 again with queries.py (per-category rewritten: correction grouped once; covering shared index)."""
import os, sqlite3, statistics, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queries as Q
db = sqlite3.connect("bench/out/accounts-proto.db", isolation_level=None); db.execute("PRAGMA cache_size = -2000000")
print("load", os.getloadavg())
for name, sql in (("per-subscription unread", Q.COUNTERS), ("account total", Q.TOTAL), ("per-category", Q.PER_CATEGORY)):
    for a in (1, 2):
        db.execute(sql, (a,)).fetchall(); db.execute(sql, (a,)).fetchall()
        ts = []
        for _ in range(9):
            t = time.perf_counter(); r = db.execute(sql, (a,)).fetchall(); ts.append((time.perf_counter() - t) * 1000)
        print(f"{name:25s} account {a}: {statistics.median(ts):7.2f} ms rows={len(r)}")
    print("    plan: " + " | ".join(x[3] for x in db.execute("EXPLAIN QUERY PLAN " + sql, (1,))))
