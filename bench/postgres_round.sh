#!/usr/bin/env bash
# A refresh round on each backend: `aggregatord --once` cold (a fresh database) and warm (the same
# database again: every feed answers 304) over the N-feed farm served by nginx, on a fresh SQLite
# file and on a fresh database of a throwaway local PostgreSQL cluster (Unix socket, fsync on,
# PostgreSQL's defaults otherwise), alternating, RUNS times each; medians and the ratios.
#   N=1000 RUNS=3 bash bench/postgres_round.sh          (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}; runs=${RUNS:-3}; port=${PORT:-18080}
bin=${BIN:-.build/release}
source bench/serve_farm.sh
serve_farm "$n" "$port"
chmod 0755 "$work"  # the cluster inside runs as the postgres user
cluster=$work/cluster
trap 'bench/farm/serve.sh stop "$farm" > /dev/null; Tests/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
base=$(POSTGRES_FSYNC=on Tests/postgres-cluster.sh start "$cluster")

once() {  # once DATABASE -> wall seconds; fails when a feed failed
    local start end out
    start=$(date +%s.%N)
    out=$("$bin/aggregatord" --once --database "$1" --seed-opml "$farm/farm.opml" --log-level error)
    end=$(date +%s.%N)
    case $out in *" failed=0 "*) ;; *) echo "feeds failed: $out" >&2; exit 1 ;; esac
    python3 -c "print(round($end - $start, 3))"
}

for run in $(seq "$runs"); do
    db="$work/sqlite-$run.db"
    echo "sqlite cold $(once "$db")" >> "$work/results"
    echo "sqlite warm $(once "$db")" >> "$work/results"
    psql -qX "$base" -c "CREATE DATABASE round_$run"
    uri=${base/\/postgres\?/\/round_$run?}
    echo "postgres cold $(once "$uri")" >> "$work/results"
    echo "postgres warm $(once "$uri")" >> "$work/results"
    entries_sqlite=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from entries').fetchone()[0])" "$db")
    entries_pg=$(psql -qXAt "$uri" -c 'SELECT count(*) FROM entries')
    [ "$entries_sqlite" = "$entries_pg" ] || { echo "error: $entries_pg entries on PostgreSQL, $entries_sqlite on SQLite" >&2; exit 1; }
done
python3 - "$work/results" "$n" "$runs" "$entries_sqlite" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print(f"aggregatord --once on the {sys.argv[2]}-feed farm ({sys.argv[4]} entries), medians of {sys.argv[3]} alternating runs")
print("| backend | cold s | warm s |")
print("|---|---|---|")
medians = {}
for side in ("sqlite", "postgres"):
    cold = [float(r[2]) for r in rows if r[0] == side and r[1] == "cold"]
    warm = [float(r[2]) for r in rows if r[0] == side and r[1] == "warm"]
    medians[side] = (statistics.median(cold), statistics.median(warm))
    print(f"| {side} | {medians[side][0]:.2f} ({min(cold):.2f}-{max(cold):.2f}) | {medians[side][1]:.2f} ({min(warm):.2f}-{max(warm):.2f}) |")
print(f"| postgres / sqlite | {medians['postgres'][0] / medians['sqlite'][0]:.2f}x | {medians['postgres'][1] / medians['sqlite'][1]:.2f}x |")
PY
