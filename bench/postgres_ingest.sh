#!/usr/bin/env bash
# Ingest on both backends: every entry of an N=1000 farm parsed and ingested with full-text indexing
# (bench/StoreBench: groups of 50 feeds, the commit held open as the daemon does) into a fresh SQLite
# file and into a fresh PostgreSQL database on a throwaway local cluster (Unix socket, fsync on,
# otherwise PostgreSQL's defaults), alternating, RUNS times each; medians and the ratio.
#   RUNS=3 bash bench/postgres_ingest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}
runs=${RUNS:-3}
farm=${FARM:-bench/out/farm-n$n-s42}
if [ ! -d "$farm/feeds" ]; then
    echo "generating the N=$n farm in $farm"
    python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port 18080 > /dev/null
fi
work=$(mktemp -d /tmp/aggregator-pgbench.XXXXXX)
chmod 0755 "$work"  # the cluster inside runs as the postgres user
cluster=$work/cluster
trap 'Tests/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
base=$(POSTGRES_FSYNC=on Tests/postgres-cluster.sh start "$cluster")
sqlite=(); postgres=(); sizes=()
for run in $(seq "$runs"); do
    result=$(.build/release/storebench "$farm" "$work/bench.db" | sed -n 's/^RESULT //p')
    sqlite+=("$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ingest_s"])')")
    entries=$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"])')
    database="bench_$run"
    psql -qX "$base" -c "CREATE DATABASE $database"
    uri=${base/\/postgres\?/\/$database?}
    result=$(.build/release/storebench "$farm" "$uri" | sed -n 's/^RESULT //p')
    postgres+=("$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ingest_s"])')")
    pg_entries=$(echo "$result" | python3 -c 'import json,sys; print(json.load(sys.stdin)["entries"])')
    [ "$pg_entries" = "$entries" ] || { echo "error: $pg_entries entries on PostgreSQL, $entries on SQLite" >&2; exit 1; }
    sizes+=("$(psql -qXAt "$uri" -c 'SELECT pg_database_size(current_database())')")
done
size=$(stat -c %s "$work/bench.db")
python3 - "$entries" "$size" "${sizes[-1]}" "${sqlite[*]}" "${postgres[*]}" <<'PY'
import statistics, sys
entries, size, pg_size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sqlite, postgres = ([float(x) for x in arg.split()] for arg in sys.argv[4:6])
s, p = statistics.median(sqlite), statistics.median(postgres)
print(f"entries={entries}")
print(f"sqlite:     ingest median {s:.2f} s ({entries / s:,.0f} entries/s)  runs {sqlite}  file {size / 1e6:.0f} MB")
print(f"postgresql: ingest median {p:.2f} s ({entries / p:,.0f} entries/s)  runs {postgres}  database {pg_size / 1e6:.0f} MB")
print(f"postgresql / sqlite: {p / s:.2f}x the time")
PY
