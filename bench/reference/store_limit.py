#!/usr/bin/env python3
"""store_limit.py FARM DB [--index column|full]: the store stage alone, the fastest way we know to
do what a feed store must (docs/BENCHMARKS.md, FeedStore › Ingest). Every entry the farm serves,
already in memory (sqlite_bench.load), goes into a fresh WAL database with synchronous=NORMAL,
50 feeds per transaction: a row in entries (url UNIQUE, so a cross-post is stored once) and, for
each new row, its title and tag-stripped text in a contentless FTS5 index. Prints the seconds the
inserts took.
  --index column   (default) detail=column, no prefix index: the cheapest FTS5 index, no phrases
  --index full     the index the FeedStore issue asks for: detail=full (phrases), prefix='3',
                   unicode61 with remove_diacritics 2; nothing else changes
"""
import argparse
import os
import re
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench  # noqa: E402

ENTRIES = "create table entries(id integer primary key, feed_id int, url text not null unique, title text,\n" \
          "  content text, published int);"
INDEX = {"column": "create virtual table fts using fts5(title, body, content='', detail=column);",
         "full": "create virtual table fts using fts5(title, body, content='', "
                 "tokenize='unicode61 remove_diacritics 2', prefix='3');"}
INSERT_ENTRY = ("insert into entries(feed_id,url,title,content,published) values(?,?,?,?,?) "
                "on conflict(url) do nothing")
INSERT_TEXT = "insert into fts(rowid,title,body) values(?,?,?)"
FEEDS_PER_TRANSACTION = 50

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("farm")
parser.add_argument("db")
parser.add_argument("--index", choices=sorted(INDEX), default="column")
args = parser.parse_args()

_, by_feed = sqlite_bench.load(args.farm)
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(args.db + suffix):
        os.unlink(args.db + suffix)
db = sqlite3.connect(args.db, isolation_level=None)
db.execute("pragma journal_mode=wal")
db.execute("pragma synchronous=normal")
db.executescript(ENTRIES + " " + INDEX[args.index])
markup = re.compile(r"<[^>]+>")
feed_ids = list(by_feed)

start = time.perf_counter()
for first in range(0, len(feed_ids), FEEDS_PER_TRANSACTION):
    db.execute("begin")
    for feed_id in feed_ids[first:first + FEEDS_PER_TRANSACTION]:
        for (feed, url, title, content, published) in by_feed[feed_id]:
            row = db.execute(INSERT_ENTRY, (feed, url, title, content, published))
            if row.rowcount:   # a URL seen before adds nothing to the index either
                db.execute(INSERT_TEXT, (row.lastrowid, title, markup.sub(" ", content or "")))
    db.execute("commit")
print(f"{time.perf_counter() - start:.3f}")
