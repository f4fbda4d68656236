#!/usr/bin/env bash
# End to end against newsboat on the same farm, served by bench/farm/serve.sh (nginx, precompressed
# gzip, ETag/Last-Modified), and against each stage measured alone, all in one run:
#   stages       one `curl --parallel --parallel-max 16 --compressed` over every URL (and its conditional
#                pass), `xmllint --stream --noout` over the XML files, bench/reference/store_limit.py
#                (and, for reference, store_limit.py with the index the issue asks for: --index full)
#   cold/warm    `aggregatord --once` on a fresh database, then again (every feed answers 304)
#   newsboat     `newsboat -x reload` (reload-threads 1) on a fresh cache, then its third reload
#                (newsboat 2.21 stores validators only from its second on)
#   mutated      both again from their warm state against a `gen_farm.py --mutate`d copy of the farm
#   latency      aggregatord cold with LATENCY_MS (default 50) added to every response
# The farm is one host: aggregatord's default of 2 fetches per host bounds it where real feeds spread
# over many hosts, so the warm and latency runs are also measured with 16 per host, curl's parallelism.
#   N=1000 RUNS=3 NB_RUNS=1 bash bench/e2e_newsboat.sh      (needs nginx and newsboat: make bench-e2e-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}; runs=${RUNS:-3}; nb_runs=${NB_RUNS:-1}; port=${PORT:-18080}; latency=${LATENCY_MS:-50}
farm=$(pwd)/${FARM:-bench/out/farm-n$n-s42}
[ -d "$farm/feeds" ] || python3 bench/farm/gen_farm.py "$farm" -n "$n" --seed 42 --port "$port" > /dev/null
python3 bench/farm/gen_farm.py "$farm" --lists-only --port "$port" > /dev/null
for tool in nginx newsboat xmllint curl; do
    command -v $tool > /dev/null || { echo "$tool missing: make bench-e2e-deps" >&2; exit 1; }
done
work=$(mktemp -d)
chmod 755 "$work"  # nginx's workers serve the mutated copy from here
served=""
serve() { [ -z "$served" ] || bench/farm/serve.sh stop "$served" > /dev/null; served=$1; LATENCY_MS=${2:-0} bench/farm/serve.sh start "$1" "$port" > /dev/null; }
trap '[ -z "$served" ] || bench/farm/serve.sh stop "$served" > /dev/null; rm -rf "$work"' EXIT

measure() {  # measure LABEL COMMAND... -> appends "label wall_s rss_kb" to the results
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$work/rss" "$@" > "$work/out" 2> "$work/err" || true
    end=$(date +%s.%N)
    echo "$label $(python3 -c "print(round($end - $start, 3))") $(tail -n 1 "$work/rss")" >> "$work/results"
    case $label in aggregatord-*)
        echo "$label: $(cat "$work/out")" >&2
        # A round with failed fetches measures a broken setup, not the daemon.
        grep -q " failed=0 " "$work/out" || { echo "$label: feeds failed, stopping" >&2; exit 1; } ;;
    esac
}

python3 - "$farm/manifest.json" "$port" > "$work/curl-list" <<'PY'
import json, sys
for feed in json.load(open(sys.argv[1]))["feeds"]:
    print('url = "http://127.0.0.1:%s/feeds/%s"\noutput = "/dev/null"' % (sys.argv[2], feed["name"]))
PY
find "$farm/feeds" -type f \( -name '*.rss' -o -name '*.atom' -o -name '*.rdf' \) | sort > "$work/xml-list"
farm_date=$(python3 -c 'import email.utils; print(email.utils.formatdate(1717243200, usegmt=True))')
ours=(.build/release/aggregatord --once --database "$work/agg.db" --seed-opml "$farm/farm.opml" --log-level error)
printf 'reload-threads 1\ndownload-timeout 60\n' > "$work/nb.conf"
nb=(newsboat -u "$farm/urls" -c "$work/nb.db" -C "$work/nb.conf" -x reload)
python3 bench/reference/store_limit.py "$farm" "$work/limit.db" > /dev/null  # caches the farm's entries

