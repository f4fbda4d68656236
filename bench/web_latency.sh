#!/usr/bin/env bash
# The web page on a large store: the release daemon over a copy of DB (made by `storebench queries DB
# 1000000`: 1,000,000 entries, 5,000 feeds), its feeds' next checks moved to 2100 so that no refresh
# round runs meanwhile, retention off. Logs in through the login form (curl's cookie jar), then times
# each page RUNS times with curl on loopback (time_total: server time plus loopback transfer), gzip
# accepted as browsers do, and prints min / median / max and the bytes transferred. Then the first
# render of the unread page in headless Chromium (bench/web_render.py, in the test venv).
#   DB=/tmp/m1.db RUNS=20 bash bench/web_latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
db=${DB:?set DB to a store made by storebench queries}; runs=${RUNS:-20}
work=$(mktemp -d)
trap 'kill $daemon 2> /dev/null || true; wait 2> /dev/null || true; rm -rf "$work"' EXIT
cp "$db" "$work/a.db"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE feeds SET next_check_at = 4102444800'); c.commit()" "$work/a.db"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/release/aggregatord --database "$work/a.db" --socket "$work/ctl.sock" --seed-opml "" \
    --http-listen "127.0.0.1:$port" --log-level warning --retention-days 0 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthcheck" > /dev/null && break; sleep 0.1; done
printf 'bench password\n' | .build/release/aggregatorctl --socket "$work/ctl.sock" user set bench > /dev/null
base="http://127.0.0.1:$port"
jar="$work/cookies"
token=$(curl -s -c "$jar" "$base/login" | grep -o 'name="login_token" value="[0-9a-f]*"' | grep -o '[0-9a-f]\{64\}')
curl -s -b "$jar" -c "$jar" -o /dev/null -d "login_token=$token&name=bench&password=bench password" "$base/login"
echo "store: $(.build/release/aggregatorctl --socket "$work/ctl.sock" status | grep -E 'Entries|Feeds' | tr -s ' ' | tr '\n' ';')"
unread=$(curl -s -b "$jar" "$base/unread")
cursor=$(printf '%s' "$unread" | grep -o 'cursor=[^"]*' | head -1 | sed 's/&amp;/\&/g')
entry=$(printf '%s' "$unread" | grep -o 'href="/entry/[0-9]*"' | head -1 | grep -o '[0-9]*')
category=$(printf '%s' "$unread" | grep -o 'href="/category/[0-9]*"' | head -1 | grep -o '[0-9]*')

measure() {  # NAME PATH
    local times=() size
    size=$(curl -s --compressed -b "$jar" -o /dev/null -w '%{size_download}' "$base$2")  # warm, and its size
    for _ in $(seq "$runs"); do
        times+=("$(curl -s --compressed -b "$jar" -o /dev/null -w '%{time_total}' "$base$2")")
    done
    printf '%s\n' "${times[@]}" | python3 -c '
import statistics, sys
values = sorted(float(line) * 1000 for line in sys.stdin)
print(f"{sys.argv[1]:<34} min {values[0]:7.2f} ms  median {statistics.median(values):7.2f} ms  max {values[-1]:7.2f} ms"
      f"  {int(sys.argv[2]) / 1024:6.1f} KiB gzip")
' "$1" "$size"
}
measure "/unread (first page of 50)" "/unread"
measure "/unread (second page, by cursor)" "/unread?$cursor"
measure "/category/$category" "/category/$category"
measure "/entry/$entry" "/entry/$entry"
measure "/history" "/history"
measure "/search?q=karusomi (a rare word)" "/search?q=karusomi"
measure "/search?q=kalo (a common word)" "/search?q=kalo"
measure "/feeds (5,000 feeds)" "/feeds"
.build/test-venv/bin/python bench/web_render.py "$base" bench "bench password" "${RENDERS:-10}"
