#!/usr/bin/env bash
# `make bench`: the parse and store benchmarks (bench/bench_*.sh: aggregatorctl parse against xmllint,
# storebench against the reference store stage), each printing its table; farms and results in bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
ran=0
for script in bench/bench_*.sh; do
    [ -e "$script" ] || continue
    echo "== $script"
    bash "$script"
    ran=$((ran + 1))
done
if [ "$ran" -eq 0 ]; then
    echo "No benchmarks exist yet: nothing was measured."
fi
