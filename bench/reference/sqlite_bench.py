#!/usr/bin/env python3
"""sqlite_bench.py FARM --db PATH [--fts] [--sync off|normal|full]: how fast SQLite alone stores
a farm's entries (the insert limit every store is held against).

Every entry the farm serves (feed, url, title, content HTML, published) is read into memory first,
untimed, as load() gives it. Then, into a fresh WAL database, one transaction per feed, one
prepared statement per entry:
    INSERT INTO entries(feed_id,url,title,content,published) VALUES(?,?,?,?,?) ON CONFLICT(url) DO NOTHING
(url is UNIQUE, so cross-posts are stored once). --fts adds an FTS5 index over title and content
(the raw HTML), kept by a trigger on entries. A second pass inserts everything again, all of it
duplicates: a poll that finds nothing new. Prints one line "RESULT {json}" on stdout.

load() is also what store_limit.py and bench/fts_index_alone.py read the farm with, and
fresh_database() what store_limit.py opens its database with.
"""
import argparse
import contextlib
import hashlib
import itertools
import json
import operator
import os
import pickle
import sqlite3
import sys
import time
from typing import NamedTuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "farm"))
import gen_farm  # noqa: E402

# The statements are the benchmark: keep them as they are, or earlier figures stop comparing.
SCHEMA = """
CREATE TABLE feeds(id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, title TEXT);
CREATE TABLE entries(
    id INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL REFERENCES feeds(id),
    url TEXT NOT NULL UNIQUE,
    title TEXT,
    content TEXT,
    published INTEGER);
CREATE INDEX entries_feed_pub ON entries(feed_id, published);
"""
FTS_SCHEMA = """
CREATE VIRTUAL TABLE entries_fts USING fts5(title, content, content='entries', content_rowid='id');
CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
"""
INSERT_FEED = "INSERT INTO feeds(id,url,title) VALUES(?,?,?)"
INSERT = ("INSERT INTO entries(feed_id,url,title,content,published) VALUES(?,?,?,?,?) "
          "ON CONFLICT(url) DO NOTHING")
CACHE = ".entries.pickle"
# Read once the database is closed, with --fts, in this order.
FTS_CHECKS = {"rows": "SELECT count(*) FROM entries",
              "fts_match_check": "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'kernel'"}


# ---- the farm's entries, cached

def _digest(farm):
    with open(os.path.join(farm, "manifest.json"), "rb") as manifest:
        return hashlib.sha1(manifest.read()).hexdigest()


def _read_farm(farm):
    entries = gen_farm.farm_entries(farm)   # feed by feed, so each feed's entries are adjacent
    by_feed = {idx: list(group) for idx, group in itertools.groupby(entries, key=operator.itemgetter(0))}
    feeds = [(r["idx"], "http://127.0.0.1/feeds/" + r["name"], r.get("title", ""))
             for r in gen_farm.load_manifest(farm)["feeds"]]
    return feeds, by_feed


def _kept(path, digest, make):
    """make()'s value, pickled in path beside digest: made again when the digest differs."""
    try:
        with open(path, "rb") as kept:
            kept_digest, value = pickle.load(kept)
    except (OSError, EOFError, ValueError, pickle.PickleError):
        kept_digest = None
    if kept_digest != digest:
        value = make()
        gen_farm.put_file(path, pickle.dumps((digest, value), protocol=pickle.HIGHEST_PROTOCOL))
    return value


def load(farm):
    """(feeds, by_feed): feeds is [(feed index, its URL, title)], by_feed maps a feed index to its
    entries [(feed index, url, title, content, published)], feeds in the manifest's order.
    Making the texts takes longer than storing them, so they are kept in FARM/.entries.pickle
    beside the manifest's SHA-1, which tells a mutated or remade farm from the one cached."""
    return _kept(os.path.join(farm, CACHE), _digest(farm), lambda: _read_farm(farm))


# ---- the database

