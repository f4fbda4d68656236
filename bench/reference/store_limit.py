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
import itertools
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench  # noqa: E402

# The statements are the benchmark: bench_store.sh and docs/BENCHMARKS.md compare against them.
TABLE = ("create table entries(id integer primary key, feed_id int, url text not null unique, title text,\n"
         "  content text, published int);")
INDEX_OPTIONS = {"column": "detail=column", "full": "tokenize='unicode61 remove_diacritics 2', prefix='3'"}
INSERT_ENTRY = ("insert into entries(feed_id,url,title,content,published) values(?,?,?,?,?) "
                "on conflict(url) do nothing")
INSERT_TEXT = "insert into fts(rowid,title,body) values(?,?,?)"
FEEDS_PER_TRANSACTION = 50
strip_tags = re.compile(r"<[^>]+>").sub


def schema(index):
    return "%s create virtual table fts using fts5(title, body, content='', %s);" % (TABLE, INDEX_OPTIONS[index])


def transactions(by_feed):
    """The entries of FEEDS_PER_TRANSACTION feeds at a time, as one iterable each."""
    feeds = iter(by_feed.values())
    while batch := list(itertools.islice(feeds, FEEDS_PER_TRANSACTION)):
        yield itertools.chain.from_iterable(batch)


def store(db, entries):
    db.execute("begin")
    for entry in entries:   # (feed, url, title, content, published): INSERT_ENTRY's parameters
        cursor = db.execute(INSERT_ENTRY, entry)
        if cursor.rowcount:   # a URL stored before adds nothing to the index either
            db.execute(INSERT_TEXT, (cursor.lastrowid, entry[2], strip_tags(" ", entry[3] or "")))
    db.execute("commit")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("farm")
    parser.add_argument("db")
    parser.add_argument("--index", choices=sorted(INDEX_OPTIONS), default="column")
    args = parser.parse_args()
    _, by_feed = sqlite_bench.load(args.farm)
    db = sqlite_bench.fresh_database(args.db, ("", "-wal", "-shm"),
                                     ["pragma journal_mode=wal", "pragma synchronous=normal"], schema(args.index))
    began = time.perf_counter()
    for entries in transactions(by_feed):
        store(db, entries)
    print(f"{time.perf_counter() - began:.3f}")


if __name__ == "__main__":
    main()
