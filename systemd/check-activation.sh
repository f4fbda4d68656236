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
