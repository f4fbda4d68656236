#!/usr/bin/env bash
# `make test` step: the daemon started by systemd-socket-activate (as aggregatord.socket would start
# it) answers `aggregatorctl status` on the socket it was given.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-socket-activate > /dev/null; then
    echo "check-activation: systemd-socket-activate not found, skipped"
    exit 0
fi
work=$(mktemp -d)
systemd-socket-activate -l "$work/activated.sock" .build/release/aggregatord \
    --database "$work/a.db" --seed-opml "" > "$work/log" 2>&1 &
activator=$!
trap 'kill $activator 2>/dev/null; wait $activator 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$work/activated.sock" ] && break; sleep 0.1; done
if ! output=$(timeout 20 .build/release/aggregatorctl --socket "$work/activated.sock" status --json); then
    echo "check-activation: no answer on the activated socket" >&2
    cat "$work/log" >&2
    exit 1
fi
grep -q '"version"' <<< "$output"
grep -q "Using the socket systemd passed" "$work/log"
echo "check-activation: the socket-activated daemon answered status"

# Both sockets, named as the two socket units name them: the daemon serves HTTP on the one named http.
kill $activator 2>/dev/null; wait $activator 2>/dev/null || true
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
systemd-socket-activate -l "$work/both.sock" -l "127.0.0.1:$port" --fdname=control:http .build/release/aggregatord \
    --database "$work/b.db" --seed-opml "" --http-listen none > "$work/log2" 2>&1 &
activator=$!
for _ in $(seq 50); do [ -S "$work/both.sock" ] && break; sleep 0.1; done
if [ "$(curl -s -m 20 "http://127.0.0.1:$port/healthcheck")" != "OK" ]; then
    echo "check-activation: no answer on the activated HTTP socket" >&2
    cat "$work/log2" >&2
    exit 1
fi
timeout 20 .build/release/aggregatorctl --socket "$work/both.sock" status --json | grep -q '"version"'
grep -q "Using the HTTP socket systemd passed" "$work/log2"
echo "check-activation: the HTTP socket named http was served"
