#!/usr/bin/env bash
# `aggregatord copy-database` both ways on a large store (issue 30's bar: under 5 minutes each way,
# counts equal, a sample of 1,000 entries equal field by field). SOURCE is a PostgreSQL database (made
# by `storebench queries URI 1000000`); it is copied into a fresh SQLite file, and that file into a
# fresh PostgreSQL database beside SOURCE (dropped at the end). Prints each copy's wall time, every
# table's rows in the three, and how many of 1,000 random entries (and their state rows) read the same,
# column by column, in SOURCE and in the copy of its copy.
#   SOURCE='postgresql:///q1m?host=/tmp/pgdev&user=postgres' [BIN=.build/release] bash bench/copy_database.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source=${SOURCE:?set SOURCE to a PostgreSQL URI}; bin=${BIN:-.build/release}
work=$(mktemp -d)
back_name=copy_back_$$
# The same server, another database name (a URI without a host keeps its "//").
back=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(f"{p.scheme}://{p.netloc}/{sys.argv[2]}" + (f"?{p.query}" if p.query else ""))' \
    "$source" "$back_name")
trap 'rm -rf "$work"; psql -qX "$source" -c "DROP DATABASE IF EXISTS $back_name" > /dev/null 2>&1 || true' EXIT
psql -qX "$source" -c "CREATE DATABASE $back_name"

timed_copy() {  # FROM TO LABEL
    local started ended
    started=$(date +%s.%N)
    "$bin/aggregatord" copy-database "$1" "$2" > "$work/$3.log" 2>&1 || { cat "$work/$3.log" >&2; return 1; }
    ended=$(date +%s.%N)
    printf '%-28s %7.1f s\n' "$3" "$(echo "$ended - $started" | bc)"
}
timed_copy "$source" "$work/copy.db" "PostgreSQL -> SQLite"
timed_copy "$work/copy.db" "$back" "SQLite -> PostgreSQL"

echo
printf '%-18s %12s %12s %12s\n' table source sqlite copy-back
differ=0
for table in $(sed -n 's/^copied \([a-z_]*\):.*/\1/p' "$work/PostgreSQL -> SQLite.log"); do
    a=$(psql -qXAt "$source" -c "SELECT count(*) FROM $table")
    b=$(sqlite3 "$work/copy.db" "SELECT count(*) FROM $table")
    c=$(psql -qXAt "$back" -c "SELECT count(*) FROM $table")
    [ "$a" = "$b" ] && [ "$b" = "$c" ] || differ=1
    printf '%-18s %12s %12s %12s\n' "$table" "$a" "$b" "$c"
done

# Whole rows as PostgreSQL writes them: every column, in the schema's order (both databases were made
# by the same migrations).
ids=$(psql -qXAt "$source" -c "SELECT string_agg(id::text, ',') FROM (SELECT id FROM entries ORDER BY random() LIMIT 1000) s")
for table in "entries:id" "entry_state:entry_id"; do
    name=${table%%:*}; key=${table##*:}
    query="SELECT $key, md5(t::text) FROM $name t WHERE $key IN ($ids) ORDER BY $key"
    psql -qXAt "$source" -c "$query" > "$work/a"
    psql -qXAt "$back" -c "$query" > "$work/b"
    same=$(comm -12 "$work/a" "$work/b" | wc -l)
    echo "$name: $same of $(wc -l < "$work/a") sampled rows equal in every column"
    [ "$same" = "$(wc -l < "$work/a")" ] || differ=1
done
exit $differ
