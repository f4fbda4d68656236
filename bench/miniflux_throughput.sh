#!/usr/bin/env bash
# Requests a second for GET /v1/entries?limit=100 (X-Auth-Token) on a store, three ways, alternating,
# RUNS times, each for SECONDS_EACH with CONNECTIONS connections (or tasks):
#   http        the release daemon over HTTP on loopback, measured with wrk (keep-alive, 2 threads)
#   in-process  the same front end called in this process without HTTP (storebench front-end):
#               the same query, login, routing and JSON, no socket
#   nginx       nginx serving the same response bytes from a file, with wrk
# DB is a store to copy (default: the 1,000-feed farm loaded by `aggregatord --once`, made here).
#   RUNS=3 SECONDS_EACH=10 CONNECTIONS=32 bash bench/miniflux_throughput.sh     (needs nginx and wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}; seconds=${SECONDS_EACH:-10}; connections=${CONNECTIONS:-32}
path=${REQUEST_PATH:-/v1/entries?limit=100}
for tool in nginx wrk; do command -v $tool > /dev/null || { echo "$tool missing: apt-get install $tool" >&2; exit 1; }; done
work=$(mktemp -d)
chmod 755 "$work"
daemon=""
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2> /dev/null || true
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
. bench/lib.sh
if [ -n "${DB:-}" ]; then
    cp "$DB" "$work/a.db"
else
    farm=$(pwd)/bench/out/farm-n1000-s42
    [ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n 1000 --seed 42 --port 18080 > /dev/null
    python3 bench/farm/gen_farm.py "$farm" --lists-only --port 18080 > /dev/null
    bench/farm/serve.sh start "$farm" 18080 > /dev/null
    .build/release/aggregatord --once --database "$work/a.db" --seed-opml "$farm/farm.opml" --log-level error > /dev/null
    bench/farm/serve.sh stop "$farm" > /dev/null
fi
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE feeds SET next_check_at = 4102444800'); c.commit()" "$work/a.db"

start_daemon() {
    .build/release/aggregatord --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" --retention-days 0 \
        --http-listen "127.0.0.1:$ours" --log-level warning 2>> "$work/daemon.log" &
    daemon=$!
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$ours/healthcheck" > /dev/null && return; sleep 0.1; done
    cat "$work/daemon.log" >&2; exit 1
}
stop_daemon() { kill "$daemon"; wait "$daemon" 2> /dev/null || true; daemon=""; }
ours=$(free_port)
start_daemon
token=$(.build/release/aggregatorctl --socket "$work/ctl.sock" token create bench 2> /dev/null)
mkdir -p "$work/www/v1"
curl -sf -H "X-Auth-Token: $token" "http://127.0.0.1:$ours$path" > "$work/www/v1/entries"
echo "response: $(wc -c < "$work/www/v1/entries") bytes"
theirs=$(free_port)
printf 'worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/nginx-error.log;\nevents { worker_connections 1024; }\n' \
    "$work" "$work" > "$work/nginx.conf"
printf 'http { access_log off; keepalive_requests 1000000;\n  server { listen 127.0.0.1:%s; root %s/www;\n' \
    "$theirs" "$work" >> "$work/nginx.conf"
printf '    location /v1/ { default_type application/json; } } }\n' >> "$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work"
printf 'wrk.headers["X-Auth-Token"] = "%s"\n' "$token" > "$work/token.lua"
rate() { wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/token.lua" "$1" | awk '/Requests\/sec/ { print $2 }'; }
: > "$work/results"
for run in $(seq "$runs"); do
    [ -n "$daemon" ] || start_daemon
    http=$(rate "http://127.0.0.1:$ours$path")
    stop_daemon
    inprocess=$(.build/release/storebench front-end "$work/a.db" "$token" "$path" "$seconds" "$connections" \
        | sed -n 's/.*"per_second": \([0-9.]*\).*/\1/p')
    static=$(rate "http://127.0.0.1:$theirs/v1/entries")
    echo "run $run: http $http/s, in-process $inprocess/s, nginx (same bytes) $static/s"
    echo "$http $inprocess $static" >> "$work/results"
done
python3 - "$work/results" << 'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
http, inprocess, static = (statistics.median(column) for column in zip(*rows))
print(f"median: http {http:.0f}/s, in-process {inprocess:.0f}/s, nginx {static:.0f}/s; "
      f"http / in-process {http / inprocess:.2f}, http / nginx {http / static:.2f}")
PY
