#!/usr/bin/env bash
# scripts/timed.sh NAME COMMAND...: runs COMMAND, then says how long it took on stderr
# ("make test: NAME: 3m12s"), so a run of `make test` gives the figure of each of its parts.
set -uo pipefail
name=$1
shift
start=$(date +%s)
rc=0
"$@" || rc=$?
took=$(($(date +%s) - start))
status=""
[[ $rc -ne 0 ]] && status=" (failed, exit $rc)"
printf 'make test: %s: %dm%02ds%s\n' "$name" $((took / 60)) $((took % 60)) "$status" >&2
exit "$rc"
