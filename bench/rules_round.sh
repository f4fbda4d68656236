#!/usr/bin/env bash
# Issue 32's rules bar: one refresh round (`aggregatord --once`) over the N-feed farm for one account
# following every feed, without filter rules and with twenty (`storebench rules`: fifteen of the
# account's own, EntryContent among them, and a blocklist on five feeds), RUNS times each,
# alternating; medians.
#   N=1000 RUNS=5 bash bench/rules_round.sh BIN_DIR     (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:?usage: bash bench/rules_round.sh BIN_DIR}" && pwd)
n=${N:-1000}; runs=${RUNS:-5}; port=${PORT:-18082}
source bench/serve_farm.sh
serve_farm "$n" "$port"

round() {  # round SIDE RUN
    local db="$work/$1-$2.db" start end out hidden
    "$bin/storebench" subscribe "$db" "$farm/urls" 1 0 > /dev/null
    if [ "$1" = rules ]; then "$bin/storebench" rules "$db" > /dev/null; fi
    start=$(date +%s.%N)
    out=$("$bin/aggregatord" --once --database "$db" --private-networks all --log-level error) || true
    end=$(date +%s.%N)
    hidden=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM entry_marks WHERE by_rule = 1').fetchone()[0])" "$db")
    echo "$1 $(python3 -c "print(round($end - $start, 3))") $hidden $out" >> "$work/results"
}

for run in $(seq "$runs"); do
    round plain "$run"
    round rules "$run"
done
python3 - "$work/results" "$n" "$runs" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print(f"`aggregatord --once` on the {sys.argv[2]}-feed farm, one account, medians of {sys.argv[3]} alternating runs")
print("| rules | round s | entries hidden |")
print("|---|---|---|")
med = {}
for side, label in (("plain", "none"), ("rules", "20 (15 account, EntryContent among them; 5 feed blocklists)")):
    r = [x for x in rows if x[0] == side]
    walls = [float(x[1]) for x in r]
    med[side] = statistics.median(walls)
    print(f"| {label} | {med[side]:.2f} ({min(walls):.2f}–{max(walls):.2f}) | {r[0][2]} |")
print(f"\nratio rules/none: {med['rules'] / med['plain']:.3f}")
for x in rows: print(" ".join(x))
PY
