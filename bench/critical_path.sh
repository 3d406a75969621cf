#!/bin/sh
# bench/critical_path.sh — critical-path (issue 10) timed on a loaded trace:
# the command with its default window (one ProfilerStep) and on the whole
# trace, then the whole-trace graph build and longest path alone, with the
# graph's memory per event.
#   usage: bench/critical_path.sh [BUILD_DIR] [TRACE...]
# Without TRACE, the 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" critical_path
if [ $# -eq 0 ]; then
    set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)"
fi
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_critical_path" "$trace"
done
