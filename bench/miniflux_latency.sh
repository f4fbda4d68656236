#!/usr/bin/env bash
# Miniflux API latency on a large store: the release daemon over a copy of DB (made by
# `storebench queries DB 1000000`: 1,000,000 entries, 5,000 feeds), its feeds' next checks moved to
# 2100 so that no refresh round runs meanwhile, and retention off (RETENTION_DAYS=0; its synthetic
# entries are years old: the default 90 days expires most of them). Each request is timed with curl on loopback
# (time_total: server time plus loopback transfer), RUNS times; prints min / median / max in ms.
#   DB=/tmp/m1.db RUNS=20 [BIN=DIR] bash bench/miniflux_latency.sh     (BIN: where aggregatord and aggregatorctl are)
# DB may be a PostgreSQL URI: the daemon then runs on that database itself (not a copy); its feeds'
# rows are rewritten only the first time (each rewrite left 5,000 dead rows: the feeds table grew
# 8 MB a run, and the unread page's totals scan it).
set -euo pipefail
cd "$(dirname "$0")/.."
db=${DB:?set DB to a store made by storebench queries}; runs=${RUNS:-20}; bin=${BIN:-.build/release}
work=$(mktemp -d)
trap 'kill $daemon 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"' EXIT
if [[ $db == postgres://* || $db == postgresql://* ]]; then
    database=$db
    psql -qX "$db" -c 'UPDATE feeds SET next_check_at = 4102444800 WHERE next_check_at IS DISTINCT FROM 4102444800'
else
    database=$work/a.db
    cp "$db" "$database"
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE feeds SET next_check_at = 4102444800'); c.commit()" "$database"
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/aggregatord" --database "$database" --socket "$work/ctl.sock" --seed-opml "" \
    --http-listen "127.0.0.1:$port" --log-level warning --retention-days "${RETENTION_DAYS:-0}" 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthcheck" > /dev/null && break; sleep 0.1; done
printf 'bench password\n' | "$bin/aggregatorctl" --socket "$work/ctl.sock" user set bench > /dev/null
token=$("$bin/aggregatorctl" --socket "$work/ctl.sock" token create "bench-$$" 2> /dev/null)
base="http://127.0.0.1:$port"
last=$(curl -s -H "X-Auth-Token: $token" "$base/v1/entries?order=id&direction=desc&limit=1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["entries"][0]["id"])')
echo "store: $("$bin/aggregatorctl" --socket "$work/ctl.sock" status | grep -E 'Entries|Feeds' | tr -s ' ' | tr '\n' ';')"

measure() {  # NAME PATH
    local times=()
    curl -s -o /dev/null -H "X-Auth-Token: $token" "$base$2"  # warm: the first read of cold pages
    for _ in $(seq "$runs"); do
        times+=("$(curl -s -o /dev/null -w '%{time_total}' -H "X-Auth-Token: $token" "$base$2")")
    done
    printf '%s\n' "${times[@]}" | python3 -c '
import statistics, sys
values = sorted(float(line) * 1000 for line in sys.stdin)
print(f"{sys.argv[1]:<46} min {values[0]:7.2f} ms  median {statistics.median(values):7.2f} ms  max {values[-1]:7.2f} ms")
' "$1"
}
measure "entries?status=unread&limit=100" "/v1/entries?status=unread&limit=100"
measure "entries?status=unread&limit=100&direction=desc" "/v1/entries?status=unread&limit=100&direction=desc"
measure "feeds/counters (5,000 feeds)" "/v1/feeds/counters"
measure "entries?order=id&after_entry_id=0 (first page)" "/v1/entries?order=id&limit=100&after_entry_id=0"
measure "entries?order=id&after_entry_id=last-100" "/v1/entries?order=id&limit=100&after_entry_id=$((last - 100))"
measure "entries?after_entry_id=last-100 (published_at)" "/v1/entries?limit=100&after_entry_id=$((last - 100))"
measure "entries?status=unread&limit=100&offset=500000" "/v1/entries?status=unread&limit=100&offset=500000"
# Issue 29's bars: paging by id from an early id costs what the first page costs (asc and desc), and
# offsets in the default order stay fast at the depths apps reach.
first=$(curl -s -H "X-Auth-Token: $token" "$base/v1/entries?order=id&direction=asc&limit=1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["entries"][0]["id"])')
early=$((first + 19999))
measure "order=id&direction=asc&after_entry_id=0" "/v1/entries?order=id&direction=asc&limit=100&after_entry_id=0"
measure "order=id&direction=asc&after_entry_id=20000th" "/v1/entries?order=id&direction=asc&limit=100&after_entry_id=$early"
measure "order=id&direction=desc&after_entry_id=20000th" "/v1/entries?order=id&direction=desc&limit=100&after_entry_id=$early"
measure "order=id&direction=desc&before_entry_id=20000th" "/v1/entries?order=id&direction=desc&limit=100&before_entry_id=$early"
measure "limit=100&offset=20000 (default order)" "/v1/entries?limit=100&offset=20000"
