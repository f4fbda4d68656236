#!/usr/bin/env bash
# How long the daemon takes to serve again after its database restarts, and after a failover
# (docs/RELIABILITY.md, "The database restarting" and "Failover"), RUNS times each, as min / median /
# max. A primary and its streaming standby (Tests/postgres-cluster.sh: Unix sockets, in a temporary
# directory), the release daemon on a multi-host URI naming both (target_session_attrs=read-write),
# an account with an API token and a feed of 20 entries. Each run times two moments from the fault:
#   healthy    /healthcheck answers 200 again (probed every 50 ms)
#   writes     a Miniflux write (marking an entry read and unread) succeeds (and how many tries
#              failed before, once /healthcheck said 200)
#   restart    pg_ctl restart (fast shutdown, start), timed from the server accepting connections again
#   failover   the primary killed (pg_ctl -m immediate) and the standby promoted, timed from the
#              promotion; a new standby is then made from the new primary for the next run
#   RUNS=5 bash bench/db_faults.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
work=$(mktemp -d)
chmod 755 "$work"
daemon=""; feeds=""
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    [ -z "$feeds" ] || kill "$feeds" 2> /dev/null || true
    for dir in "$work"/pg-*; do [ -d "$dir" ] && Tests/postgres-cluster.sh stop "$dir" > /dev/null 2>&1 || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }
. bench/lib.sh

# The clusters take turns: pg-1 primary and pg-2 standby; after a failover pg-2 is primary and a new
# standby is made in pg-1's place, and so on.
primary="$work/pg-1"; standby="$work/pg-2"
base=$(Tests/postgres-cluster.sh start "$primary")
psql -qX "$base" -c "CREATE DATABASE bench" > /dev/null
Tests/postgres-cluster.sh standby "$standby" "$primary" > /dev/null
database="postgresql:///bench?host=$work/pg-1,$work/pg-2&user=postgres&target_session_attrs=read-write"

# A feed of 20 entries, served from a directory by Python's own server.
serve_small_feed "$work/www"
feeds=$feed_pid
http_port=$(free_port)
ctl=(.build/release/aggregatorctl --socket "$work/ctl.sock")
.build/release/aggregatord --database "$database" --socket "$work/ctl.sock" --seed-opml "" --private-networks all \
    --http-listen "127.0.0.1:$http_port" --log-level warning 2> "$work/daemon.log" &
daemon=$!
until "${ctl[@]}" status > /dev/null 2>&1; do sleep 0.2; done
printf 'bench password\n' | "${ctl[@]}" user set bench > /dev/null
token=$("${ctl[@]}" --user bench token create faults 2> /dev/null)
"${ctl[@]}" --user bench add "http://127.0.0.1:$feed_port/feed.xml" > /dev/null
entry=""
until [ -n "$entry" ]; do
    entry=$(curl -s -H "X-Auth-Token: $token" "http://127.0.0.1:$http_port/v1/entries?limit=1" \
        | python3 -c 'import json, sys; e = json.load(sys.stdin)["entries"]; print(e[0]["id"] if e else "")')
    sleep 0.2
done

mark() { curl -s -o /dev/null -w '%{http_code}' -X PUT -H "X-Auth-Token: $token" \
    -d "{\"entry_ids\": [$entry], \"status\": \"$1\"}" "http://127.0.0.1:$http_port/v1/entries"; }
# Seconds from $1 until /healthcheck is 200, then until a write succeeds: "HEALTHY WRITES".
recovery() {
    local start=$1 healthy
    until [ "$(curl -s -o /dev/null -w '%{http_code}' -m 2 "http://127.0.0.1:$http_port/healthcheck")" = 200 ]; do sleep 0.05; done
    healthy=$(since "$start")
    local failed=0
    until [ "$(mark read)" = 204 ] && [ "$(mark unread)" = 204 ]; do failed=$((failed + 1)); sleep 0.05; done
    echo "$healthy $(since "$start") $failed"
}

start=$(now); mark read > /dev/null; mark unread > /dev/null
echo "the two writes with nothing wrong: $(since "$start") s"
: > "$work/restart"; : > "$work/failover"
for run in $(seq "$runs"); do
    Tests/postgres-cluster.sh halt "$primary"
    Tests/postgres-cluster.sh resume "$primary"  # returns once the server accepts connections
    recovery "$(now)" >> "$work/restart"

    Tests/postgres-cluster.sh kill "$primary"
    Tests/postgres-cluster.sh promote "$standby"
    recovery "$(now)" >> "$work/failover"
    # The old primary's place: a new standby of the new primary.
    Tests/postgres-cluster.sh stop "$primary"
    Tests/postgres-cluster.sh standby "$primary" "$standby" > /dev/null
    swap=$primary; primary=$standby; standby=$swap
    echo "run $run: restart $(tail -1 "$work/restart"), failover $(tail -1 "$work/failover") (healthy, writes in seconds; writes failed first)"
done
summary() {
    python3 - "$1" "$2" << 'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[2]) if line.strip()]
for index, what in enumerate(["/healthcheck 200", "a write succeeds"]):
    values = sorted(row[index] for row in rows)
    print(f"{sys.argv[1]}: {what}: min {values[0]:.2f} s, median {statistics.median(values):.2f} s, max {values[-1]:.2f} s")
PY
}
summary "restart" "$work/restart"
summary "failover" "$work/failover"
if grep -q 'level=error' "$work/daemon.log"; then echo "daemon errors logged: $(grep -c 'level=error' "$work/daemon.log")"; fi
