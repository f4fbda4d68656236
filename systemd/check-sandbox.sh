#!/usr/bin/env bash
# `make test` step: the daemon completes a full refresh round of a local farm under the system call
# filter and MemoryDenyWriteExecute=yes of systemd/aggregatord.service.in. systemd is not PID 1 here
# (no systemd-run), so systemd/sandbox-exec.c loads the same seccomp filters systemd 252 would: the
# unit's SystemCallFilter= lines expanded by `systemd-analyze syscall-filter`, EPERM for the rest.
# Traced with strace, such a round meets EPERM only where it does no harm: Dispatch's workers
# setting their nice value (@resources), and SQLite's fchown of new files when run as root (@chown).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze > /dev/null || [ ! -e /usr/include/seccomp.h ]; then
    echo "check-sandbox: systemd-analyze or libseccomp-dev not found, skipped"
    exit 0
fi
work=$(mktemp -d)
server=""
trap '[ -z "$server" ] || kill "$server" 2> /dev/null; rm -rf "$work"' EXIT

expand() {  # expand NAME...: system call names, with @groups expanded recursively
    local item
    for item in "$@"; do
        if [[ $item == @* ]]; then
            # shellcheck disable=SC2046  # one group member per word
            expand $(systemd-analyze syscall-filter "$item" | tail -n +2 | sed -e 's/^ *//' -e '/^#/d')
        else
            echo "$item"
        fi
    done
}
# The unit's filter: the first line allows, each `~` line takes its groups away again.
allowed=() denied=()
while read -r filter; do
    if [[ $filter == ~* ]]; then denied+=(${filter#\~}); else allowed+=($filter); fi
done < <(sed -n 's/^SystemCallFilter=//p' systemd/aggregatord.service.in)
grep -qx 'MemoryDenyWriteExecute=yes' systemd/aggregatord.service.in
grep -qx 'SystemCallErrorNumber=EPERM' systemd/aggregatord.service.in
expand "${denied[@]}" | sort -u > "$work/denied"
expand "${allowed[@]}" | sort -u | comm -23 - "$work/denied" > "$work/allowed"

${CC:-cc} -O2 -Wall -Werror -o "$work/sandbox-exec" systemd/sandbox-exec.c -lseccomp

# The farm: the parser's real-world fixtures, and 200 generated RSS feeds of 20 items each.
mkdir -p "$work/farm"
# The fixtures themselves, not their subdirectories (the extractor's article pages).
find Tests/FeedParserTests/Fixtures -maxdepth 1 -type f -exec cp -t "$work/farm/" {} +
python3 - "$work/farm" <<'PY'
import sys
for feed in range(200):
    items = "".join(
        f"<item><title>Item {item} of feed {feed}</title><link>http://example.org/{feed}/{item}</link>"
        f"<description>&lt;p&gt;Text of item {item}, feed {feed}.&lt;/p&gt;</description>"
        f"<pubDate>Mon, 0{item % 9 + 1} Jun 2026 12:00:00 GMT</pubDate></item>" for item in range(20))
    with open(f"{sys.argv[1]}/generated-{feed:03}.rss", "w") as out:
        out.write(f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {feed}</title>{items}</channel></rss>')
PY
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/farm" > "$work/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 50); do
    port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "check-sandbox: the farm's HTTP server did not start" >&2; exit 1; }
{
    echo '<?xml version="1.0"?><opml version="2.0"><head><title>sandbox farm</title></head><body>'
    for file in "$work/farm"/*; do
        echo "<outline type=\"rss\" text=\"${file##*/}\" xmlUrl=\"http://127.0.0.1:$port/${file##*/}\"/>"
    done
    echo '</body></opml>'
} > "$work/farm.opml"
feeds=$(find "$work/farm" -type f | wc -l)

if ! summary=$(timeout 120 "$work/sandbox-exec" "$work/allowed" .build/release/aggregatord --once \
        --database "$work/sandboxed.db" --seed-opml "$work/farm.opml" --log-level warning 2> "$work/daemon.log"); then
    echo "check-sandbox: the round failed under the sandbox's filters:" >&2
    cat "$work/daemon.log" >&2
    exit 1
fi
grep -q "ok=$feeds not_modified=0 failed=0 " <<< "$summary" || { echo "check-sandbox: not every feed refreshed: $summary" >&2; exit 1; }
echo "check-sandbox: $(wc -l < "$work/allowed") system calls allowed, MemoryDenyWriteExecute on: $summary"
