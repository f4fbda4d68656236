#!/usr/bin/env bash
# serve.sh start FARM PORT | stop FARM | status FARM
# Serves a farm made by gen_farm.py with Debian's nginx on 127.0.0.1:PORT: /feeds/NAME, /farm.opml
# and /urls; anything else is 404. nginx keeps its pid in FARM/nginx.pid and everything else it
# writes (configuration, error log, access log, temporary files) in FARM/.nginx/. `start` reads:
#   GZIP=static   (default) answer gzip requests with NAME.gz files, made by precompress.py when
#                 missing or stale, so nginx spends no CPU on compression during a measurement;
#                 `on`: nginx compresses each response at GZIP_LEVEL (default 1); `off`: never
#   LATENCY_MS=N  wait N ms before each /feeds/ response (echo_sleep, from the Debian package
#                 libnginx-mod-http-echo; default 0)
#   WORKERS=N     nginx worker processes (default 1: the client gets the other core)
#   ACCESS_LOG=1  write FARM/.nginx/access.log (nginx's combined format; default off)
#   NGINX=PATH    the nginx binary (default the one on PATH, else /usr/sbin/nginx)
set -euo pipefail
tools=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
echo_module=/usr/lib/nginx/modules/ngx_http_echo_module.so
# GZIP mode: whether nginx compresses on the fly, whether it sends NAME.gz (gzip, gzip_static)
declare -A gzip_modes=([static]="off on" [on]="on off" [off]="off off")

fail() { local status=$1; shift; echo "$*" >&2; exit "$status"; }
usage() { fail 2 "usage: $0 start FARM PORT | stop FARM | status FARM"; }
# within TENTHS COMMAND...: true as soon as COMMAND succeeds, trying every tenth of a second
within() {
    local tenths=$1 try
    shift
    for ((try = 0; try < tenths; try++)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

[ $# -ge 2 ] || usage
action=$1
farm=$(cd "$2" && pwd)
pidfile=$farm/nginx.pid
run=$farm/.nginx

pid() { cat "$pidfile"; }
serving() { [ -s "$pidfile" ] && kill -0 "$(pid)" 2> /dev/null; }
answers() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
up() { serving && answers "$1"; }
gone() { ! kill -0 "$1" 2> /dev/null; }

# The /feeds/ location(s) for a delay of $1 ms: with one, echo_sleep holds the response (without
# holding the worker, so responses still overlap as over a real network), then echo_exec hands it
# to an internal location that serves the file. Paths are relative to nginx's prefix, FARM/.nginx/.
feeds_locations() {
    local pad='        ' delay
    if [ "$1" = 0 ]; then
        echo "${pad}location /feeds/ { }"
        return
    fi
    delay=$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')
    # shellcheck disable=SC2016 # $uri is nginx's
    printf "$pad%s\n" 'location /feeds/ {' "    echo_sleep $delay;" '    echo_exec /_origin$uri;' '}' \
        'location /_origin/feeds/ {' '    internal;' '    alias ../feeds/;' '}'
}

# nginx.conf.in with each %NAME% replaced by the value NAME has in the array named $1
configuration() {
    local -n values=$1
    local text name
    text=$(< "$tools/nginx.conf.in")
    shopt -u patsub_replacement 2> /dev/null || true   # an & in a value stays an &
    for name in "${!values[@]}"; do
        text=${text//%$name%/${values[$name]}}
    done
    printf '%s\n' "$text"
}

# shellcheck disable=SC2034 # fill is read by configuration, through a nameref
start() {
    local port=${1:-} nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
    local delay=${LATENCY_MS:-0} gzip=${GZIP:-static} workers=${WORKERS:-1}
    [ -n "$port" ] || usage
    [ -x "$nginx" ] || fail 1 "nginx not found (make bench-e2e-deps)"
    [ -d "$farm/feeds" ] || fail 1 "$farm has no feeds/: make it with bench/farm/gen_farm.py"
    ! serving || fail 1 "already serving $farm (pid $(pid))"
    ! answers "$port" || fail 1 "port $port is taken"
    local -A fill=([PORT]=$port [WORKERS]=$workers [MODULES]="" [ACCESS_LOG]=off)
    local on_the_fly precompressed
    if [ "$delay" != 0 ]; then
        [ -f "$echo_module" ] || fail 1 "LATENCY_MS needs $echo_module (libnginx-mod-http-echo)"
        fill[MODULES]="load_module $echo_module;"
    fi
    [ -n "${gzip_modes[$gzip]+known}" ] || fail 2 "GZIP is static, on or off, not $gzip"
    read -r on_the_fly precompressed <<< "${gzip_modes[$gzip]}"
    fill[GZIP]=$(printf '    %s\n' "gzip $on_the_fly;" "gzip_static $precompressed;" "gzip_comp_level ${GZIP_LEVEL:-1};")
    [ "${ACCESS_LOG:-0}" != 1 ] || fill[ACCESS_LOG]=access.log
    fill[FEEDS]=$(feeds_locations "$delay")
    [ "$precompressed" = off ] || python3 "$tools/precompress.py" "$farm/feeds"
    mkdir -p "$run/tmp"
    configuration fill > "$run/nginx.conf"
    # The prefix (-p) is where the configuration's relative paths start; it and -e also keep nginx
    # away from /etc/nginx and /var/log/nginx, which need root.
    local flags=(-p "$run/" -e "$run/error.log" -c "$run/nginx.conf")
    "$nginx" -q -t "${flags[@]}"
    "$nginx" "${flags[@]}"
    within 50 up "$port" || fail 1 "nginx did not start: see $run/error.log"
    echo "serving $farm on http://127.0.0.1:$port/feeds/ (pid $(pid); gzip $gzip, latency $delay ms, $workers worker(s))"
}

stop() {
    if ! serving; then
        rm -f "$pidfile"
        echo "not running"
        return
    fi
    local nginx_pid
    nginx_pid=$(pid)
    kill -QUIT "$nginx_pid"   # graceful: the workers finish the responses under way
    if within 100 gone "$nginx_pid"; then
        echo "stopped (pid $nginx_pid)"
        return
    fi
    kill -TERM "$nginx_pid" 2> /dev/null || true
    within 6 gone "$nginx_pid" || fail 1 "nginx $nginx_pid is still running"
    echo "stopped (pid $nginx_pid, after TERM)"
}

status() {
    serving || { echo "not running"; exit 1; }
    echo "running (pid $(pid))"
}

case $action in
    start) start "${3:-}" ;;
    stop | status) "$action" ;;
    *) usage ;;
esac
