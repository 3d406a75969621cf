#!/bin/sh
# bench/bench_kernels.sh — issue 3's analyses (kernels, breakdown, categories)
# timed against the load of the same trace; goal: each under 10% of the load.
#   usage: bench/bench_kernels.sh [BUILD_DIR] [TRACE...]
# Without TRACE, a 1 GiB single-rank synthetic trace (CUDA graphs, ns
# timestamps) is made once with kineta-synth in $KINETA_BENCH_DIR
# (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" kernels
[ $# -gt 0 ] || set -- "$(bench_trace "$build" synth-1g-graphs.json --size 1G --graphs --ns)"
ls -l "$@"
"$build/bench_kernels" "$@"
