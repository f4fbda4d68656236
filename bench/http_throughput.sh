#!/usr/bin/env bash
# Requests a second to the daemon's GET /healthcheck against nginx serving a file of the same bytes
# ("OK"), both on loopback, measured with wrk (keep-alive, CONNECTIONS connections, 2 threads),
# alternating RUNS times; prints each run and the medians' ratio.
#   RUNS=5 SECONDS_EACH=10 CONNECTIONS=32 bash bench/http_throughput.sh     (needs nginx and wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}; seconds=${SECONDS_EACH:-10}; connections=${CONNECTIONS:-32}
for tool in nginx wrk; do command -v $tool > /dev/null || { echo "$tool missing: apt-get install $tool" >&2; exit 1; }; done
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2> /dev/null || true
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
. bench/lib.sh

ours=$(free_port)
.build/release/aggregatord --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" \
    --http-listen "127.0.0.1:$ours" --log-level warning 2> "$work/daemon.log" &
pids+=("$!")

theirs=$(free_port)
mkdir -p "$work/www"
printf 'OK' > "$work/www/healthcheck"
cat > "$work/nginx.conf" << EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$theirs;
        root $work/www;
        location = /healthcheck { default_type text/plain; }
    }
}
EOF
nginx -c "$work/nginx.conf" -p "$work"

for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$ours/healthcheck" > /dev/null && curl -sf "http://127.0.0.1:$theirs/healthcheck" > /dev/null && break
    sleep 0.1
done
[ "$(curl -s "http://127.0.0.1:$ours/healthcheck")" = OK ] || { cat "$work/daemon.log" >&2; exit 1; }
[ "$(curl -s "http://127.0.0.1:$theirs/healthcheck")" = OK ] || { cat "$work/nginx-error.log" >&2; exit 1; }

rate() { wrk -t2 -c"$connections" -d"${seconds}s" "http://127.0.0.1:$1/healthcheck" | awk '/Requests\/sec/ { print $2 }'; }
: > "$work/results"
for run in $(seq "$runs"); do
    a=$(rate "$ours"); b=$(rate "$theirs")
    echo "run $run: aggregatord $a requests/s, nginx $b requests/s"
    echo "$a $b" >> "$work/results"
done
python3 - "$work/results" "$connections" "$seconds" << 'PY'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
ours, theirs = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
print(f"GET /healthcheck, wrk -t2 -c{sys.argv[2]} -d{sys.argv[3]}s, medians of {len(rows)} alternating runs: "
      f"aggregatord {ours:,.0f}/s, nginx {theirs:,.0f}/s, ratio {ours / theirs:.2f}")
PY
