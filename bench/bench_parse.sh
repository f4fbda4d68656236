#!/usr/bin/env bash
# Parse speed against libxml2's own xmllint on a generated farm (issue: FeedParser bars).
#   N=2000 RUNS=5 bash bench/bench_parse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-2000}
farm=${FARM:-bench/out/farm-n$n-s42}
if [ ! -d "$farm/feeds" ]; then
    echo "generating the N=$n farm in $farm"
    python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port 18080 > /dev/null
fi
command -v xmllint > /dev/null || { echo "xmllint missing: run 'make bench-deps'" >&2; exit 1; }
python3 bench/parse_bench.py --farm "$farm" --runs "${RUNS:-5}"
