#!/usr/bin/env bash
# Scale and memory of the daemon (issue 5), on farms from bench/farm/gen_farm.py (seed 42) served by
# bench/farm/serve.sh:
#   linear   `aggregatord --once` cold over the 5,000-feed farm against the 1,000-feed one (medians)
#   soak     the daemon on a copy of the 5,000-feed farm for 3 + ROUNDS rounds (`aggregatorctl refresh
#            --wait`), ~10 % of the feeds getting new items before each (`gen_farm.py --mutate`); its
#            resident memory (VmRSS, and the peak VmHWM) after every round
#   RUNS=3 ROUNDS=20 bash bench/soak.sh            (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}; rounds=${ROUNDS:-20}; port=${PORT:-18080}
small=$(pwd)/bench/out/farm-n1000-s42; large=$(pwd)/bench/out/farm-n5000-s42
for farm in "$small" "$large"; do
    n=$(basename "$farm" | sed 's/farm-n\([0-9]*\)-.*/\1/')
    [ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
    python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
done
work=$(mktemp -d)
chmod 755 "$work"  # nginx's workers serve the soak's copy of the farm from here
served=""; daemon=""
serve() { [ -z "$served" ] || bench/farm/serve.sh stop "$served" > /dev/null; served=$1; bench/farm/serve.sh start "$1" "$port" > /dev/null; }
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    [ -z "$served" ] || bench/farm/serve.sh stop "$served" > /dev/null
    rm -rf "$work"
}
trap cleanup EXIT

once() {  # once FARM -> wall seconds of a cold --once
    rm -f "$work"/once.db*
    local start end
    start=$(date +%s.%N)
    .build/release/aggregatord --once --database "$work/once.db" --seed-opml "$1/farm.opml" --log-level error \
        > /dev/null || { echo "a cold round over $1 had failed feeds: not measured" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 -c "print(round($end - $start, 3))"
}
small_times=(); large_times=()
for _ in $(seq "$runs"); do
    serve "$small"; small_times+=("$(once "$small")")
    serve "$large"; large_times+=("$(once "$large")")
done
python3 - "${small_times[*]}" "${large_times[*]}" <<'PY'
import statistics, sys
small, large = ([float(x) for x in arg.split()] for arg in sys.argv[1:3])
print(f"cold --once, medians of {len(small)}: 1,000 feeds {statistics.median(small):.2f} s, "
      f"5,000 feeds {statistics.median(large):.2f} s: {statistics.median(large) / statistics.median(small):.2f}x\n")
PY

# The soak serves a copy, so the farm itself stays as generated.
mkdir -p "$work/farm"
cp -a "$large/feeds" "$large/manifest.json" "$large/farm.opml" "$work/farm/"
serve "$work/farm"
ctl=(.build/release/aggregatorctl --socket "$work/ctl.sock")
.build/release/aggregatord --database "$work/soak.db" --socket "$work/ctl.sock" --seed-opml "$work/farm/farm.opml" \
    2> "$work/daemon.log" &
daemon=$!
report() {  # report ROUND NEW_ENTRIES SECONDS FAILED: one row, with the daemon's memory now
    [ "$4" = 0 ] || { echo "round $1: $4 feeds failed: stopping" >&2; exit 1; }
    awk -v round="$1" -v new="$2" -v seconds="$3" '/^VmRSS/ {rss = $2} /^VmHWM/ {hwm = $2}
        END {printf "| %s | %s | %.2f | %.1f | %.1f |\n", round, new, seconds, rss / 1024, hwm / 1024}' "/proc/$daemon/status"
}
echo "| round | new entries | seconds | VmRSS MB | VmHWM MB |"
echo "|---|---|---|---|---|"
# Round 1 is the scheduler's own, cold, at start-up; each later one comes after a mutation.
until grep -q 'msg="Refresh round done"' "$work/daemon.log"; do sleep 0.5; done
line=$(grep -m 1 'msg="Refresh round done"' "$work/daemon.log")
report 1 "$(sed 's/.*new_entries=\([0-9]*\).*/\1/' <<< "$line")" "$(sed 's/.*seconds=\([0-9.]*\).*/\1/' <<< "$line")" \
    "$(sed 's/.*failed=\([0-9]*\).*/\1/' <<< "$line")"
for round in $(seq 2 $((rounds + 3))); do
    python3 bench/farm/gen_farm.py "$work/farm" --mutate "$round" > /dev/null
    summary=$("${ctl[@]}" --json refresh --wait)
    report "$round" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["new_entries"])' <<< "$summary")" \
        "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])' <<< "$summary")" \
        "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["failed"])' <<< "$summary")"
done
