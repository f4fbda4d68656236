#!/usr/bin/env bash
# `make check-deb`: the package installs, runs, upgrades and purges on a clean Debian 12 root.
# Usage: packaging/deb/check-deb.sh VERSION (the package `make deb` built in .build/deb).
# Builds the same tree again as VERSION~check (an earlier version), lints the package (no errors),
# makes a minimal Debian 12 root (and systemd) with mmdebstrap from Debian's own archive, and in it
# (chroot, as root on this machine): installs VERSION~check with apt (which brings the Depends),
# checks `--version`, `ldd` (no Swift library, nothing missing), the user, the conffile, the units
# (`systemd-analyze verify`, `systemctl enable`; no systemd runs in a chroot to start them), runs the
# daemon as its unit would and has it fetch a feed from a local server, upgrades to VERSION (data
# and a changed configuration kept), removes (data kept) and purges (data and user gone).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:?usage: check-deb.sh VERSION}
earlier="$version~check"
out=.build/deb
arch=$(dpkg --print-architecture)
deb="$out/aggregatord_${version}_$arch.deb"
earlier_deb="$out/aggregatord_${earlier}_$arch.deb"
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
security=${DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
[ -f "$deb" ] || { echo "check-deb: $deb missing: run make deb first" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
    echo "check-deb: needs root (mmdebstrap --mode=root, chroot), skipped"
    exit 0
fi

started=$(date +%s)
step() { echo "check-deb: [$(($(date +%s) - started)) s] $*"; }
fail() { echo "check-deb: FAILED: $*" >&2; exit 1; }

DEB_COMPRESSION="-Zgzip -z1" bash packaging/deb/build-deb.sh "$earlier" "$out" > /dev/null
step "built $earlier_deb"
lintian --fail-on error "$deb" || fail "lintian found errors"
step "lintian: no errors"

root=$(mktemp -d "$PWD/.build/deb/root.XXXXXX")
# Nothing is mounted in this namespace (proc is mounted in a private one below), so removing the
# root removes only its files.
trap 'rm -rf "$root"' EXIT
trap 'exit 1' INT TERM

# minbase and systemd, as on a server: `systemctl enable` and `systemd-analyze verify` work offline.
mmdebstrap --quiet --variant=minbase --include=systemd --mode=root --skip=cleanup/apt/lists bookworm "$root" \
    "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
step "made a Debian 12 root with mmdebstrap (minbase and systemd): $(du -sm "$root" | cut -f1) MB"
cp "$deb" "$earlier_deb" "$root/tmp/"

# The rest in a mount and pid namespace of its own, with /proc mounted in the root (Swift programs
# read their arguments from /proc/self/cmdline): whatever it starts ends with it, and nothing stays
# mounted on this machine.
unshare --mount --pid --fork --mount-proc="$root/proc" \
    bash packaging/deb/check-deb-root.sh "$root" "$version" "$earlier" "$started"
