#!/usr/bin/env bash
# Instructions executed (valgrind's callgrind, every thread) parsing every 10th XML feed of the
# N=2000 farm, ours against xmllint: unlike wall time, the count barely moves with the machine's
# load, so it shows what a change to the parser did.
#   bash bench/parse_instructions.sh [BIN]     (needs valgrind: apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/aggregatorctl}
farm=${FARM:-bench/out/farm-n2000-s42}
command -v valgrind > /dev/null || { echo "valgrind missing: apt-get install valgrind" >&2; exit 1; }
[ -d "$farm/feeds" ] || { echo "no farm in $farm: run bench/bench_parse.sh once" >&2; exit 1; }
mapfile -t files < <(find "$farm/feeds" -name '*.rss' -o -name '*.atom' -o -name '*.rdf' | sort | awk 'NR % 10 == 0')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# xmllint exits 1 on the farm's broken feeds: the count matters here, not the status.
count() {
    { valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$@" 2>&1 > /dev/null || true; } \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
ours=$(count "$bin" parse --json "${files[@]}")
theirs=$(count xmllint --stream --noout "${files[@]}")
echo "${#files[@]} feeds; instructions executed, all threads"
echo "| command | instructions |"
echo "|---|---|"
echo "| aggregatorctl parse --json | $ours |"
echo "| xmllint --stream --noout | $theirs |"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "ours / xmllint: %.2f (on two cores, half of ours runs on each)\n", a / b }'
