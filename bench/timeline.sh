#!/bin/sh
# bench/timeline.sh — issue 4's analyses (temporal, idle, overlap, gaps) timed
# against the load of the same trace.
#   usage: bench/timeline.sh [BUILD_DIR] [TRACE...]
# Without TRACE, a 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" timeline
[ $# -gt 0 ] || set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)"
ls -l "$@"
"$build/bench_timeline" "$@"
