#!/usr/bin/env bash
# Overload (docs/RELIABILITY.md, "Load"): the release daemon on the 1,000-feed farm (served by
# nginx), an account with an API token, and GET REQUEST_PATH (default the Miniflux unread page)
# from bench/overload.py's clients spread over PROCESSES loopback addresses, each load for SECONDS:
#   closed 50       the sustainable rate S (what 50 clients get)
#   closed 400      400 clients: p99 of accepted requests, and accepted throughput against S; then
#                   the same clients waiting the Retry-After they are told

#   open 2S, 5S     requests sent on schedule at twice and five times S: p99 and shed rate
# During each load a refresh round over every feed runs (`aggregatorctl refresh --wait`, its
# seconds printed, against one on a quiet daemon) and /healthcheck is probed every 0.5 s with a 1 s
# limit (failures printed).
#   SECONDS_EACH=20 bash bench/overload.sh        (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_EACH:-20}; processes=${PROCESSES:-4}; port=${PORT:-18091}
path=${REQUEST_PATH:-/v1/entries?status=unread&limit=20}
farm=$(pwd)/bench/out/farm-n1000-s42
[ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n 1000 --seed 42 --port "$port" > /dev/null
python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
work=$(mktemp -d)
chmod 755 "$work"
daemon=""
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    bench/farm/serve.sh stop "$work/farm" > /dev/null 2>&1 || true
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/farm"
cp -a "$farm/feeds" "$farm/manifest.json" "$farm/farm.opml" "$work/farm/"
bench/farm/serve.sh start "$work/farm" "$port" > /dev/null
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ctl=(.build/release/aggregatorctl --socket "$work/ctl.sock")
.build/release/aggregatord --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "$work/farm/farm.opml" \
    --http-listen "127.0.0.1:$http_port" --log-level warning 2> "$work/daemon.log" &
daemon=$!
until "${ctl[@]}" status > /dev/null 2>&1; do sleep 0.5; done
printf 'bench password\n' | "${ctl[@]}" user set bench > /dev/null
token=$("${ctl[@]}" --user bench token create overload)
"${ctl[@]}" refresh --wait > /dev/null  # the cold round, before anything is measured

round() { local start; start=$(date +%s.%N); "${ctl[@]}" refresh --wait > /dev/null
          python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)"; }
probes() {
    local failed=0 total=0
    while [ ! -e "$work/stop-probes" ]; do
        total=$((total + 1))
        curl -sf -m 1 "http://127.0.0.1:$http_port/healthcheck" > /dev/null || failed=$((failed + 1))
        sleep 0.5
    done
    echo "$failed of $total"
}
# The daemon's user + system CPU seconds so far.
cpu_seconds() { python3 -c "import os, sys; f = open(f'/proc/{sys.argv[1]}/stat').read().rsplit(')', 1)[1].split(); print((int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK'))" "$daemon"; }
echo "quiet round: $(round) s"
load() {
    rm -f "$work/stop-probes"
    probes > "$work/probes" &
    local prober=$!
    round > "$work/round" &
    local rounder=$!
    local result cpu
    cpu=$(cpu_seconds)
    result=$(python3 bench/overload.py "$http_port" "$token" "$path" "$1" "$2" "$seconds" "$processes")
    cpu=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$cpu" "$(cpu_seconds)")
    wait "$rounder"
    touch "$work/stop-probes"
    wait "$prober"
    echo "${RETRY_AFTER:+polite }$1 $2: $result daemon CPU $cpu s, round $(cat "$work/round") s, /healthcheck failed $(cat "$work/probes")"
    echo "$result" > "$work/last"
}
load closed 50
sustainable=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["accepted_per_second"])' "$work/last")
load closed 400
RETRY_AFTER=1 load closed 400
load open $((2 * sustainable))
load open $((5 * sustainable))
