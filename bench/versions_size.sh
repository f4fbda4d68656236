#!/usr/bin/env bash
# Issue 46's text-versions bar: the store a cold `aggregatord --once` round of the N-feed farm makes
# (its cross-posts copy their item's text: equal texts) with two builds, a fresh database each: the
# file's size in pages in use (page_count - freelist_count, 16 KB pages), the cross-posted entries
# (sources > 1) and the versions kept (`entry_versions`, 0 on a build without them).
#   N=1000 bash bench/versions_size.sh BIN_DIR_A BIN_DIR_B     (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: bash bench/versions_size.sh BIN_DIR_A BIN_DIR_B}
b=${2:?usage: bash bench/versions_size.sh BIN_DIR_A BIN_DIR_B}
n=${N:-1000}; port=${PORT:-18083}
source bench/serve_farm.sh
serve_farm "$n" "$port"
for side in A B; do
    bin=$a; [ $side = B ] && bin=$b
    db="$work/$side.db"
    out=$("$bin/aggregatord" --once --database "$db" --seed-opml "$farm/farm.opml" --log-level error --private-networks all)
    python3 - "$db" "$side" "$bin" "$out" <<'PY'
import sqlite3, sys
db, side, path, out = sys.argv[1:]
c = sqlite3.connect(db)
pages = c.execute("PRAGMA page_count").fetchone()[0] - c.execute("PRAGMA freelist_count").fetchone()[0]
size = pages * c.execute("PRAGMA page_size").fetchone()[0]
cross = c.execute("SELECT count(*) FROM entry_state WHERE sources > 1").fetchone()[0]
entries = c.execute("SELECT count(*) FROM entries").fetchone()[0]
has = c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'entry_versions'").fetchone()[0]
versions = c.execute("SELECT count(*) FROM entry_versions").fetchone()[0] if has else "no table"
print(f"| {side}: {path} | {size / 1e6:.2f} MB ({pages} pages) | {entries} | {cross} | {versions} | {out.strip()} |")
PY
done