def fresh_database(path, leftovers, pragmas, schema):
    """Removes path+suffix for each of leftovers, then opens path in autocommit mode, runs the
    pragmas one by one and the schema as one script."""
    for suffix in leftovers:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in pragmas:
        db.execute(pragma)
    db.executescript(schema)
    return db


@contextlib.contextmanager
def transaction(db):
    db.execute("BEGIN")
    yield
    db.execute("COMMIT")


class Pass(NamedTuple):
    seconds: float
    changes: int      # as sqlite3 counts them: with --fts, the trigger's writes too
    cpu: float


def one_pass(db, by_feed):
    """Every entry once, a transaction per feed."""
    clocks = (time.perf_counter, lambda: db.total_changes, time.process_time)
    before = [clock() for clock in clocks]
    for rows in by_feed.values():
        with transaction(db):
            db.executemany(INSERT, rows)
    return Pass(*(clock() - start for clock, start in zip(clocks, before)))


def on_disk(path):
    return sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix))


def timed(work, *args):
    """(work(*args), the wall seconds it took)."""
    began = time.perf_counter()
    return work(*args), time.perf_counter() - began


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("farm", help="a farm made by bench/farm/gen_farm.py")
    parser.add_argument("--db", required=True, help="the database to make (removed first)")
    parser.add_argument("--fts", action="store_true", help="with an FTS5 index kept by a trigger")
    parser.add_argument("--sync", default="normal", choices=["off", "normal", "full"], help="PRAGMA synchronous")
    args = parser.parse_args()

    (feeds, by_feed), loading = timed(load, args.farm)
    entries = [entry for rows in by_feed.values() for entry in rows]
    text_bytes = sum(len(entry[3].encode("utf-8")) + len(entry[2].encode("utf-8")) for entry in entries)

    db = fresh_database(args.db, ("", "-wal", "-shm", "-journal"),
                        ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=%s" % args.sync.upper()],
                        SCHEMA + (FTS_SCHEMA if args.fts else ""))
    with transaction(db):
        db.executemany(INSERT_FEED, feeds)
    first, again = one_pass(db, by_feed), one_pass(db, by_feed)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = on_disk(args.db)
    checks = {}
    if args.fts:   # total_changes would count the trigger's writes: count the rows instead
        with contextlib.closing(sqlite3.connect(args.db)) as db:
            checks = {name: db.execute(query).fetchone()[0] for name, query in FTS_CHECKS.items()}

    rows = len(entries)
    result = dict(sqlite=sqlite3.sqlite_version, fts5=args.fts, synchronous=args.sync, feeds=len(by_feed),
                  rows_attempted=rows, rows_inserted=checks.get("rows", first.changes),
                  insert_s=round(first.seconds, 3), entries_per_s=round(rows / first.seconds, 1),
                  mb_per_s=round(text_bytes / first.seconds / 1e6, 2),
                  dupes_s=round(again.seconds, 3), dupes_per_s=round(rows / again.seconds, 1),
                  dupes_inserted=None if args.fts else again.changes,
                  db_mb=round(size / 1e6, 1), load_s=round(loading, 2),
                  insert_cpu_s=round(first.cpu, 3), entries_per_cpu_s=round(rows / first.cpu, 1),
                  dupes_per_cpu_s=round(rows / again.cpu, 1))
    if "fts_match_check" in checks:
        result["fts_match_check"] = checks["fts_match_check"]
    print("SQLite %s%s, synchronous=%s: %d entries (%d stored) in %.2f s, %.0f entries/s, %.1f MB/s; "
          "all-duplicates pass %.0f entries/s; database %.0f MB"
          % (sqlite3.sqlite_version, " with FTS5" if args.fts else "", args.sync, rows, result["rows_inserted"],
             first.seconds, result["entries_per_s"], result["mb_per_s"], result["dupes_per_s"], result["db_mb"]),
          file=sys.stderr)
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
