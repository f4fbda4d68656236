#!/usr/bin/env bash
# The claim step of several daemons on one PostgreSQL (docs/ARCHITECTURE.md), without fetching: a throwaway
# local cluster (Unix socket, fsync on), a feeds table of 1,000 and one of FEEDS (1,000,000) feeds
# on 50,000 hosts, all due. Measures the claim transaction alone at both sizes (median of REPEATS),
# then feeds claimed and completed per second (claim 100, a stand-in fetch that answers 304 at once,
# free the host, record the batch) with 1, 2 and 4 stand-in daemons, SECONDS each, RUNS times.
#   bash bench/cluster_claims.sh          (FEEDS=1000000 REPEATS=300 SECONDS=10 RUNS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
feeds=${FEEDS:-1000000}; repeats=${REPEATS:-300}; seconds=${SECONDS_EACH:-10}; runs=${RUNS:-3}
bin=${BIN:-.build/release}
work=$(mktemp -d); chmod 0755 "$work"
cluster=$work/cluster
trap 'Tests/postgres-cluster.sh stop "$cluster"; rm -rf "$work"' EXIT
base=$(POSTGRES_FSYNC=on Tests/postgres-cluster.sh start "$cluster")

fill() {  # fill NAME COUNT -> the URI of a new database whose feeds table holds COUNT due feeds
    psql -qX "$base" -c "CREATE DATABASE $1"
    local uri=${base/\/postgres\?/\/$1?}
    "$bin/aggregatord" --once --database "$uri" --log-level error > /dev/null  # the schema
    psql -qX "$uri" -c "INSERT INTO feeds (url, added_at, next_check_at)
        SELECT format('https://site%s.example/feed/%s', g % 50000, g), 0, 0 FROM generate_series(1, $2) g" \
        -c "VACUUM ANALYZE feeds"
    echo "$uri"
}

small=$(fill claims_small 1000)
large=$(fill claims_large "$feeds")
echo "claim transaction (100 feeds), $repeats times:"
echo "  1,000 feeds:   $("$bin/storebench" claim-cost "$small" "$repeats")"
echo "  $feeds feeds: $("$bin/storebench" claim-cost "$large" "$repeats")"
for run in $(seq "$runs"); do
    for nodes in 1 2 4; do
        echo "run $run, $nodes node(s): $("$bin/storebench" claims "$large" "$nodes" "$seconds")"
    done
done
