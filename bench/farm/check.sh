#!/usr/bin/env bash
# check.sh FARM: the farm's tree hash, to compare with the one bench/README.md records ("The feed
# farm"). It is the SHA-256 of `sha256sum` run, in FARM, over the generator's own files (relative
# paths, sorted bytewise): manifest.json, farm.opml, urls and feeds/*, leaving out what serving and
# the reference store stage add (feeds/*.gz, nginx.pid, .nginx/, .entries.pickle). farm.opml and
# urls name the port, so the recorded hash holds for the port it names. Also prints the hash of
# the feed files' modification times, which nginx's ETag and Last-Modified come from.
set -euo pipefail
farm=${1:?usage: bench/farm/check.sh FARM}
cd "$farm"
[ -f manifest.json ] || { echo "$farm: no manifest.json, not a farm" >&2; exit 1; }
files() {
    { printf '%s\n' manifest.json farm.opml urls; find feeds -type f ! -name '*.gz' ! -name '*.tmp'; } | LC_ALL=C sort
}
count=$(files | wc -l)
tree=$(files | xargs -d '\n' sha256sum | sha256sum | cut -d' ' -f1)
mtimes=$(files | grep '^feeds/' | xargs -d '\n' stat -c '%n %Y' | sha256sum | cut -d' ' -f1)
echo "files  $count"
echo "tree   $tree"
echo "mtimes $mtimes"
