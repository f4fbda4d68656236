#!/usr/bin/env bash
# `make test` step: the bash completion loads and completes commands and options.
set -euo pipefail
cd "$(dirname "$0")"
source ./aggregatorctl.bash
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _aggregatorctl; echo "${COMPREPLY[*]}"; }
[ "$(complete_words aggregatorctl sea)" = "search" ]
[ "$(complete_words aggregatorctl articles --so)" = "--sort" ]
[ "$(complete_words aggregatorctl articles --sort ti)" = "title" ]
[ "$(complete_words aggregatorctl watch --so)" = "" ]  # a watch takes no order or paging
[ "$(complete_words aggregatorctl watch --si)" = "--since" ]
[ "$(complete_words aggregatorctl token cr)" = "create" ]
[ "$(complete_words aggregatorctl user ren)" = "rename" ]
[ "$(complete_words aggregatorctl user rem)" = "remove" ]
[ "$(complete_words aggregatorctl --us)" = "--user" ]
# Every command the built client lists in its help completes (the two never drift apart).
client=../.build/release/aggregatorctl
if [ -x "$client" ]; then
    for command in $("$client" --help | sed -n '/^COMMANDS:/,/^$/p' | awk 'NF && !/COMMANDS:/ {print $1}'); do
        [ "$(complete_words aggregatorctl "$command")" != "" ] || { echo "check-completion: '$command' does not complete" >&2; exit 1; }
        [[ " $(complete_words aggregatorctl "") " == *" $command "* ]] || { echo "check-completion: '$command' missing" >&2; exit 1; }
    done
fi
echo "check-completion: bash completion works"
