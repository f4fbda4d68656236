#!/usr/bin/env bash
# aggregatorctl's wall time through the daemon, process start included, on a large database:
#   bash bench/cli_latency.sh DB [RUNS]      (DB: e.g. the 1,000,000 entries of `storebench queries`)
#   BIN=/other/build/release bash bench/cli_latency.sh DB      (another build's aggregatord and aggregatorctl)
# DB may be a PostgreSQL URI (served itself, its feeds' next checks moved the same way).
# The daemon serves a copy of DB whose feeds are all due in 2100 and keeps every entry, so neither a
# refresh nor a retention run (the synthetic entries are old) competes with the commands; each
# command runs RUNS times (default 20) after one warm-up, and the median is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
database=${1:?usage: bash bench/cli_latency.sh DB [RUNS]}
runs=${2:-20}
bin=${BIN:-.build/release}
work=$(mktemp -d)
daemon=""
trap '[ -z "$daemon" ] || kill "$daemon" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"' EXIT
if [[ $database == postgres://* || $database == postgresql://* ]]; then
    served=$database  # a PostgreSQL database is served itself, not a copy
    psql -qX "$database" -c 'UPDATE feeds SET next_check_at = 4102444800 WHERE next_check_at IS DISTINCT FROM 4102444800'
else
    served=$work/copy.db
    cp "$database" "$served"
    python3 -c "import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute('UPDATE feeds SET next_check_at = 4102444800'); db.commit()" "$served"
fi
"$bin/aggregatord" --database "$served" --socket "$work/ctl.sock" --seed-opml "" --retention-days 0 \
    --log-level error 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do [ -S "$work/ctl.sock" ] && break; sleep 0.1; done
[ -S "$work/ctl.sock" ] || { echo "the daemon did not listen:" >&2; cat "$work/daemon.log" >&2; exit 1; }
python3 - "$runs" "$work/ctl.sock" "$bin" <<'PY'
import statistics, subprocess, sys, time
runs, socket, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctl = [bin + "/aggregatorctl", "--socket", socket]
commands = [
    ["--version"],
    ["status"],
    ["--json", "articles", "--limit", "50"],
    ["--json", "articles", "--category", "Science", "--unread", "--limit", "50"],
    ["--json", "search", "wagu"],
]
print(f"{runs} runs each, after one warm-up; wall time including process start\n")
print("| command | median ms | min–max ms |\n|---|---|---|")
for arguments in commands:
    subprocess.run(ctl + arguments, check=True, stdout=subprocess.DEVNULL)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(ctl + arguments, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    print(f"| `aggregatorctl {' '.join(arguments)}` | {statistics.median(times):.1f} | "
          f"{min(times):.1f}–{max(times):.1f} |")
PY
