#!/usr/bin/env bash
# fetch_curl.sh LIST PARALLEL [CURL_ARGS...]: the fetch stage alone. One curl process fetches every
# URL of LIST (a curl config file of `url = "..."` / `output = "..."` pairs), PARALLEL transfers at a
# time; CURL_ARGS go to curl as they are (e.g. --compressed, -H "If-Modified-Since: ..."). Prints
#   RESULT {"bytes": B, "codes": {"200": N, ...}}
# bytes as received on the wire (compressed when --compressed), then the transfers per HTTP status
# (000: failed), statuses in the order first seen.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 LIST PARALLEL [CURL_ARGS...]" >&2; exit 2; }
list=$1 parallel=$2
shift 2
# one line per transfer: its status and the bytes it received
# shellcheck disable=SC2016 # an awk program
summary='
    { received += $2 }
    !($1 in per_status) { statuses[++distinct] = $1 }
    { per_status[$1]++ }
    END {
        for (i = 1; i <= distinct; i++)
            codes = codes sprintf("%s\"%s\": %d", i > 1 ? ", " : "", statuses[i], per_status[statuses[i]])
        printf "RESULT {\"bytes\": %d, \"codes\": {%s}}\n", received, codes
    }'
curl --parallel --parallel-max "$parallel" --silent --show-error --max-time 60 \
    --write-out '%{http_code} %{size_download}\n' "$@" --config "$list" | awk "$summary"
