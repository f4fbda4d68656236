#!/usr/bin/env bash
# fetch_curl.sh LIST PARALLEL [CURL_ARGS...]: the fetch stage alone. One curl process fetches every
# URL of LIST (a curl config file of `url = "..."` / `output = "..."` pairs), PARALLEL transfers at a
# time; CURL_ARGS go to curl as they are (e.g. --compressed, -H "If-Modified-Since: ..."). Prints
#   RESULT {"bytes": B, "codes": {"200": N, ...}}
# bytes as received on the wire (compressed when --compressed), counts per HTTP status (000: failed).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 LIST PARALLEL [CURL_ARGS...]" >&2; exit 2; }
list=$1 parallel=$2
shift 2
curl --parallel --parallel-max "$parallel" --silent --show-error --max-time 60 \
    --write-out '%{http_code} %{size_download}\n' "$@" --config "$list" |
    awk '{ count[$1]++; bytes += $2 }
         END {
             printf "RESULT {\"bytes\": %d, \"codes\": {", bytes
             sep = ""
             for (code in count) { printf "%s\"%s\": %d", sep, code, count[code]; sep = ", " }
             print "}}"
         }'
