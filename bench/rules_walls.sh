#!/usr/bin/env bash
# Issue 46's rules bar (docs/SECURITY.md, "Filter rules"): while a regular account saves the worst
# rules the limits allow (100 lines of 500 characters that backtrack until the budget runs out) over
# ENTRIES entries it follows, another account marks entries read and unread one at a time; prints
# the save's own time and the marks' latencies (p50, p99, max) for SECONDS after it, and how many
# marks did not answer within 30 s.
#   ENTRIES=50000 SECONDS_AFTER=30 bash bench/rules_walls.sh BIN_DIR
# The store is made by `storebench queries` (5,000 feeds; its text is ~120 words an entry) and
# copied for the run; both accounts follow every feed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "${1:?usage: bash bench/rules_walls.sh BIN_DIR}" && pwd)
entries=${ENTRIES:-50000}; after=${SECONDS_AFTER:-30}
store=${STORE:-/tmp/rules-walls-$entries.db}
work=$(mktemp -d)
# A build that judges inside its write transaction does not stop on SIGTERM until the judging ends.
stop() {
    kill "$daemon" 2> /dev/null || return 0
    for _ in $(seq 50); do kill -0 "$daemon" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$daemon" 2> /dev/null || true
    wait 2> /dev/null || true
}
trap 'stop; rm -rf "$work"' EXIT
[ -f "$store" ] || "$bin/storebench" queries "$store" "$entries" > /dev/null
cp "$store" "$work/a.db"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Builds from before the quotas have no max-subscriptions (and need none).
quota=(); "$bin/aggregatord" --help 2>&1 | grep -q max-subscriptions && quota=(--max-subscriptions 0)
"$bin/aggregatord" --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" --http-listen "127.0.0.1:$port" \
    --log-level info --retention-days 0 --private-networks all "${quota[@]}" 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthcheck" > /dev/null && break; sleep 0.1; done
ctl() { "$bin/aggregatorctl" --socket "$work/ctl.sock" "$@"; }
printf 'alice password\n' | ctl user set alice > /dev/null
printf 'bob password\n' | ctl user add bob > /dev/null
ctl export > "$work/feeds.opml"
ctl --user bob import "$work/feeds.opml" > /dev/null
alice=$(ctl token create alice-bench); bob=$(ctl --user bob token create bob-bench)
python3 - "http://127.0.0.1:$port" "$alice" "$bob" "$after" <<'PY'
import json, statistics, sys, threading, time, urllib.request
base, alice, bob, after = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])

def call(method, path, token, body=None, timeout=30):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"X-Auth-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return answer.read()

ids = json.loads(call("GET", "/v1/entries?limit=200&order=id", alice))["entries"]
ids = [entry["id"] for entry in ids]
me = json.loads(call("GET", "/v1/me", bob))["id"]
# The worst the limits allow: 100 lines of 500 characters, each backtracking over every entry's
# content until the regex budget runs out (no run of three literals, which a byte search would rule
# out at once; no "z" then digits in the synthetic text).
def worst(n):
    head = "EntryContent=(.|.)*z[0-9]{%d}" % (n + 1)
    return head + "[a-z]*" * ((500 - len(head)) // 6)
lines = [worst(n) for n in range(100)]
assert all(len(line) <= 500 for line in lines)
marks, stop, timeouts = [], time.monotonic() + after + 2, [0]

def mark():
    n = 0
    while time.monotonic() < stop:
        started = time.monotonic()
        try:
            call("PUT", "/v1/entries", alice, {"entry_ids": [ids[n % len(ids)]], "status": "read" if n % 2 else "unread"})
            marks.append((started, (time.monotonic() - started) * 1000))
        except Exception:
            timeouts[0] += 1
        n += 1

marker = threading.Thread(target=mark)
marker.start()
time.sleep(2)
saving = time.monotonic()
try:
    call("PUT", f"/v1/users/{me}", bob, {"block_filter_entry_rules": "\n".join(lines)}, timeout=after)
    saved = f"{(time.monotonic() - saving) * 1000:.0f} ms"
except Exception as error:
    saved = f"no answer within {after:.0f} s ({error.__class__.__name__})"
marker.join()
during = sorted(ms for started, ms in marks if started >= saving)
before = sorted(ms for started, ms in marks if started < saving)
def q(values, p): return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")
print(f"saving 100 worst rule lines: {saved}")
print(f"marks before: {len(before)}, p50 {q(before, .5):.1f} ms, p99 {q(before, .99):.1f} ms")
print(f"marks after the save began ({after:.0f} s): {len(during)}, p50 {q(during, .5):.1f} ms, "
      f"p99 {q(during, .99):.1f} ms, max {q(during, 1):.1f} ms; no answer within 30 s: {timeouts[0]}")
PY
# How long the judging took (builds that log it; at most WAIT_JUDGED seconds more).
for _ in $(seq "${WAIT_JUDGED:-300}"); do grep -q "Rules judged again" "$work/daemon.log" && break; sleep 1; done
grep -E "Rules judged again" "$work/daemon.log" | tail -1 || echo "(no judging logged)"
