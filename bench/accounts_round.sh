#!/usr/bin/env bash
# Issue 28's "fetched once, stored once" bars: one refresh round (`aggregatord --once`) over the
# N-feed farm for 1,000 accounts following 50 feeds each, drawn at random from the N (heavy
# overlap), against one account following all N; RUNS times each, alternating. For each round:
# wall time, requests per feed URL in nginx's access log, and the database's size afterwards.
#   N=5000 RUNS=3 bash bench/accounts_round.sh BIN_DIR     (needs nginx: make bench-e2e-deps)
# BIN_DIR holds aggregatord and storebench (release builds: .build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:?usage: bash bench/accounts_round.sh BIN_DIR}" && pwd)
n=${N:-5000}; runs=${RUNS:-3}; port=${PORT:-18081}
source bench/serve_farm.sh
ACCESS_LOG=1 serve_farm "$n" "$port"
log="$farm/.nginx/access.log"

round() {  # round SIDE RUN ACCOUNTS PER_ACCOUNT
    local db="$work/$1-$2.db" start end out
    "$bin/storebench" subscribe "$db" "$farm/urls" "$3" "$4" > "$work/subscribed"
    : > "$log"
    start=$(date +%s.%N)
    out=$("$bin/aggregatord" --once --database "$db" --private-networks all --log-level error) || true
    end=$(date +%s.%N)
    sleep 0.5  # nginx writes its log lines after the responses
    python3 - "$log" "$1" "$(python3 -c "print(round($end - $start, 3))")" "$db" "$work/subscribed" "$out" >> "$work/results" <<'PY'
import collections, json, os, sys
log, side, wall, db, subscribed, out = sys.argv[1:7]
paths = collections.Counter(line.split('"')[1].split()[1] for line in open(log) if line.count('"') >= 2)
feeds = {p: c for p, c in paths.items() if p.startswith("/feeds/")}
size = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
print(json.dumps({"side": side, "wall": float(wall), "feed_urls": len(feeds), "feed_requests": sum(feeds.values()),
                  "most_per_url": max(feeds.values(), default=0), "other_requests": sum(paths.values()) - sum(feeds.values()),
                  "db_bytes": size, "subscribed": json.loads(open(subscribed).read().split("RESULT ", 1)[1]),
                  "summary": out.strip()}))
PY
}

for run in $(seq "$runs"); do
    round one "$run" 1 0
    round many "$run" 1000 50
done
python3 - "$work/results" "$n" "$runs" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"One `aggregatord --once` round on the {sys.argv[2]}-feed farm, medians of {sys.argv[3]} alternating runs")
print("| side | accounts × feeds | feeds stored | feed URLs fetched | requests to feed URLs | most per URL | other requests | round s | database MB |")
print("|---|---|---|---|---|---|---|---|---|")
med = {}
for side, label in (("one", "1 × all"), ("many", "1,000 × 50")):
    r = [x for x in rows if x["side"] == side]
    wall = statistics.median(x["wall"] for x in r); size = statistics.median(x["db_bytes"] for x in r)
    med[side] = (wall, size)
    print(f"| {side} | {label} | {r[0]['subscribed']['feeds']} | {r[0]['feed_urls']} | {r[0]['feed_requests']} "
          f"| {max(x['most_per_url'] for x in r)} | {r[0]['other_requests']} "
          f"| {wall:.2f} ({min(x['wall'] for x in r):.2f}–{max(x['wall'] for x in r):.2f}) | {size / 1e6:.1f} |")
print(f"\nratios many/one: round {med['many'][0] / med['one'][0]:.2f}, database {med['many'][1] / med['one'][1]:.3f}")
for x in rows:
    print(f"{x['side']}: {x['summary']}")
PY
