#!/usr/bin/env bash
# A refresh round on a disk that fills up, then again once it has room: the N-feed farm (served by
# bench/farm/serve.sh) stored by `aggregatord --once` into a database on a SIZE tmpfs (default
# 40m), which runs out mid-round; the filesystem is then grown to 400m and `--once` runs again.
# Prints each round's summary and exit status, the failing feeds and their reason, and the entries
# stored against the farm's unique URLs. Needs root (mount).
#   N=1000 SIZE=40m bash bench/disk_full.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}; size=${SIZE:-40m}; port=${PORT:-18080}
farm=$(pwd)/${FARM:-bench/out/farm-n$n-s42}
[ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/disk"
mount -t tmpfs -o "size=$size" tmpfs "$work/disk"
cleanup() { bench/farm/serve.sh stop "$farm" > /dev/null 2>&1 || true; umount "$work/disk" 2> /dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
bench/farm/serve.sh start "$farm" "$port" > /dev/null
once() { .build/release/aggregatord --once --database "$work/disk/agg.db" --seed-opml "$farm/farm.opml" --log-level error \
    2> "$work/log"; }
set +e
first=$(once); first_status=$?
set -e
echo "round on a $size disk: $first (exit $first_status)"
grep -m 1 "Cannot store" "$work/log" | cut -c1-200 || true
python3 - "$work/disk/agg.db" << 'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
failing = c.execute("SELECT count(*) FROM feeds WHERE status = 'failing'").fetchone()[0]
reason = c.execute("SELECT last_error FROM feeds WHERE status = 'failing' LIMIT 1").fetchone()
print(f"failing feeds: {failing}; entries stored: {c.execute('SELECT count(*) FROM entries').fetchone()[0]}")
if reason: print(f"reason: {reason[0][:160]}")
PY
mount -o remount,size=400m "$work/disk"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE feeds SET next_check_at = 0'); c.commit()" "$work/disk/agg.db"
set +e
second=$(once); second_status=$?
set -e
echo "round with room again: $second (exit $second_status)"
python3 - "$work/disk/agg.db" "$farm/manifest.json" << 'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
stored = c.execute("SELECT count(*) FROM entries").fetchone()[0]
manifest = json.load(open(sys.argv[2]))
unique = manifest["totals"]["unique_urls"]
failing = c.execute("SELECT count(*) FROM feeds WHERE status = 'failing'").fetchone()[0]
print(f"entries stored: {stored}; the farm's unique URLs: {unique}; failing feeds: {failing}")
PY
