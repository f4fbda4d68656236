#!/usr/bin/env bash
# What reading from a standby (`database-read`, docs/RELIABILITY.md "Reading from standbys") costs
# and whether an account sees its own writes on every daemon. A primary and its streaming standby
# (Tests/postgres-cluster.sh, Unix sockets), three release daemons on the primary: A and B with
# `database-read` naming the standby, C without; an account with a token and a feed of 20 entries.
# N times each (keep-alive connections, one client):
#   write      a Miniflux mark (PUT /v1/entries) on C, then on A: what announcing the write's position
#              adds to each write (one more statement on the primary)
#   list       GET /v1/entries?limit=20 on C (the primary answers) and on A (the standby answers)
#   yours      with the standby's replay paused: a mark on A, then at once the account's read list
#              on A and on B; an answer without the mark counts as stale (read-your-writes broken)
#   N=300 bash bench/standby_reads.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-300}
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    for dir in "$work"/pg-*; do [ -d "$dir" ] && Tests/postgres-cluster.sh stop "$dir" > /dev/null 2>&1 || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
. bench/lib.sh

base=$(Tests/postgres-cluster.sh start "$work/pg-primary")
psql -qX "$base" -c "CREATE DATABASE bench" > /dev/null
Tests/postgres-cluster.sh standby "$work/pg-standby" "$work/pg-primary" > /dev/null
primary="postgresql:///bench?host=$work/pg-primary&user=postgres"
standby="postgresql:///bench?host=$work/pg-standby&user=postgres"

serve_small_feed "$work/www"
pids+=("$feed_pid")
ports=()
for name in a b c; do
    port=$(free_port); ports+=("$port")
    extra=(); [ "$name" = c ] || extra=(--database-read "$standby")
    .build/release/aggregatord --database "$primary" "${extra[@]}" --node-name "$name" --socket "$work/$name.sock" \
        --seed-opml "" --private-networks all --feed-icons false --http-listen "127.0.0.1:$port" --log-level warning \
        2> "$work/$name.log" &
    pids+=($!)
    until .build/release/aggregatorctl --socket "$work/$name.sock" status > /dev/null 2>&1; do sleep 0.2; done
done
ctl=(.build/release/aggregatorctl --socket "$work/a.sock")
printf 'bench password\n' | "${ctl[@]}" user set bench > /dev/null
token=$("${ctl[@]}" --user bench token create standby 2> /dev/null)
"${ctl[@]}" --user bench add "http://127.0.0.1:$feed_port/feed.xml" > /dev/null

python3 - "$n" "$token" "$standby" "${ports[@]}" << 'PY'
import http.client, json, statistics, subprocess, sys, time
n, token, standby = int(sys.argv[1]), sys.argv[2], sys.argv[3]
a, b, c = (http.client.HTTPConnection("127.0.0.1", int(port)) for port in sys.argv[4:7])
headers = {"X-Auth-Token": token, "Content-Type": "application/json"}

def call(connection, method, path, body=None):
    connection.request(method, path, body=json.dumps(body) if body else None, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()

while not (ids := [e["id"] for e in json.loads(call(a, "GET", "/v1/entries?limit=20")[1])["entries"]]):
    time.sleep(0.2)
entry = ids[0]

def mark(connection, status):
    code, _ = call(connection, "PUT", "/v1/entries", {"entry_ids": [entry], "status": status})
    assert code == 204, code

def timed(what, connection, action, runs):
    times = []
    for index in range(runs):
        start = time.perf_counter()
        action(connection, index)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"{what}: median {statistics.median(times):.2f} ms, p90 {times[int(len(times) * 0.9)]:.2f} ms ({runs} runs)")

for name, connection in [("C, no standby", c), ("A, database-read", a)]:
    timed(f"write (mark) on {name}", connection, lambda conn, i: mark(conn, "read" if i % 2 == 0 else "unread"), n)
for name, connection in [("C, from the primary", c), ("A, from the standby", a)]:
    timed(f"list of 20 on {name}", connection, lambda conn, i: call(conn, "GET", "/v1/entries?limit=20"), n)

subprocess.run(["psql", "-qXAt", standby, "-c", "SELECT pg_wal_replay_pause()"], check=True, capture_output=True)
stale = {"A": 0, "B": 0}
for index in range(n):
    status = "read" if index % 2 == 0 else "unread"
    mark(a, status)
    for name, connection in [("A", a), ("B", b)]:
        total = json.loads(call(connection, "GET", "/v1/entries?status=read&limit=1")[1])["total"]
        if total != (1 if status == "read" else 0):
            stale[name] += 1
subprocess.run(["psql", "-qXAt", standby, "-c", "SELECT pg_wal_replay_resume()"], check=True, capture_output=True)
print(f"yours, replay paused: a mark on A then its list at once: stale on A {stale['A']} of {n}, on B {stale['B']} of {n}")
PY
for name in a b c; do
    if grep -q 'level=error' "$work/$name.log"; then echo "daemon $name logged errors: $(grep -c 'level=error' "$work/$name.log")"; fi
done
