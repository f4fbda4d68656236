# Sourced by the farm benchmarks (once_compare.sh, accounts_round.sh, rules_round.sh), from the
# repository's root: `serve_farm N PORT` generates the N-feed farm once (seed 42) unless FARM names
# one, writes its lists for PORT, serves it with nginx (with its access log when ACCESS_LOG=1) and,
# on exit, stops it and removes the scratch directory. Sets `farm` and `work`.
serve_farm() {
    local n=$1 port=$2
    farm=$(pwd)/${FARM:-bench/out/farm-n$n-s42}
    [ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
    python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
    command -v nginx > /dev/null || { echo "nginx missing: make bench-e2e-deps" >&2; exit 1; }
    work=$(mktemp -d)
    ACCESS_LOG=${ACCESS_LOG:-0} bench/farm/serve.sh start "$farm" "$port" > /dev/null
    trap 'bench/farm/serve.sh stop "$farm" > /dev/null; rm -rf "$work"' EXIT
}
