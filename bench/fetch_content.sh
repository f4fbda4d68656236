#!/usr/bin/env bash
# Issue 32's bar: fetch-content of one entry from a local server in under 100 ms end to end. A local
# server (python3 -m http.server) serves a teaser feed whose entries link to the article corpus's
# pages (Tests/FeedParserTests/Fixtures/articles, each copied ROUNDS times under its own name, so
# that every request is a page never fetched before); the release daemon subscribes, and each
# entry's first `GET /v1/entries/{id}/fetch-content` (fetch, extract, keep, answer) is timed with
# curl. Prints min / median / max in ms.
#   [ROUNDS=3] [BIN=DIR] bash bench/fetch_content.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.build/release}; rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'kill $daemon $server 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"' EXIT
. bench/lib.sh
site=$(free_port); port=$(free_port)
mkdir "$work/site"
items=""
for round in $(seq "$rounds"); do
    for page in Tests/FeedParserTests/Fixtures/articles/*.html; do
        name="$(basename "$page" .html)-$round.html"
        cp "$page" "$work/site/$name"
        items+="<item><title>${name}</title><link>http://127.0.0.1:$site/$name</link><description>Teaser</description></item>"
    done
done
printf '<?xml version="1.0"?><rss version="2.0"><channel><title>Pages</title>%s</channel></rss>' "$items" > "$work/site/feed.xml"
(cd "$work/site" && exec python3 -m http.server "$site" --bind 127.0.0.1 > /dev/null 2>&1) &
server=$!
"$bin/aggregatord" --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" --http-listen "127.0.0.1:$port" \
    --private-networks all --feed-icons false --log-level warning 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthcheck" > /dev/null && curl -sf "http://127.0.0.1:$site/feed.xml" > /dev/null && break; sleep 0.1; done
ctl() { "$bin/aggregatorctl" --socket "$work/ctl.sock" "$@"; }
printf 'bench password\n' | ctl user set bench > /dev/null
token=$(ctl token create "bench-$$" 2> /dev/null)
ctl add "http://127.0.0.1:$site/feed.xml" > /dev/null
ctl refresh --wait > /dev/null
ids=$(curl -s -H "X-Auth-Token: $token" "http://127.0.0.1:$port/v1/entries/ids?limit=1000" \
    | python3 -c 'import json, sys; print(" ".join(map(str, json.load(sys.stdin)["entry_ids"])))')
for id in $ids; do
    curl -s -o "$work/answer" -w '%{time_total} %{http_code}\n' -H "X-Auth-Token: $token" \
        "http://127.0.0.1:$port/v1/entries/$id/fetch-content"
done | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin]
times = sorted(float(t) * 1000 for t, code in rows if code == "200")
failed = sum(1 for _, code in rows if code != "200")
print(f"fetch-content, first time for each of {len(rows)} entries: min {times[0]:.2f} ms  median {statistics.median(times):.2f} ms"
      f"  max {times[-1]:.2f} ms  ({failed} not 200)")
'
