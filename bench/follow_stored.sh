#!/usr/bin/env bash
# Following stored feeds (issue 47, "fetch once"): the N-feed farm fetched once by a cold `--once`
# round, then a daemon on that store where ACCOUNTS regular accounts, one client each at once, follow
# PER_ACCOUNT of its feeds through `POST /v1/feeds` (as apps do), then one more account imports an
# OPML file of 50 of them. Prints, per build: follows a second, their latency, the import's time and
# the requests nginx saw meanwhile (from its access log).
#   N=1000 ACCOUNTS=50 PER_ACCOUNT=40 bash bench/follow_stored.sh BIN_DIR [BIN_DIR…]   (needs nginx: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bash bench/follow_stored.sh BIN_DIR [BIN_DIR…]" >&2; exit 2; }
n=${N:-1000}; port=${PORT:-18084}; accounts=${ACCOUNTS:-50}; per_account=${PER_ACCOUNT:-40}
source bench/serve_farm.sh
ACCESS_LOG=1 serve_farm "$n" "$port"
log=$farm/.nginx/access.log
for bin in "$@"; do
    db=$work/$(basename "$(dirname "$bin")")-$RANDOM.db
    "$bin/aggregatord" --once --database "$db" --seed-opml "$farm/farm.opml" --log-level error --private-networks all > /dev/null
    http=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$bin/aggregatord" --database "$db" --socket "$work/ctl.sock" --seed-opml "" --http-listen "127.0.0.1:$http" \
        --log-level warning --private-networks all 2> "$work/daemon.log" &
    daemon=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$http/healthcheck" > /dev/null && break; sleep 0.1; done
    tokens=$work/tokens
    : > "$tokens"
    for index in $(seq 0 "$accounts"); do
        printf 'bench password\n' | "$bin/aggregatorctl" --socket "$work/ctl.sock" user add "user$index" > /dev/null
        "$bin/aggregatorctl" --socket "$work/ctl.sock" --user "user$index" token create >> "$tokens" 2> /dev/null
    done
    before=$(wc -l < "$log")
    python3 - "http://127.0.0.1:$http" "$tokens" "$farm/urls" "$per_account" "$bin" <<'PY'
import json, random, statistics, sys, threading, time, urllib.request
base, tokens, urls, per_account, bin_dir = sys.argv[1], open(sys.argv[2]).read().split(), sys.argv[3], int(sys.argv[4]), sys.argv[5]
urls = [line.split()[0] for line in open(urls) if line.strip() and not line.startswith("#")]
random.seed(47)
def post(token, path, body, content_type):
    request = urllib.request.Request(base + path, data=body, method="POST",
                                     headers={"X-Auth-Token": token, "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=300) as answer:
        return answer.status
latencies, failures = [], []
def follow(token, picked):
    for url in picked:
        start = time.perf_counter()
        try:
            status = post(token, "/v1/feeds", json.dumps({"feed_url": url}).encode(), "application/json")
        except Exception as error:
            failures.append(str(error)); continue
        latencies.append(time.perf_counter() - start)
        if status != 201: failures.append(status)
threads = [threading.Thread(target=follow, args=(token, random.sample(urls, per_account))) for token in tokens[1:]]
start = time.perf_counter()
for thread in threads: thread.start()
for thread in threads: thread.join()
wall = time.perf_counter() - start
latencies.sort()
outlines = "".join(f'<outline type="rss" xmlUrl="{url}"/>' for url in random.sample(urls, 50))
start = time.perf_counter()
status = post(tokens[0], "/v1/import", f'<opml version="2.0"><body>{outlines}</body></opml>'.encode(), "application/xml")
imported = time.perf_counter() - start
print(f"| {bin_dir} | {len(latencies)} in {wall:.1f} s: **{len(latencies) / wall:.1f} a second** | "
      f"{statistics.median(latencies) * 1000:.0f} / {latencies[int(len(latencies) * 0.99)] * 1000:.0f} ms | "
      f"{len(failures)} | {imported * 1000:.0f} ms ({status}) |", end=" ")
PY
    echo "$(( $(wc -l < "$log") - before )) |"
    kill "$daemon"; wait "$daemon" 2> /dev/null || true
done
