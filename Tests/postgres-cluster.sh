#!/bin/bash
# A throwaway PostgreSQL cluster for the tests: `start DIR` makes one in DIR (initdb, then pg_ctl),
# listening on a Unix socket in DIR only, run as the unprivileged `postgres` user when started as
# root (PostgreSQL refuses root); prints the URI its tests connect with. `stop DIR` stops it and
# removes DIR. Local connections are trusted: nothing outside this machine can reach the socket.
# fsync is off (a throwaway cluster) unless POSTGRES_FSYNC=on (benchmarks: bench/postgres_ingest.sh).
# `halt DIR` stops the server and keeps its data; `resume DIR` starts it again (the tests of daemons
# that must survive their database going away). `standby DIR PRIMARY_DIR` makes a streaming standby
# of the cluster in PRIMARY_DIR (pg_basebackup over its socket) in DIR, listening in DIR, and prints
# its URI; `kill DIR` stops a server at once (as a crash would) and keeps its data; `promote DIR`
# makes a standby the primary (the failover tests).
set -euo pipefail
usage="usage: postgres-cluster.sh start|stop|halt|resume|kill|promote DIR | standby DIR PRIMARY_DIR"
command=${1:?$usage}
directory=${2:?$usage}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "error: PostgreSQL's server is not installed (make test-deps installs it)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

serve() {
    # The server must not keep the caller's descriptors: Foundation's Process (the tests) waits until
    # every holder of one it passed its child closes it, and the server runs until stopped.
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null || true
    done
    as_owner "$bin/pg_ctl" -D "$directory/data" -l "$directory/server.log" -w -o \
        "-c listen_addresses='' -c unix_socket_directories='$directory' -c fsync=${POSTGRES_FSYNC:-off} -c max_connections=300" start >/dev/null \
        || { cat "$directory/server.log" >&2; exit 1; }
}

case $command in
start)
    mkdir -p "$directory"
    [ "$(id -u)" = 0 ] && chown postgres "$directory"
    chmod 0777 "$directory"
    as_owner "$bin/initdb" -D "$directory/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$directory/initdb.log" 2>&1 \
        || { cat "$directory/initdb.log" >&2; exit 1; }
    serve
    echo "postgresql:///postgres?host=$directory&user=postgres"
    ;;
standby)
    primary=${3:?$usage}
    mkdir -p "$directory"
    [ "$(id -u)" = 0 ] && chown postgres "$directory"
    chmod 0777 "$directory"
    # -R: standby.signal and primary_conninfo (the primary's socket) are written for the server; -c fast:
    # the checkpoint it starts from is made at once (a spread one takes minutes).
    as_owner "$bin/pg_basebackup" -h "$primary" -U postgres -D "$directory/data" -R -X stream -c fast >"$directory/basebackup.log" 2>&1 \
        || { cat "$directory/basebackup.log" >&2; exit 1; }
    serve
    echo "postgresql:///postgres?host=$directory&user=postgres"
    ;;
halt) as_owner "$bin/pg_ctl" -D "$directory/data" -m fast -w stop >/dev/null ;;
kill) as_owner "$bin/pg_ctl" -D "$directory/data" -m immediate -w stop >/dev/null ;;
promote) as_owner "$bin/pg_ctl" -D "$directory/data" -w promote >/dev/null ;;
resume) serve ;;
stop)
    if [ -d "$directory/data" ]; then
        as_owner "$bin/pg_ctl" -D "$directory/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$directory"
    ;;
*) echo "$usage" >&2; exit 2 ;;
esac
