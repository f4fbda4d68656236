#!/usr/bin/env bash
# Two builds of aggregatord side by side: `--once` cold (a fresh database) and warm (the same
# database again: every feed answers 304), RUNS times each, alternating A and B, on the N-feed
# farm served by nginx (bench/farm/serve.sh). Prints each side's median wall time.
#   N=1000 RUNS=5 bash bench/once_compare.sh BIN_DIR_A BIN_DIR_B     (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: bash bench/once_compare.sh BIN_DIR_A BIN_DIR_B}
b=${2:?usage: bash bench/once_compare.sh BIN_DIR_A BIN_DIR_B}
n=${N:-1000}; runs=${RUNS:-5}; port=${PORT:-18080}
source bench/serve_farm.sh
serve_farm "$n" "$port"

once() {  # once BIN_DIR DB -> wall seconds; fails when a feed failed
    local start end out
    start=$(date +%s.%N)
    out=$("$1/aggregatord" --once --database "$2" --seed-opml "$farm/farm.opml" --log-level error)
    end=$(date +%s.%N)
    case $out in *" failed=0 "*) ;; *) echo "$1: feeds failed: $out" >&2; exit 1 ;; esac
    python3 -c "print(round($end - $start, 3))"
}

for run in $(seq "$runs"); do
    for side in A B; do
        bin=$a; [ $side = B ] && bin=$b
        db="$work/$side-$run.db"
        echo "$side cold $(once "$bin" "$db")" >> "$work/results"
        echo "$side warm $(once "$bin" "$db")" >> "$work/results"
    done
done
python3 - "$work/results" "$a" "$b" "$n" "$runs" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print(f"aggregatord --once on the {sys.argv[4]}-feed farm, medians of {sys.argv[5]} alternating runs")
print("| build | cold s | warm s |")
print("|---|---|---|")
for side, path in (("A", sys.argv[2]), ("B", sys.argv[3])):
    cold = [float(r[2]) for r in rows if r[0] == side and r[1] == "cold"]
    warm = [float(r[2]) for r in rows if r[0] == side and r[1] == "warm"]
    print(f"| {side}: {path} | {statistics.median(cold):.2f} ({min(cold):.2f}-{max(cold):.2f}) "
          f"| {statistics.median(warm):.2f} ({min(warm):.2f}-{max(warm):.2f}) |")
PY
