#!/usr/bin/env bash
# What an idle daemon costs: 1,000 feeds, none due, for SECONDS (default 60), with WATCHERS
# `aggregatorctl watch` clients connected (default 0). Prints the daemon's CPU time (user + system,
# from /proc/PID/stat) and its threads' context switches over the window: a daemon that polls shows
# both growing with time.
#   bash bench/idle_cpu.sh [SECONDS] [WATCHERS] [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
watchers=${2:-0}
bin=${3:-.build/release}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# 1,000 feeds on a loopback port nothing listens on: the first round fails each at once, and the
# backoff puts every next check 15 minutes or more away.
python3 - "$work/feeds.opml" << 'EOF'
import sys
outlines = "".join(f'<outline type="rss" text="f{i}" xmlUrl="http://127.0.0.1:9/feed/{i}.xml"/>' for i in range(1000))
open(sys.argv[1], "w").write(f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>')
EOF
socket="$work/daemon.sock"
"$bin/aggregatord" --database "$work/idle.db" --socket "$socket" --seed-opml "$work/feeds.opml" \
    --log-level warning 2> "$work/daemon.log" &
daemon=$!
pids+=("$daemon")
round_done() {
    "$bin/aggregatorctl" --socket "$socket" status --json 2> /dev/null \
        | python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["last_round"] is None)' 2> /dev/null
}
for _ in $(seq 600); do round_done && break; sleep 0.1; done
round_done || { echo "the first round did not finish; daemon log:" >&2; cat "$work/daemon.log" >&2; exit 1; }
for _ in $(seq "$watchers"); do
    "$bin/aggregatorctl" --socket "$socket" watch > /dev/null 2>&1 &
    pids+=("$!")
done
sleep 2  # the watchers connected, the round's aftermath (checkpoint, retention) done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$daemon/stat"; }
# Context switches per thread (TID NAME SWITCHES), to see which thread wakes.
switches() {
    for task in /proc/"$daemon"/task/*; do
        echo "${task##*/} $(tr ' ' '_' < "$task/comm") $(awk '/ctxt_switches/ { sum += $2 } END { print sum }' "$task/status")"
    done 2> /dev/null | sort
}
ticks_before=$(cpu_ticks)
switches > "$work/switches.before"
sleep "$seconds"
ticks_after=$(cpu_ticks)
switches > "$work/switches.after"
hertz=$(getconf CLK_TCK)
awk -v t=$((ticks_after - ticks_before)) -v hz="$hertz" -v s="$seconds" -v w="$watchers" \
    'BEGIN { printf "idle %d s, 1000 feeds none due, %d watch clients: CPU %.2f s\n", s, w, t / hz }'
# Threads alive over the whole window, with how often each was switched in.
join "$work/switches.before" "$work/switches.after" 2> /dev/null \
    | awk '{ printf "  thread %s %s: %d context switches\n", $1, $2, $5 - $3 }'
