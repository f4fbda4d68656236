#!/usr/bin/env bash
# The soak under load (issue 19): the release daemon on a copy of the 5,000-feed farm (served by
# nginx) for MINUTES (default 60), rounds back to back (min-interval 1 minute), ~10 % of the farm's feeds
# getting new items every MUTATE_EVERY seconds (gen_farm.py --mutate), retention on (each feed's newest
# 10 kept, older expire), and the HTTP APIs, the web page and the control socket under constant load
# from several clients (bench/soak_load.py). Every SAMPLE seconds (default 60) it records the
# daemon's resident memory, open descriptors, threads, WAL and database sizes (soak.csv), and plots
# them (soak.png, with matplotlib in .build/bench-venv). It fails if any request failed, if memory,
# descriptors, threads or the WAL grew without bound (the last third's peak over 1.5x the first
# third's, plus a margin; for runs over an hour, memory or descriptors in the last hour over 1.1x the
# first ten minutes'), or if the entries stored (expired ones keep their row) are not exactly the
# unique URLs the farm ever served. Results go to OUT (default bench/out/soak-load).
#   MINUTES=120 bash bench/soak_load.sh        (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${MINUTES:-60}; sample=${SAMPLE:-60}; mutate_every=${MUTATE_EVERY:-120}; port=${PORT:-18090}
feeds=${FEEDS:-5000}; out=${OUT:-bench/out/soak-load}
farm=$(pwd)/bench/out/farm-n$feeds-s42
[ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$feeds" --seed 42 --port "$port" > /dev/null
python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
venv=.build/bench-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
    matplotlib==3.11.2 requests==2.34.2; }
mkdir -p "$out"
work=$(mktemp -d)
chmod 755 "$work"
daemon=""
cleanup() {
    [ -z "$daemon" ] || kill "$daemon" 2> /dev/null || true
    bench/farm/serve.sh stop "$work/farm" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/farm"
cp -a "$farm/feeds" "$farm/manifest.json" "$farm/farm.opml" "$work/farm/"
bench/farm/serve.sh start "$work/farm" "$port" > /dev/null
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ctl=(.build/release/aggregatorctl --socket "$work/ctl.sock")
.build/release/aggregatord --database "$work/soak.db" --socket "$work/ctl.sock" --seed-opml "$work/farm/farm.opml" \
    --http-listen "127.0.0.1:$http_port" --min-interval 1m --retention-days 30 --retention-keep-per-feed 10 \
    --log-level info 2> "$work/daemon.log" &
daemon=$!
until "${ctl[@]}" status > /dev/null 2>&1; do sleep 0.5; done
printf 'soak password\n' | "${ctl[@]}" user set soak > /dev/null
# The first (cold) round must reach every feed before the first mutation: a mutation pushes each
# changed feed's oldest items out of its window, and a feed not yet read would never show them.
until grep -q 'msg="Refresh round done"' "$work/daemon.log"; do sleep 1; done
# Every URL the farm serves, now and after each mutation: what must be stored, exactly once.
urls() { python3 - "$work/farm" "$work/urls.txt" <<'PY'
import os, sys
sys.path.insert(0, "bench/farm")
import gen_farm
seen = set(open(sys.argv[2]).read().split()) if os.path.exists(sys.argv[2]) else set()
seen.update(gen_farm.farm_urls(sys.argv[1]))
open(sys.argv[2], "w").write("\n".join(sorted(seen)))
PY
}
urls
first=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["feeds"][0]["name"])' "$work/farm/manifest.json")
churn="http://127.0.0.1:$port/feeds/$first?churn"
"$venv/bin/python" bench/soak_load.py "http://127.0.0.1:$http_port" "$work/ctl.sock" soak "soak password" "$churn" \
    $((minutes * 60)) "$out/requests.json" > "$work/load.txt" 2>&1 &
load=$!
# The mutations, beside the sampling: each waits for a round over every feed first (`refresh`
# fetches feeds due or not), so the daemon has read every state the farm served. The farm's RSS
# feeds ask for an hourly check (<ttl>60</ttl>), which the daemon honours: without that round, two
# mutations of a small feed within the hour push items out before the daemon ever sees them, and
# they would be counted as lost.
mutations() {
    local mutation=1
    while :; do
        for _ in $(seq "$mutate_every"); do [ -e "$work/stop" ] && return; sleep 1; done
        "${ctl[@]}" refresh --wait > /dev/null || echo "refresh before mutation $mutation failed" >&2
        python3 bench/farm/gen_farm.py "$work/farm" --mutate "soak$mutation" > /dev/null
        urls
        echo "$mutation" > "$work/mutations"
        mutation=$((mutation + 1))
    done
}
echo 0 > "$work/mutations"
mutations &
mutator=$!
echo "seconds,rss_mb,threads,fds,wal_mb,db_mb,entries" > "$out/soak.csv"
start=$(date +%s)
while kill -0 "$load" 2> /dev/null; do
    now=$(date +%s)
    rss=$(awk '/^VmRSS/ {print $2 / 1024}' "/proc/$daemon/status")
    threads=$(awk '/^Threads/ {print $2}' "/proc/$daemon/status")
    fds=$(ls "/proc/$daemon/fd" | wc -l)
    wal=$(stat -c %s "$work/soak.db-wal" 2> /dev/null || echo 0)
    db=$(stat -c %s "$work/soak.db")
    entries=$("${ctl[@]}" --json status | python3 -c 'import json, sys; print(json.load(sys.stdin)["entries"])')
    echo "$((now - start)),$rss,$threads,$fds,$((wal / 1048576)),$((db / 1048576)),$entries" >> "$out/soak.csv"
    sleep "$sample"
