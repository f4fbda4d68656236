#!/usr/bin/env python3
"""fts_index_alone.py FARM DB OPTIONS: only a contentless FTS5 index over the farm's
unique entries (title, tag-stripped text), no entries table, fed the way store_limit.py feeds its
index (50 feeds per transaction, WAL, synchronous=NORMAL). OPTIONS go into the declaration, e.g.
"detail=column" (store_limit's) or "tokenize='unicode61 remove_diacritics 2', prefix='3'" (the
FeedStore issue's). Prints the seconds spent inserting: what the index costs by itself."""
import os, re, sqlite3, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import sqlite_bench  # noqa: E402  (store_limit.py's cached farm entries)
farm, path, options = sys.argv[1], sys.argv[2], sys.argv[3]
_, by_feed = sqlite_bench.load(farm)
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(path + suffix): os.unlink(path + suffix)
db = sqlite3.connect(path, isolation_level=None)
db.execute("pragma journal_mode=wal"); db.execute("pragma synchronous=normal")
db.execute(f"create virtual table fts using fts5(title, body, content='', {options})")
tag = re.compile(r"<[^>]+>")
seen, groups = set(), []  # rows worked out before the clock starts: only the index is timed
for fid in by_feed:
    rows = []
    for (_, url, title, content, _) in by_feed[fid]:
        if url not in seen:
            seen.add(url)
            rows.append((len(seen), title, tag.sub(" ", content or "")))
    groups.append(rows)
start = time.perf_counter()
for i in range(0, len(groups), 50):
    db.execute("begin")
    for rows in groups[i:i + 50]:
        db.executemany("insert into fts(rowid,title,body) values(?,?,?)", rows)
    db.execute("commit")
print(f"{time.perf_counter() - start:.3f}")
