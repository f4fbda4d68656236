#!/usr/bin/env bash
# serve.sh start FARM PORT | stop FARM | status FARM
# Serves a farm made by gen_farm.py with Debian's nginx on 127.0.0.1:PORT: /feeds/NAME, /farm.opml
# and /urls; anything else is 404. The pid file is FARM/nginx.pid; the configuration, error log and
# access log go to FARM/.nginx/. Read by `start`:
#   GZIP=static   (default) answer gzip requests with NAME.gz made here once (precompress.py), so
#                 nginx spends no CPU on compression during a measurement; `on`: nginx compresses
#                 each response at GZIP_LEVEL (default 1); `off`: never
#   LATENCY_MS=N  wait N ms before each /feeds/ response (echo_sleep, from the Debian package
#                 libnginx-mod-http-echo; default 0)
#   WORKERS=N     nginx worker processes (default 1: the client gets the other core)
#   ACCESS_LOG=1  write FARM/.nginx/access.log (nginx's combined format; default off)
#   NGINX=PATH    the nginx binary (default the one on PATH, else /usr/sbin/nginx)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { echo "usage: $0 start FARM PORT | stop FARM | status FARM" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
farm=$(cd "$2" && pwd)
pidfile=$farm/nginx.pid
run=$farm/.nginx

alive() { [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2> /dev/null; }
listening() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

feeds_location() {  # the /feeds/ location block, with or without the added latency
    local ms=$1
    if [ "$ms" = 0 ]; then
        echo "        location /feeds/ { }"
        return
    fi
    # echo_exec hands the request to an internal location once the sleep is over; echo_sleep does
    # not block the worker, so responses still overlap as they would over a real network.
    # shellcheck disable=SC2016 # $uri is nginx's variable, not the shell's
    printf '        location /feeds/ {\n            echo_sleep %s;\n            echo_exec /_origin$uri;\n        }\n' \
        "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
    printf '        location /_origin/feeds/ {\n            internal;\n            alias %s/feeds/;\n        }\n' "$farm"
}

start() {
    local port=${1:?usage: $0 start FARM PORT}
    local nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
    local ms=${LATENCY_MS:-0} mode=${GZIP:-static} workers=${WORKERS:-1}
    local modules="" static=off on_the_fly=off log=off
    [ -x "$nginx" ] || { echo "nginx not found (make bench-e2e-deps)" >&2; exit 1; }
    [ -d "$farm/feeds" ] || { echo "$farm has no feeds/: make it with bench/farm/gen_farm.py" >&2; exit 1; }
    if alive; then echo "already serving $farm (pid $(cat "$pidfile"))" >&2; exit 1; fi
    if listening "$port"; then echo "port $port is taken" >&2; exit 1; fi
    if [ "$ms" != 0 ]; then
        local echo_module=/usr/lib/nginx/modules/ngx_http_echo_module.so
        [ -f "$echo_module" ] || { echo "LATENCY_MS needs $echo_module (libnginx-mod-http-echo)" >&2; exit 1; }
        modules="load_module $echo_module;"
    fi
    case $mode in
        static) static=on; python3 "$here/precompress.py" "$farm/feeds" ;;
        on) on_the_fly=on ;;
        off) ;;
        *) echo "GZIP is static, on or off, not $mode" >&2; exit 2 ;;
    esac
    [ "${ACCESS_LOG:-0}" != 1 ] || log=$run/access.log
    mkdir -p "$run/tmp"
    local conf
    conf=$(< "$here/nginx.conf.in")
    shopt -u patsub_replacement 2> /dev/null || true   # an & in a path stays an &
    conf=${conf//%MODULES%/$modules}
    conf=${conf//%WORKERS%/$workers}
    conf=${conf//%FARM%/$farm}
    conf=${conf//%RUN%/$run}
    conf=${conf//%PORT%/$port}
    conf=${conf//%GZIP_ON_THE_FLY%/$on_the_fly}
    conf=${conf//%GZIP_STATIC%/$static}
    conf=${conf//%GZIP_LEVEL%/${GZIP_LEVEL:-1}}
    conf=${conf//%ACCESS_LOG%/$log}
    conf=${conf//%FEEDS%/$(feeds_location "$ms")}
    printf '%s\n' "$conf" > "$run/nginx.conf"
    # -p and -e keep nginx away from /var/log/nginx and /etc/nginx, which need root.
    "$nginx" -q -t -p "$run/" -e "$run/error.log" -c "$run/nginx.conf"
    "$nginx" -p "$run/" -e "$run/error.log" -c "$run/nginx.conf"
    for _ in $(seq 50); do
        if alive && listening "$port"; then
            echo "serving $farm on http://127.0.0.1:$port/feeds/ (pid $(cat "$pidfile"); gzip $mode, latency $ms ms, $workers worker(s))"
            return
        fi
        sleep 0.1
    done
    echo "nginx did not start: see $run/error.log" >&2
    exit 1
}

stop() {
    if ! alive; then
        rm -f "$pidfile"
        echo "not running"
        return
    fi
    local pid
    pid=$(cat "$pidfile")
    kill -QUIT "$pid"   # graceful: the workers finish the responses under way
    for _ in $(seq 100); do
        kill -0 "$pid" 2> /dev/null || { echo "stopped (pid $pid)"; return; }
        sleep 0.1
    done
    kill -TERM "$pid" 2> /dev/null || true
    sleep 0.5
    if kill -0 "$pid" 2> /dev/null; then echo "nginx $pid is still running" >&2; exit 1; fi
    echo "stopped (pid $pid, after TERM)"
}

case $action in
    start) start "${3:-}" ;;
    stop) stop ;;
    status) if alive; then echo "running (pid $(cat "$pidfile"))"; else echo "not running"; exit 1; fi ;;
    *) usage ;;
esac
