#!/usr/bin/env bash
# `make deb`: packages the release build (already made by `make deb`) as
# OUT_DIR/aggregatord_VERSION_ARCH.deb, with dpkg's own tools: dpkg-shlibdeps finds Depends,
# dpkg-gencontrol writes the control file (and Installed-Size), dpkg-deb builds the archive.
# Usage: packaging/deb/build-deb.sh VERSION OUT_DIR
# DEB_COMPRESSION: dpkg-deb's compression options (default -Zxz: 15 MB; check-deb's throw-away
# earlier build uses -Zgzip -z1, ten times faster to make).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:?usage: build-deb.sh VERSION OUT_DIR}
out=${2:?usage: build-deb.sh VERSION OUT_DIR}
release=.build/release
here=packaging/deb
arch=$(dpkg --print-architecture)
work=$out/work-$version
rm -rf "$work"
mkdir -p "$work/debian" "$out"
root=$work/root

# The two executables of the release build, stripped. The client imports only FoundationEssentials
# (no ICU data: 14 MB stripped beside the daemon's 59) and none of the daemon's libraries, so each
# command starts as fast as the build's own (docs/BENCHMARKS.md, "The Debian package").
for program in aggregatord aggregatorctl; do
    [ -x "$release/$program" ] || { echo "build-deb: $release/$program missing: run the release build first" >&2; exit 1; }
done
if nm "$release/aggregatorctl" 2>/dev/null | grep -q icudt; then
    echo "build-deb: aggregatorctl links ICU's data: a module it uses imports Foundation, not FoundationEssentials" >&2
    exit 1
fi

install -d "$root/usr/bin" "$root/usr/share/aggregator" "$root/usr/share/man/man1" "$root/usr/share/man/man8" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/etc/aggregator" \
    "$root/usr/share/doc/aggregatord" "$root/DEBIAN"
for program in aggregatord aggregatorctl; do
    install -m 0755 "$release/$program" "$root/usr/bin/$program"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$program"
done
install -m 0644 feeds.opml "$root/usr/share/aggregator/feeds.opml"
gzip -9n < man/aggregatorctl.1 > "$root/usr/share/man/man1/aggregatorctl.1.gz"
gzip -9n < man/aggregatord.8 > "$root/usr/share/man/man8/aggregatord.8.gz"
install -m 0644 contrib/aggregatorctl.bash "$root/usr/share/bash-completion/completions/aggregatorctl"
install -m 0644 contrib/_aggregatorctl "$root/usr/share/zsh/vendor-completions/_aggregatorctl"
sed 's|@BINDIR@|/usr/bin|g' systemd/aggregatord.service.in > "$root/lib/systemd/system/aggregatord.service"
install -m 0644 systemd/aggregatord.socket systemd/aggregatord-http.socket "$root/lib/systemd/system/"
chmod 0644 "$root/lib/systemd/system/aggregatord.service"
install -m 0644 systemd/aggregator.sysusers "$root/usr/lib/sysusers.d/aggregator.conf"
install -m 0644 aggregatord.conf "$root/etc/aggregator/aggregatord.conf"
install -m 0644 "$here/copyright" "$root/usr/share/doc/aggregatord/copyright"

# The changelog's first entry is this version: a build of another VERSION gets an entry of its own.
cp "$here/control" "$work/debian/control"
if [ "$(dpkg-parsechangelog -l "$here/changelog" -S Version)" = "$version" ]; then
    cp "$here/changelog" "$work/debian/changelog"
else
    {
        echo "aggregatord ($version) unstable; urgency=medium"
        echo
        echo "  * Built from the tree of $(dpkg-parsechangelog -l "$here/changelog" -S Version) as $version."
        echo
        echo " -- $(sed -n 's/^Maintainer: //p' "$here/control")  $(date -R)"
        echo
        cat "$here/changelog"
    } > "$work/debian/changelog"
fi
# A native package (the project is its own packager): changelog.gz, not changelog.Debian.gz.
gzip -9n < "$work/debian/changelog" > "$root/usr/share/doc/aggregatord/changelog.gz"

install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
install -m 0644 "$here/conffiles" "$root/DEBIAN/conffiles"
(
    cd "$work"
    dpkg-shlibdeps -Tdebian/substvars root/usr/bin/aggregatord root/usr/bin/aggregatorctl
    dpkg-gencontrol -v"$version" -Proot -Tdebian/substvars -paggregatord
)
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    | grep -v ' etc/' > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
deb="$out/aggregatord_${version}_${arch}.deb"
# shellcheck disable=SC2086  # options, one word each
dpkg-deb --root-owner-group ${DEB_COMPRESSION:--Zxz} --build "$root" "$deb" > /dev/null
echo "build-deb: $deb ($(du -k "$deb" | cut -f1) KiB; installed $(dpkg-deb -f "$deb" Installed-Size) KiB)"
echo "build-deb: Depends: $(dpkg-deb -f "$deb" Depends)"
