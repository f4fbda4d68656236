#!/usr/bin/env bash
# A client's whole sync through the Miniflux API: the N-feed farm (served by bench/farm/serve.sh)
# loaded into a database by `aggregatord --once`, then the daemon serving it (its feeds' next checks
# moved to 2100: no refresh runs meanwhile) and `newsboat -x reload` in miniflux mode on a fresh cache,
# RUNS times; prints each run's seconds, newsboat's unread count, the CPU seconds newsboat and the
# daemon spent, and the median.
#   N=1000 RUNS=5 bash bench/newsboat_miniflux.sh     (needs nginx and newsboat: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}; runs=${RUNS:-5}; port=${PORT:-18080}
farm=$(pwd)/${FARM:-bench/out/farm-n$n-s42}
[ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
work=$(mktemp -d)
chmod 755 "$work"
daemon=""
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    bench/farm/serve.sh stop "$farm" > /dev/null 2>&1 || true
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
bench/farm/serve.sh start "$farm" "$port" > /dev/null
.build/release/aggregatord --once --database "$work/agg.db" --seed-opml "$farm/farm.opml" --log-level error
bench/farm/serve.sh stop "$farm" > /dev/null
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE feeds SET next_check_at = 4102444800'); c.commit()" "$work/agg.db"
http=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/release/aggregatord --database "$work/agg.db" --socket "$work/ctl.sock" --seed-opml "" --retention-days 0 \
    --http-listen "127.0.0.1:$http" --log-level warning 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$http/healthcheck" > /dev/null && break; sleep 0.1; done
printf 'bench password\n' | .build/release/aggregatorctl --socket "$work/ctl.sock" user set bench > /dev/null
echo "store: $(.build/release/aggregatorctl --socket "$work/ctl.sock" status | grep -E 'Entries' | tr -s ' ')"
printf 'urls-source "miniflux"\nminiflux-url "http://127.0.0.1:%s/"\nminiflux-login "bench"\nminiflux-password "bench password"\n' \
    "$http" > "$work/nb.conf"
: > "$work/urls"
: > "$work/times"
for run in $(seq "$runs"); do
    rm -f "$work/nb.db"
    daemon_before=$(awk '{ print $14 + $15 }' "/proc/$daemon/stat")
    start=$(date +%s.%N)
    HOME=$work /usr/bin/time -f "%U %S" -o "$work/nb-cpu" newsboat -C "$work/nb.conf" -u "$work/urls" -c "$work/nb.db" \
        -x reload > /dev/null
    end=$(date +%s.%N)
    daemon_after=$(awk '{ print $14 + $15 }' "/proc/$daemon/stat")
    unread=$(HOME=$work newsboat -C "$work/nb.conf" -u "$work/urls" -c "$work/nb.db" -x print-unread 2>&1 | tail -n 1)
    seconds=$(python3 -c "print(round($end - $start, 2))")
    newsboat_cpu=$(awk '{ print $1 + $2 }' "$work/nb-cpu")
    daemon_cpu=$(python3 -c "import os; print(round(($daemon_after - $daemon_before) / os.sysconf('SC_CLK_TCK'), 2))")
    echo "run $run: $seconds s ($unread); CPU: newsboat $newsboat_cpu s, aggregatord $daemon_cpu s"
    echo "$seconds" >> "$work/times"
done
python3 -c "import statistics, sys; print('median', statistics.median(float(l) for l in open(sys.argv[1])), 's')" "$work/times"