serve "$farm"
for _ in $(seq "$runs"); do
    measure "stage-fetch-curl" bench/reference/fetch_curl.sh "$work/curl-list" 16 --compressed
    measure "stage-fetch-curl-304" bench/reference/fetch_curl.sh "$work/curl-list" 16 --compressed -H "If-Modified-Since: $farm_date"
    measure "stage-parse-xmllint" sh -c "xargs -a '$work/xml-list' xmllint --stream --noout 2>/dev/null"
    measure "stage-store-limit" python3 bench/reference/store_limit.py "$farm" "$work/limit.db"
    measure "stage-store-limit-full-index" python3 bench/reference/store_limit.py "$farm" "$work/limit.db" --index full
    rm -f "$work"/agg.db*; measure "aggregatord-cold" "${ours[@]}"
    measure "aggregatord-warm" "${ours[@]}"
    measure "aggregatord-warm-perhost16" "${ours[@]}" --per-host-connections 16
done
cp "$work/agg.db" "$work/agg-warm.db"
for _ in $(seq "$nb_runs"); do
    rm -f "$work"/nb.db*; measure "newsboat-cold" "${nb[@]}"
    "${nb[@]}" > /dev/null 2>&1 || true
    measure "newsboat-conditional" "${nb[@]}"
done
cp "$work/nb.db" "$work/nb-warm.db"

# A later poll: ~10 % of the feeds have 1-5 new items (a copy keeps the farm itself as generated).
mkdir -p "$work/mutated"
cp -a "$farm/feeds" "$farm/manifest.json" "$work/mutated/"
python3 bench/farm/gen_farm.py "$work/mutated" --mutate 1 > /dev/null
serve "$work/mutated"
for _ in $(seq "$runs"); do
    rm -f "$work"/agg.db*; cp "$work/agg-warm.db" "$work/agg.db"; measure "aggregatord-mutated" "${ours[@]}"
done
for _ in $(seq "$nb_runs"); do
    rm -f "$work"/nb.db*; cp "$work/nb-warm.db" "$work/nb.db"; measure "newsboat-mutated" "${nb[@]}"
done

if [ "$latency" != 0 ]; then
    serve "$farm" "$latency"
    for _ in $(seq "$runs"); do
        measure "stage-fetch-curl-latency" bench/reference/fetch_curl.sh "$work/curl-list" 16 --compressed
        rm -f "$work"/agg.db*; measure "aggregatord-cold-latency" "${ours[@]}"
        rm -f "$work"/agg.db*; measure "aggregatord-cold-latency-perhost16" "${ours[@]}" --per-host-connections 16
    done
fi

python3 - "$work/results" "$latency" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, wall, rss = line.split()
    rows[label].append((float(wall), int(rss)))
def median(label, index=0): return statistics.median(r[index] for r in rows[label])
print("| run | wall s (median) | runs | peak RSS MB |")
print("|---|---|---|---|")
for label in rows:
    print(f"| {label} | {median(label):.2f} | {len(rows[label])} | {median(label, 1) / 1024:.0f} |")
stages = {label: median(label) for label in ("stage-fetch-curl", "stage-parse-xmllint", "stage-store-limit")}
slowest = max(stages, key=stages.get)
print(f"\ncold: newsboat / aggregatord = {median('newsboat-cold') / median('aggregatord-cold'):.1f}x; "
      f"warm (all 304): {median('newsboat-conditional') / median('aggregatord-warm'):.1f}x, "
      f"{median('aggregatord-warm') / median('stage-fetch-curl-304'):.2f}x one curl pass of conditional requests "
      f"({median('aggregatord-warm-perhost16') / median('stage-fetch-curl-304'):.2f}x with 16 per host); "
      f"mutated: {median('newsboat-mutated') / median('aggregatord-mutated'):.1f}x")
print(f"cold / slowest stage alone ({slowest}, {stages[slowest]:.2f} s): {median('aggregatord-cold') / stages[slowest]:.2f}x; "
      f"against store_limit with the issue's index ({median('stage-store-limit-full-index'):.2f} s): "
      f"{median('aggregatord-cold') / median('stage-store-limit-full-index'):.2f}x")
if "aggregatord-cold-latency" in rows:
    print(f"with {sys.argv[2]} ms latency: cold {median('aggregatord-cold-latency'):.2f} s "
          f"({median('aggregatord-cold-latency-perhost16'):.2f} s with 16 per host), "
          f"curl alone {median('stage-fetch-curl-latency'):.2f} s")
PY
