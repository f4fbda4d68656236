#!/usr/bin/env bash
# `make check-units`: installs the units into a temporary prefix and checks them with systemd's own
# tools: `systemd-analyze verify`, and `systemd-analyze security` exposure at most 1.5.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze > /dev/null; then
    echo "check-units: systemd-analyze not found, skipped"
    exit 0
fi
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make --no-print-directory install PREFIX="$prefix" SYSCONF_DIR="$prefix/etc" > /dev/null
units="$prefix/lib/systemd/system"
systemd-analyze verify --man=no "$units/aggregatord.service" "$units/aggregatord.socket" "$units/aggregatord-http.socket"
exposure=$(systemd-analyze security --offline=true "$units/aggregatord.service" 2>/dev/null \
    | sed -n 's/.*Overall exposure level for aggregatord.service: \([0-9.]*\).*/\1/p')
echo "check-units: systemd-analyze verify passed; security exposure $exposure"
python3 -c "import sys; sys.exit(0 if float('$exposure') <= 1.5 else 1)" || { echo "exposure above 1.5" >&2; exit 1; }
