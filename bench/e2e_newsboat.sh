#!/usr/bin/env bash
# End to end against newsboat on the same farm, served by ../shared/bench/serve.sh (nginx, precompressed
# gzip, ETag/Last-Modified): `aggregatord --once` on a fresh database (cold) and again (warm: all 304),
# `newsboat -x reload` with reload-threads 1 on a fresh cache (cold) and its third reload (conditional).
#   N=1000 RUNS=3 NB_RUNS=1 bash bench/e2e_newsboat.sh        (needs nginx and newsboat: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${SHARED:-../shared}" && pwd)
n=${N:-1000}; runs=${RUNS:-3}; nb_runs=${NB_RUNS:-1}; port=${PORT:-18080}
farm=$(pwd)/${FARM:-bench/out/farm-n$n-s42}
[ -d "$farm/feeds" ] || python3 "$shared/bench/gen_farm.py" "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
python3 "$shared/bench/gen_farm.py" "$farm" --lists-only --port "$port" > /dev/null
for tool in nginx newsboat; do command -v $tool > /dev/null || { echo "$tool missing: make bench-e2e-deps" >&2; exit 1; }; done
"$shared/bench/serve.sh" start "$farm" "$port" > /dev/null
work=$(mktemp -d)
trap '"$shared/bench/serve.sh" stop "$farm" > /dev/null; rm -rf "$work"' EXIT

measure() {  # measure LABEL COMMAND... -> "wall_s rss_kb"
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$work/rss" "$@" > "$work/out" 2> "$work/err" || true
    end=$(date +%s.%N)
    echo "$label $(python3 -c "print(round($end - $start, 3))") $(tail -n 1 "$work/rss")" >> "$work/results"
    case $label in aggregatord-cold*) echo "$label: $(cat "$work/out")" >&2 ;; esac
}
ours=(.build/release/aggregatord --once --database "$work/agg.db" --seed-opml "$farm/farm.opml" --log-level error)
printf 'reload-threads 1\ndownload-timeout 60\n' > "$work/nb.conf"
nb=(newsboat -u "$farm/urls" -c "$work/nb.db" -C "$work/nb.conf" -x reload)

for _ in $(seq "$runs"); do
    rm -f "$work"/agg.db*; measure "aggregatord-cold" "${ours[@]}"
    measure "aggregatord-warm" "${ours[@]}"
    rm -f "$work"/agg.db*; measure "aggregatord-cold-perhost16" "${ours[@]}" --per-host-connections 16
    measure "aggregatord-warm-perhost16" "${ours[@]}" --per-host-connections 16
done
for _ in $(seq "$nb_runs"); do
    rm -f "$work"/nb.db*; measure "newsboat-cold" "${nb[@]}"
    "${nb[@]}" > /dev/null 2>&1 || true   # newsboat 2.21 stores validators only from its second reload on
    measure "newsboat-conditional" "${nb[@]}"
done
python3 - "$work/results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, wall, rss = line.split()
    rows[label].append((float(wall), int(rss)))
def median(label, index): return statistics.median(r[index] for r in rows[label])
print("| run | wall s (median) | runs | peak RSS MB |")
print("|---|---|---|---|")
for label in rows:
    print(f"| {label} | {median(label, 0):.2f} | {len(rows[label])} | {median(label, 1) / 1024:.0f} |")
if "newsboat-cold" in rows:
    print(f"\ncold: newsboat / aggregatord = {median('newsboat-cold', 0) / median('aggregatord-cold', 0):.1f}x "
          f"(per-host 16: {median('newsboat-cold', 0) / median('aggregatord-cold-perhost16', 0):.1f}x); "
          f"conditional: {median('newsboat-conditional', 0) / median('aggregatord-warm', 0):.1f}x")
PY
