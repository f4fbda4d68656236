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

load() is also what store_limit.py and bench/fts_index_alone.py read the farm with.
"""
import argparse
import hashlib
import json
import os
import pickle
import sqlite3
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "farm"))
import gen_farm  # noqa: E402

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
INSERT = ("INSERT INTO entries(feed_id,url,title,content,published) VALUES(?,?,?,?,?) "
          "ON CONFLICT(url) DO NOTHING")
CACHE = ".entries.pickle"


def load(farm):
    """(feeds, by_feed): feeds is [(feed index, its URL, title)], by_feed maps a feed index to its
    entries [(feed index, url, title, content, published)], feeds in the manifest's order.
    Generating the texts takes longer than storing them, so the result is kept in FARM/.entries.pickle
    with the manifest's SHA-1: a mutated or regenerated farm is read again."""
    with open(os.path.join(farm, "manifest.json"), "rb") as manifest:
        digest = hashlib.sha1(manifest.read()).hexdigest()
    cache = os.path.join(farm, CACHE)
    try:
        with open(cache, "rb") as cached:
            cached_digest, data = pickle.load(cached)
        if cached_digest == digest:
            return data
    except (OSError, EOFError, ValueError, pickle.PickleError):
        pass
    by_feed = {}
    for entry in gen_farm.farm_entries(farm):
        by_feed.setdefault(entry[0], []).append(entry)
    records = gen_farm.load_manifest(farm)["feeds"]
    feeds = [(r["idx"], "http://127.0.0.1/feeds/" + r["name"], r.get("title", "")) for r in records]
    data = (feeds, by_feed)
    with open(cache + ".tmp", "wb") as out:
        pickle.dump((digest, data), out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(cache + ".tmp", cache)
    return data


def insert_all(db, by_feed):
    """One pass over every entry, a transaction per feed: (wall s, rows changed, CPU s)."""
    changes_before = db.total_changes
    cpu, wall = time.process_time(), time.perf_counter()
    for rows in by_feed.values():
        db.execute("BEGIN")
        db.executemany(INSERT, rows)
        db.execute("COMMIT")
    return time.perf_counter() - wall, db.total_changes - changes_before, time.process_time() - cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("farm")
    parser.add_argument("--db", required=True)
    parser.add_argument("--fts", action="store_true")
    parser.add_argument("--sync", default="normal", choices=["off", "normal", "full"])
    args = parser.parse_args()
    load_s = time.perf_counter()
    feeds, by_feed = load(args.farm)
    load_s = time.perf_counter() - load_s
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(args.db + suffix):
            os.unlink(args.db + suffix)
    db = sqlite3.connect(args.db, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=%s" % args.sync.upper())
    db.executescript(SCHEMA + (FTS_SCHEMA if args.fts else ""))
    db.execute("BEGIN")
    db.executemany("INSERT INTO feeds(id,url,title) VALUES(?,?,?)", feeds)
    db.execute("COMMIT")
    rows = sum(len(entries) for entries in by_feed.values())
    text_bytes = sum(len(e[3].encode("utf-8")) + len(e[2].encode("utf-8")) for entries in by_feed.values() for e in entries)
    first_s, first_changes, first_cpu = insert_all(db, by_feed)
    again_s, again_changes, again_cpu = insert_all(db, by_feed)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = sum(os.path.getsize(args.db + s) for s in ("", "-wal") if os.path.exists(args.db + s))
    result = {"sqlite": sqlite3.sqlite_version, "fts5": args.fts, "synchronous": args.sync, "feeds": len(by_feed),
              "rows_attempted": rows, "rows_inserted": None if args.fts else first_changes,
              "insert_s": round(first_s, 3), "entries_per_s": round(rows / first_s, 1),
              "mb_per_s": round(text_bytes / first_s / 1e6, 2),
              "dupes_s": round(again_s, 3), "dupes_per_s": round(rows / again_s, 1),
              "dupes_inserted": None if args.fts else again_changes,
              "db_mb": round(size / 1e6, 1), "load_s": round(load_s, 2),
              "insert_cpu_s": round(first_cpu, 3), "entries_per_cpu_s": round(rows / first_cpu, 1),
              "dupes_per_cpu_s": round(rows / again_cpu, 1)}
    if args.fts:   # the trigger's writes count as changes too: count the rows instead
        db = sqlite3.connect(args.db)
        result["rows_inserted"] = db.execute("SELECT count(*) FROM entries").fetchone()[0]
        result["fts_match_check"] = db.execute(
            "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'kernel'").fetchone()[0]
        db.close()
    print("SQLite %s%s, synchronous=%s: %d entries (%d stored) in %.2f s, %.0f entries/s, %.1f MB/s; "
          "all-duplicates pass %.0f entries/s; database %.0f MB"
          % (sqlite3.sqlite_version, " with FTS5" if args.fts else "", args.sync, rows, result["rows_inserted"],
             first_s, result["entries_per_s"], result["mb_per_s"], result["dupes_per_s"], result["db_mb"]),
          file=sys.stderr)
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