done
touch "$work/stop"
wait "$mutator"
wait "$load" && load_status=0 || load_status=$?
cat "$work/load.txt"
# A last round after the last mutation: everything the farm serves is then in.
"${ctl[@]}" refresh --wait > /dev/null
stored=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM entries").fetchone()[0])' "$work/soak.db")
expected=$(wc -l < "$work/urls.txt"); expected=$((expected + 1))
if [ "$stored" -ne "$expected" ]; then  # the evidence, to find which entries
    cp "$work/urls.txt" "$out/farm-urls.txt"
    python3 -c 'import sqlite3, sys; print("\n".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT url FROM entries ORDER BY url")))' \
        "$work/soak.db" > "$out/stored-urls.txt"
fi
rounds=$(grep -c 'msg="Refresh round done"' "$work/daemon.log" || true)
failed_rounds=$(grep 'msg="Refresh round done"' "$work/daemon.log" | grep -vc ' failed=0 ' || true)
echo "rounds: $rounds ($failed_rounds with failed feeds), mutations: $(cat "$work/mutations"), entries stored: $stored, farm's unique URLs: $expected"
"$venv/bin/python" - "$out/soak.csv" "$out/soak.png" "$minutes" <<'PY' && plot_status=0 || plot_status=$?
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
minutes = [int(r["seconds"]) / 60 for r in rows]
series = [("rss_mb", "resident memory (MB)"), ("threads", "threads"), ("fds", "open descriptors"),
          ("wal_mb", "WAL (MB)"), ("db_mb", "database (MB)"), ("entries", "entries")]
figure, axes = plt.subplots(len(series), 1, figsize=(8, 11), sharex=True)
for axis, (key, label) in zip(axes, series):
    axis.plot(minutes, [float(r[key]) for r in rows], marker=".")
    axis.set_ylabel(label, fontsize=8)
    axis.grid(alpha=0.3)
    axis.set_ylim(bottom=0)
axes[-1].set_xlabel("minutes")
figure.suptitle(f"aggregatord under load, {sys.argv[3]} minutes (bench/soak_load.sh)")
figure.tight_layout()
figure.savefig(sys.argv[2], dpi=80)
# Bounded: the last third's peak within 1.5x the first third's (after the first sample) plus a margin.
verdict = 0
third = max(1, len(rows) // 3)
for key, margin in [("rss_mb", 30), ("threads", 4), ("fds", 10), ("wal_mb", 64)]:
    values = [float(r[key]) for r in rows]
    first, last = max(values[1:third + 1] or values), max(values[-third:])
    grew = last > first * 1.5 + margin
    verdict |= grew
    print(f"{key}: first third's peak {first:g}, last third's peak {last:g}: {'GREW' if grew else 'bounded'}")
# The issue's bar for runs of over an hour: resident memory and descriptors flat after warm-up, the
# last hour's peak within 1.1x the first ten minutes' (the sample before the load began left out).
if int(sys.argv[3]) > 60:
    end = int(rows[-1]["seconds"])
    for key in ["rss_mb", "fds"]:
        early = max(float(r[key]) for r in rows if 0 < int(r["seconds"]) <= 600)
        late = max(float(r[key]) for r in rows if int(r["seconds"]) > end - 3600)
        flat = late <= early * 1.1
        verdict |= not flat
        print(f"{key}: first ten minutes' peak {early:g}, last hour's peak {late:g} ({late / early:.2f}x): "
              + ("flat" if flat else "NOT FLAT (over 1.1x)"))
sys.exit(verdict)
PY
[ "$load_status" -eq 0 ] || { echo "requests failed (see $out/requests.json)"; exit 1; }
[ "$plot_status" -eq 0 ] || { echo "something grew without bound"; exit 1; }
[ "$stored" -eq "$expected" ] || { echo "entries stored ($stored) != the farm's unique URLs ($expected): lost or doubled"; exit 1; }
echo "soak passed: figures in $out (soak.csv, soak.png, requests.json)"
