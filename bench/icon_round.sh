#!/usr/bin/env bash
# Feed icons on the 1,000-feed farm: how many a round's icon pass finds of those the sites offer,
# the requests it makes per site (first pass, and again two weeks later), the images kept, and the
# Miniflux icon endpoint's time (bench/icon_round.py says how the farm's sites offer icons).
#   bash bench/icon_round.sh [BIN_DIR]      (the farm: bash bench/bench_parse.sh makes it; N=1000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
farm=${FARM:-bench/out/farm-n1000-s42}
[ -d "$farm/feeds" ] || { echo "no farm in $farm: generate it (bench/bench_parse.sh with N=1000)" >&2; exit 1; }
python3 bench/icon_round.py "$bin" "$farm"
