#!/usr/bin/env bash
# `make test` step: the bash completion loads and completes commands and options.
set -euo pipefail
cd "$(dirname "$0")"
source ./aggregatorctl.bash
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _aggregatorctl; echo "${COMPREPLY[*]}"; }
[ "$(complete_words aggregatorctl sea)" = "search" ]
[ "$(complete_words aggregatorctl articles --so)" = "--sort" ]
[ "$(complete_words aggregatorctl articles --sort ti)" = "title" ]
echo "check-completion: bash completion works"
