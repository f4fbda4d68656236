#!/usr/bin/env bash
# `make fuzz`: runs each fuzz target (built by `make fuzz-build` into .build/fuzz/release) for SECONDS,
# from its seed corpus (Fuzz/Corpus/TARGET, kept in the repository) plus what earlier runs found
# (.build/fuzz/corpus/TARGET), with a dictionary where one helps. An input taking over 2 s is a
# timeout; a crash, a broken property, a leak or a timeout fails the run and leaves the reproducer
# in .build/fuzz/findings/ (replay: .build/fuzz/release/FuzzTARGET FILE). Prints executions per second.
#   bash Fuzz/run.sh SECONDS TARGET...
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=$1; shift
bin=.build/fuzz/release
mkdir -p .build/fuzz/findings
failed=()
printf '%-16s %8s %12s %10s  %s\n' target seconds executions "exec/s" result
for target in "$@"; do
    corpus=.build/fuzz/corpus/$target
    mkdir -p "$corpus"
    dict=()
    case $target in
        FeedParser|OPML|Sanitizer) dict=(-dict=Fuzz/Dictionaries/xml.dict) ;;
        HTTPRequest) dict=(-dict=Fuzz/Dictionaries/http.dict) ;;
    esac
    log=.build/fuzz/findings/$target.log
    LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan-suppressions.txt ASAN_OPTIONS=detect_leaks=1 \
        "$bin/Fuzz$target" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=".build/fuzz/findings/$target-" "${dict[@]}" "$corpus" "Fuzz/Corpus/$target" > "$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' | tail -1)
    rate=$([ -n "$runs" ] && [ -n "$took" ] && [ "$took" -gt 0 ] && echo $((runs / took)) || echo "-")
    if [ $status -eq 0 ]; then
        result=ok
    else
        result="FAILED (exit $status): $(grep -m1 -E 'property violated|ERROR: |Fatal error' "$log" | cut -c1-150)"
        failed+=("$target")
        ls .build/fuzz/findings/$target-* 2> /dev/null | sed 's/^/    reproducer: /'
    fi
    printf '%-16s %8s %12s %10s  %s\n' "$target" "${took:-?}" "${runs:-?}" "$rate" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]} (logs in .build/fuzz/findings/)"
    exit 1
fi
