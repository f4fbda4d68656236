#!/usr/bin/env bash
# Part of `make check-deb` (check-deb.sh), run by it in a mount and pid namespace of its own with
# /proc mounted in ROOT: installs EARLIER, checks it, runs the daemon, upgrades to VERSION, removes
# and purges, each step checked. The two packages are in ROOT/tmp.
# Usage: check-deb-root.sh ROOT VERSION EARLIER STARTED (the Unix time check-deb.sh started at)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?usage: check-deb-root.sh ROOT VERSION EARLIER STARTED}
version=${2:?}
earlier=${3:?}
started=${4:?}
out=.build/deb
arch=$(dpkg --print-architecture)
deb="aggregatord_${version}_$arch.deb"
earlier_deb="aggregatord_${earlier}_$arch.deb"
step() { echo "check-deb: [$(($(date +%s) - started)) s] $*"; }
fail() { echo "check-deb: FAILED: $*" >&2; exit 1; }
# A command in the root, with a clean environment and a time limit.
in_root() { timeout 300 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# Install the earlier build, as a user would: apt brings what Depends names.
in_root apt-get install -y -q "/tmp/$earlier_deb" > "$out/check-install.log" 2>&1 \
    || { cat "$out/check-install.log" >&2; fail "apt-get install of $earlier"; }
step "installed $earlier with apt ($(in_root dpkg-query -W -f='${Installed-Size}' aggregatord) KiB)"
project_version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/ControlProtocol/AggregatorVersion.swift)
answer=$(in_root timeout 20 aggregatord --version) || fail "aggregatord --version"
[ "$answer" = "aggregatord $project_version" ] || fail "aggregatord --version: $answer"
answer=$(in_root timeout 20 aggregatorctl --version) || fail "aggregatorctl --version"
[ "$answer" = "aggregatorctl $project_version" ] || fail "aggregatorctl --version: $answer"
counts=""
for program in aggregatord aggregatorctl; do
    libraries=$(in_root ldd /usr/bin/$program)
    if grep -qi swift <<< "$libraries" || grep -q 'not found' <<< "$libraries"; then
        echo "$libraries" >&2; fail "ldd $program: a Swift library or a missing one"
    fi
    counts+="$program $(grep -c '=>' <<< "$libraries"), "
done
step "--version answers; ldd: ${counts%, } libraries, none of Swift's, none missing"
[ "$(in_root getent passwd aggregator | cut -d: -f6,7)" = "/var/lib/aggregator:/usr/sbin/nologin" ] \
    || fail "user aggregator: $(in_root getent passwd aggregator)"
[ "$(in_root stat -c '%U:%G %a' /var/lib/aggregator)" = "aggregator:aggregator 750" ] || fail "/var/lib/aggregator"
in_root dpkg-query -W -f='${Conffiles}\n' aggregatord | grep -q '/etc/aggregator/aggregatord.conf' \
    || fail "the configuration is not a conffile"
step "user aggregator, /var/lib/aggregator (0750) and the conffile are there"
units="/lib/systemd/system/aggregatord.service /lib/systemd/system/aggregatord.socket /lib/systemd/system/aggregatord-http.socket"
# shellcheck disable=SC2086  # one word a unit
in_root systemd-analyze verify --man=no $units || fail "systemd-analyze verify of the installed units"
in_root systemctl enable aggregatord.service 2> /dev/null || fail "systemctl enable aggregatord"
wants=/etc/systemd/system/multi-user.target.wants/aggregatord.service
[ -L "$root$wants" ] || fail "systemctl enable made no $wants"
step "systemd-analyze verify passes on the installed units; systemctl enable aggregatord works"

# The daemon as aggregatord.service starts it, in a network namespace with only loopback: the
# local feed server is reached, the seed list's public feeds fail at once and nothing leaves.
run_daemon() {
    unshare --net bash packaging/deb/check-deb-daemon.sh "$root" "$1" || fail "the daemon ($1)"
}
run_daemon first
step "the daemon, started as its unit would, fetched a feed from a local server and answered status"

# Upgrade over the earlier build, with the configuration changed meanwhile: both are kept.
echo "retention-days = 365" >> "$root/etc/aggregator/aggregatord.conf"
in_root apt-get install -y -q -o Dpkg::Options::=--force-confold "/tmp/$deb" \
    > "$out/check-upgrade.log" 2>&1 || { cat "$out/check-upgrade.log" >&2; fail "apt-get install of $version"; }
[ "$(in_root dpkg-query -W -f='${Version}' aggregatord)" = "$version" ] || fail "not upgraded to $version"
grep -q '^retention-days = 365$' "$root/etc/aggregator/aggregatord.conf" || fail "the changed configuration was lost"
run_daemon upgraded
[ -L "$root$wants" ] || fail "the upgrade disabled the service"
step "upgraded $earlier to $version: the database, the changed configuration and the enabled service kept"

in_root apt-get remove -y -q aggregatord > "$out/check-remove.log" 2>&1 || fail "apt-get remove"
[ ! -e "$root/usr/bin/aggregatord" ] || fail "remove left /usr/bin/aggregatord"
[ -f "$root/var/lib/aggregator/aggregator.db" ] || fail "remove deleted the database"
[ -f "$root/etc/aggregator/aggregatord.conf" ] || fail "remove deleted the configuration"
in_root getent passwd aggregator > /dev/null || fail "remove deleted the user"
step "removed: the database, the configuration and the user kept"

in_root apt-get purge -y -q aggregatord > "$out/check-purge.log" 2>&1 || fail "apt-get purge"
[ ! -e "$root/var/lib/aggregator" ] || fail "purge left /var/lib/aggregator"
[ ! -e "$root/etc/aggregator" ] || fail "purge left /etc/aggregator"
! in_root getent passwd aggregator > /dev/null || fail "purge left the user"
! in_root getent group aggregator > /dev/null || fail "purge left the group"
[ -z "$(in_root dpkg-query -W -f='${Status}' aggregatord 2> /dev/null)" ] || fail "purge left dpkg's record"
[ ! -L "$root$wants" ] || fail "purge left $wants"
left=$(find "$root/etc/systemd" "$root/var/lib/systemd/deb-systemd-helper-enabled" \
    "$root/var/lib/systemd/deb-systemd-helper-masked" -name 'aggregatord*' 2> /dev/null || true)
[ -z "$left" ] || fail "purge left $left"
step "purged: the database, the configuration, the user, the group and the enabled unit's link are gone"
echo "check-deb: the package installs, runs, upgrades, removes and purges on a clean Debian 12 root"
