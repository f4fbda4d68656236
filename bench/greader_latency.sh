#!/usr/bin/env bash
# Google Reader API on a large store, as NetNewsWire uses it: the release daemon over a copy of DB
# (made by `storebench queries DB 1000000`), its feeds' next checks moved to 2100 and retention off.
# All entries are marked read but the newest UNREAD (default 10,000, by date), through the CLI. Times, RUNS times each (curl on loopback, time_total): stream/items/ids of the
# unread (n=1000), stream/items/contents for 150 ids (POST), unread-count; then a whole first sync
# (bench/greader_sync.py: login, tags, subscriptions, unread-count, every unread id in pages of
# 1,000, contents in POST batches of 150), SYNCS times.
#   DB=/tmp/m1.db RUNS=20 SYNCS=5 bash bench/greader_latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
db=${DB:?set DB to a store made by storebench queries}; runs=${RUNS:-20}; syncs=${SYNCS:-5}; unread=${UNREAD:-10000}
work=$(mktemp -d)
daemon=""
trap '[ -z "$daemon" ] || kill $daemon 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"' EXIT
cp "$db" "$work/a.db"
python3 - "$work/a.db" << 'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE feeds SET next_check_at = 4102444800")
c.commit()
PY
# The date from which the newest UNREAD entries sort, to leave them unread (marks are per account:
# they are made through the CLI below, which keeps the counters).
since=$(python3 - "$work/a.db" "$unread" << 'PY'
import datetime, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
row = c.execute("SELECT sort_at FROM entry_state WHERE removed = 0 ORDER BY sort_at DESC LIMIT 1 OFFSET ?",
                (int(sys.argv[2]) - 1,)).fetchone()
print(datetime.datetime.fromtimestamp(row[0] if row else 0, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
PY
)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/release/aggregatord --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" --retention-days 0 \
    --http-listen "127.0.0.1:$port" --log-level warning 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthcheck" > /dev/null && break; sleep 0.1; done
printf 'bench password\n' | .build/release/aggregatorctl --socket "$work/ctl.sock" user set bench > /dev/null
.build/release/aggregatorctl --socket "$work/ctl.sock" read --all > /dev/null
.build/release/aggregatorctl --socket "$work/ctl.sock" unread --all --since "$since" > /dev/null
echo "store: $(.build/release/aggregatorctl --socket "$work/ctl.sock" status | grep -E 'Entries' | tr -s ' ')"
base="http://127.0.0.1:$port"
auth=$(curl -s -d Email=bench -d "Passwd=bench password" "$base/accounts/ClientLogin" | sed -n 's/^Auth=//p')
ids=$(curl -s -H "Authorization: GoogleLogin auth=$auth" \
    "$base/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read&n=150" \
    | python3 -c 'import json, sys; print("&".join("i=" + r["id"] for r in json.load(sys.stdin)["itemRefs"]))')

measure() {  # NAME CURL-ARGUMENTS...
    local name=$1; shift
    curl -s -o /dev/null -H "Authorization: GoogleLogin auth=$auth" "$@"
    for _ in $(seq "$runs"); do
        curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: GoogleLogin auth=$auth" "$@"
    done | python3 -c '
import statistics, sys
values = sorted(float(line) * 1000 for line in sys.stdin)
print(f"{sys.argv[1]:<44} min {values[0]:7.2f} ms  median {statistics.median(values):7.2f} ms  max {values[-1]:7.2f} ms")
' "$name"
}
measure "stream/items/ids reading-list xt=read n=1000" \
    "$base/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read&n=1000"
measure "stream/items/contents, 150 ids (POST)" -d "$ids" "$base/reader/api/0/stream/items/contents"
measure "unread-count" "$base/reader/api/0/unread-count?output=json"
for run in $(seq "$syncs"); do
    .build/test-venv/bin/python bench/greader_sync.py "$base" bench "bench password"
done
