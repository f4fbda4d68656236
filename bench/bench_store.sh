#!/usr/bin/env bash
# Ingest speed: every entry of an N=1000 farm parsed and ingested with full-text indexing
# (bench/StoreBench) against bench/reference/store_limit.py on the same farm, alternating; and
# against store_limit.py changed only to build the index the FeedStore issue asks for (phrases:
# detail=full; prefix='3'; remove_diacritics 2: its --index full), and against that index built
# alone, without any entry rows (bench/fts_index_alone.py).
#   N=1000 RUNS=3 bash bench/bench_store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}
runs=${RUNS:-3}
farm=${FARM:-bench/out/farm-n$n-s42}
if [ ! -d "$farm/feeds" ]; then
    echo "generating the N=$n farm in $farm"
    python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port 18080 > /dev/null
fi
work=$(mktemp -d)
db=$work/bench.db
python3 bench/reference/store_limit.py "$farm" "$db" > /dev/null   # warm-up; caches the farm's entries
ours=(); limit=(); full=(); alone=(); walls=()
for _ in $(seq "$runs"); do
    limit+=("$(python3 bench/reference/store_limit.py "$farm" "$db")")
    full+=("$(python3 bench/reference/store_limit.py "$farm" "$work/full.db" --index full)")
    alone+=("$(python3 bench/fts_index_alone.py "$farm" "$work/alone.db" \
        "tokenize='unicode61 remove_diacritics 2', prefix='3'")")
    result=$(.build/release/storebench "$farm" "$db" | sed -n 's/^RESULT //p')
    ours+=("$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ingest_s"])')")
    walls+=("$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_s"])')")
    entries=$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"])')
done
size=$(stat -c %s "$db")
rm -rf "$work"
python3 - "$entries" "$size" "${ours[*]}" "${walls[*]}" "${limit[*]}" "${full[*]}" "${alone[*]}" <<'PY'
import statistics, sys
entries, size = int(sys.argv[1]), int(sys.argv[2])
ours, walls, limit, full, alone = ([float(x) for x in arg.split()] for arg in sys.argv[3:8])
o, w, l, f, a = (statistics.median(x) for x in (ours, walls, limit, full, alone))
print(f"{entries} entries stored (unique URLs); medians of {len(ours)} alternating runs\n")
print("| stage | seconds (median) | min–max | entries/s |")
print("|---|---|---|---|")
print(f"| FeedStore.ingest, groups of 50 feeds, commits held to 10,000 entries | {o:.2f} | {min(ours):.2f}–{max(ours):.2f} | {entries / o:,.0f} |")
print(f"| parse + ingest, overlapped (wall) | {w:.2f} | {min(walls):.2f}–{max(walls):.2f} | {entries / w:,.0f} |")
print(f"| store_limit.py | {l:.2f} | {min(limit):.2f}–{max(limit):.2f} | {entries / l:,.0f} |")
print(f"| store_limit.py with the issue's index (detail=full, prefix='3') | {f:.2f} | {min(full):.2f}–{max(full):.2f} | {entries / f:,.0f} |")
print(f"| the issue's index alone, no entry rows (fts_index_alone.py) | {a:.2f} | {min(alone):.2f}–{max(alone):.2f} | {entries / a:,.0f} |")
print(f"\ningest / store_limit: {o / l:.2f}x   ingest / store_limit with the issue's index: {o / f:.2f}x   "
      f"store_limit with that index / store_limit: {f / l:.2f}x   that index alone / store_limit: {a / l:.2f}x")
print(f"database: {size / 1e6:.0f} MB, {size / entries:,.0f} bytes per entry")
PY
