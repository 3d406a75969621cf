#!/bin/sh
# bench/patterns.sh — kineta patterns (issue 10): tables, overlay and --mine
# timed on a loaded trace, against the load time.
#   usage: bench/patterns.sh [BUILD_DIR] [TRACE...]
# Without TRACE, the 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).  The overlay
# goes to a temporary directory (under $KINETA_BENCH_OUT, else $TMPDIR or
# /tmp), removed afterwards.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" patterns
if [ $# -eq 0 ]; then
    set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)"
fi
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-patterns.XXXXXX")
trap 'rm -rf "$out"' EXIT
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_patterns" "$out" "$trace"
    rm -f "$out"/*
done
