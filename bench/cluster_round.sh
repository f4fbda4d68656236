#!/usr/bin/env bash
# Issue 31's cluster bars on the N-feed farm (nginx, one host, its access log) and a throwaway local
# PostgreSQL cluster (Unix socket, fsync on), RUNS times, alternating:
#  - one daemon: `aggregatord --once` on a fresh database following every farm feed;
#  - three daemons (node-1..3) started together on another fresh database, until every feed is
#    checked: wall time, requests per feed URL (each exactly once?), entries (= one daemon's),
#    feeds each daemon claimed.
# Then the cross-node `watch` latency: two daemons on a fresh database, `watch --json` on each, 20
# feeds added one at a time; for each, the time from the line printed by the watcher of the daemon
# that stored it (right after its commit) to the same line from the other's: median and p95.
#   N=1000 RUNS=3 bash bench/cluster_round.sh BIN_DIR     (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:?usage: bash bench/cluster_round.sh BIN_DIR}" && pwd)
n=${N:-1000}; runs=${RUNS:-3}; port=${PORT:-18082}
source bench/serve_farm.sh
ACCESS_LOG=1 serve_farm "$n" "$port"
log="$farm/.nginx/access.log"
chmod 0755 "$work"
cluster=$work/cluster
trap 'pkill -f "$work/node-" || true; bench/farm/serve.sh stop "$farm" > /dev/null; Tests/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
base=$(POSTGRES_FSYNC=on Tests/postgres-cluster.sh start "$cluster")

fresh() {  # fresh -> the URI of a new database following every farm feed (nothing fetched)
    local name=bench_$(date +%s%N)
    psql -qX "$base" -c "CREATE DATABASE $name"
    local uri=${base/\/postgres\?/\/$name?}
    "$bin/storebench" subscribe "$uri" "$farm/urls" 1 0 > /dev/null
    echo "$uri"
}

requests() {  # requests -> "URLS REQUESTS MOST" to /feeds/ in the access log
    sleep 0.5  # nginx writes its lines after the responses
    python3 -c '
import collections, sys
paths = collections.Counter(l.split("\"")[1].split()[1] for l in open(sys.argv[1]) if l.count("\"") >= 2)
feeds = [c for p, c in paths.items() if p.startswith("/feeds/")]
print(len(feeds), sum(feeds), max(feeds, default=0))' "$log"
}

daemon() {  # daemon NAME URI [ARGS…]: started in the background
    local name=$1 uri=$2; shift 2
    "$bin/aggregatord" --database "$uri" --node-name "$name" --socket "$work/$name.sock" --http-listen none \
        --seed-opml "" --private-networks all --feed-icons false --log-level warning "$@" 2> "$work/$name.log" &
}

for run in $(seq "$runs"); do
    uri=$(fresh); : > "$log"
    start=$(date +%s.%N)
    "$bin/aggregatord" --once --database "$uri" --node-name once --seed-opml "" --private-networks all \
        --feed-icons false --log-level error > /dev/null
    end=$(date +%s.%N)
    echo "one $(python3 -c "print(round($end - $start, 2))") $(psql -qXAt "$uri" -c 'SELECT count(*) FROM entries') $(requests) -" >> "$work/results"

    uri=$(fresh); : > "$log"
    start=$(date +%s.%N)
    for node in 1 2 3; do daemon "node-$node" "$uri"; done
    until [ "$(psql -qXAt "$uri" -c 'SELECT count(*) FROM feeds WHERE checked_at IS NULL OR claimed_by IS NOT NULL')" = 0 ]; do
        sleep 0.1
    done
    end=$(date +%s.%N)
    spread=$(psql -qXAt "$uri" -c "SELECT string_agg(feeds_claimed::text, '/' ORDER BY name) FROM nodes")
    pkill -TERM -f "$work/node-" || true; wait
    echo "three $(python3 -c "print(round($end - $start, 2))") $(psql -qXAt "$uri" -c 'SELECT count(*) FROM entries') $(requests) $spread" >> "$work/results"
done

python3 - "$work/results" "$n" "$runs" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print(f"A round over the {sys.argv[2]}-feed farm on PostgreSQL, medians of {sys.argv[3]} alternating runs")
print("| daemons | round s | entries | feed URLs fetched | requests | most per URL | feeds claimed per daemon |")
print("|---|---|---|---|---|---|---|")
for side in ("one", "three"):
    r = [x for x in rows if x[0] == side]
    walls = [float(x[1]) for x in r]
    print(f"| {side} | {statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f}) | {'/'.join(sorted(set(x[2] for x in r)))} "
          f"| {'/'.join(sorted(set(x[3] for x in r)))} | {'/'.join(sorted(set(x[4] for x in r)))} | {max(int(x[5]) for x in r)} "
          f"| {', '.join(x[6] for x in r)} |")
PY

# Cross-node watch latency.
uri=$(fresh)
psql -qX "$uri" -c "DELETE FROM subscriptions" -c "DELETE FROM feeds"
daemon node-1 "$uri"; daemon node-2 "$uri"
for name in node-1 node-2; do
    until "$bin/aggregatorctl" --socket "$work/$name.sock" status > /dev/null 2>&1; do sleep 0.1; done
done
python3 - "$bin/aggregatorctl" "$work" "$farm/urls" <<'PY'
import json, statistics, subprocess, sys, threading, time
ctl, work, urls = sys.argv[1:4]
feeds = [line.split()[0] for line in open(urls) if line.strip() and not line.startswith("#")][:20]
seen = {}  # entry id -> {node: monotonic time of its line}
def read(node):
    watcher = subprocess.Popen([ctl, "--socket", f"{work}/{node}.sock", "watch", "--json"], stdout=subprocess.PIPE, text=True)
    for line in watcher.stdout:
        seen.setdefault(json.loads(line)["id"], {})[node] = time.monotonic()
for node in ("node-1", "node-2"):
    threading.Thread(target=read, args=(node,), daemon=True).start()
time.sleep(1)
firsts = []
for url in feeds:
    before = set(seen)
    subprocess.run([ctl, "--socket", f"{work}/node-1.sock", "add", url], check=True, capture_output=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        new = [i for i in seen if i not in before]
        if new and all(len(seen[i]) == 2 for i in new):
            break
        time.sleep(0.01)
    new = sorted(i for i in seen if i not in before)
    if not new or len(seen[new[0]]) < 2:
        sys.exit(f"no entries from {url} on both watchers")
    times = seen[new[0]]
    firsts.append(max(times.values()) - min(times.values()))
    time.sleep(0.3)
firsts.sort()
print(f"\ncross-node watch latency over {len(firsts)} feeds added one at a time (first entry of each): "
      f"median {statistics.median(firsts) * 1000:.1f} ms, p95 {firsts[int(len(firsts) * 0.95) - 1] * 1000:.1f} ms, "
      f"max {firsts[-1] * 1000:.1f} ms")
PY
