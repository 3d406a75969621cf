#!/bin/sh
# bench/bench_kernels.sh — issue 3's analyses (kernels, breakdown, categories)
# timed against the load of the same trace; goal: each under 10% of the load.
#   usage: bench/bench_kernels.sh [BUILD_DIR] [TRACE...]
# Without TRACE, a 1 GiB single-rank synthetic trace (CUDA graphs, ns
# timestamps) is made once with kineta-synth in $KINETA_BENCH_DIR
# (default /tmp/kineta-bench).
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
make -s BUILD="$build" "$build/libkineta.a" "$build/kineta-synth"
cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -o "$build/bench_kernels" bench/kernels/bench_kernels.c \
    "$build/libkineta.a" -lisal -lz -lm -pthread
if [ $# -eq 0 ]; then
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
    trace="$dir/synth-1g-graphs.json"
    if [ ! -f "$trace" ]; then
        mkdir -p "$dir"
        "$build/kineta-synth" --size 1G --graphs --ns -o "$trace"
    fi
    set -- "$trace"
fi
ls -l "$@"
"$build/bench_kernels" "$@"
