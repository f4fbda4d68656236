#!/usr/bin/env bash
# Part of `make check-deb` (check-deb-root.sh), run by it in a network namespace of its own: the
# installed daemon started in ROOT as aggregatord.service starts it (its user, its environment, its
# ExecStart, its umask; a chroot has no systemd), driven with the installed aggregatorctl.
# Usage: check-deb-daemon.sh ROOT first|upgraded
#   first: the daemon fetches a feed from a file server on 127.0.0.1 and lists its three entries.
#   upgraded: the entries stored before the upgrade are still there.
set -euo pipefail
root=${1:?usage: check-deb-daemon.sh ROOT first|upgraded}
phase=${2:?usage: check-deb-daemon.sh ROOT first|upgraded}
ip link set lo up
work=$(mktemp -d)
server=""
daemon=""
# (check-deb-root.sh runs in a pid namespace: when it ends, any process left is killed too.)
trap '[ -z "$daemon" ] || kill "$daemon" 2> /dev/null; [ -z "$server" ] || kill "$server" 2> /dev/null; rm -rf "$work"' EXIT
ctl() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin aggregatorctl --socket /run/aggregator/aggregatord.sock "$@"; }

cat > "$work/feed.xml" <<'RSS'
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Package check</title><link>http://example.org/check/</link>
<item><title>Check item one</title><link>http://example.org/check/1</link></item>
<item><title>Check item two</title><link>http://example.org/check/2</link></item>
<item><title>Check item three</title><link>http://example.org/check/3</link></item>
</channel></rss>
RSS
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work" "$port" > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break; sleep 0.1; done
(exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null || { cat "$work/server.log" >&2; echo "no feed server" >&2; exit 1; }

# What systemd would do for the unit: RuntimeDirectory=aggregator (0750), User=, Group=, UMask=0077,
# StateDirectory=, ConfigurationDirectory=, then ExecStart= as written in the installed unit.
unit="$root/lib/systemd/system/aggregatord.service"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ "$(sed -n 's/^User=//p' "$unit")" = aggregator ] || { echo "unit: User= is not aggregator" >&2; exit 1; }
install -d -o "$(chroot "$root" id -u aggregator)" -g "$(chroot "$root" id -g aggregator)" -m 0750 "$root/run/aggregator"
chroot --userspec=aggregator:aggregator "$root" /usr/bin/env -i PATH=/usr/bin:/bin \
    STATE_DIRECTORY=/var/lib/aggregator RUNTIME_DIRECTORY=/run/aggregator CONFIGURATION_DIRECTORY=/etc/aggregator \
    /bin/sh -c "umask 0077; exec $exec_start" > "$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 200); do ctl status > /dev/null 2>&1 && break; sleep 0.1; done
status=$(ctl status) || { cat "$work/daemon.log" >&2; echo "no answer from the daemon" >&2; exit 1; }
sed 's/^/    status: /' <<< "$status"
[ "$(chroot "$root" stat -c '%U %a' /var/lib/aggregator/aggregator.db)" = "aggregator 600" ] \
    || { echo "the database is not the daemon's own, mode 0600" >&2; exit 1; }

url="http://127.0.0.1:$port/feed.xml"
if [ "$phase" = first ]; then
    ctl add "$url" --category Check
    ctl refresh --wait "$url" | sed 's/^/    /'
fi
entries=$(ctl articles --category Check)
count=$(grep -c 'Check item' <<< "$entries" || true)
[ "$count" = 3 ] || { echo "$entries" >&2; cat "$work/daemon.log" >&2; echo "expected 3 entries, found $count" >&2; exit 1; }
echo "    the feed's 3 entries are listed"

kill -TERM "$daemon"
wait "$daemon" || { cat "$work/daemon.log" >&2; echo "the daemon did not stop cleanly" >&2; exit 1; }
daemon=""
