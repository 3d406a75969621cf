#!/bin/sh
# bench/diff.sh — kineta diff (issue 11) timed against the two loads.
#   usage: bench/diff.sh [BUILD_DIR] [CONTROL TEST]
# Without CONTROL TEST, two 1 GiB single-rank synthetic traces (seeds 1 and
# 2, ns timestamps, 3 streams) are made once with kineta-synth in
# $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" diff
if [ $# -eq 0 ]; then
    set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)" \
        "$(bench_trace "$build" synth-1g-seed2.json --size 1G --streams 3 --ns --seed 2)"
fi
ls -l "$1" "$2"
"$build/bench_diff" "$1" "$2"
