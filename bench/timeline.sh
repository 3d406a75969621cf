#!/bin/sh
# bench/timeline.sh — issue 4's analyses (temporal, idle, overlap, gaps) timed
# against the load of the same trace.
#   usage: bench/timeline.sh [BUILD_DIR] [TRACE...]
# Without TRACE, a 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
make -s BUILD="$build" "$build/libkineta.a" "$build/kineta-synth"
cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Ilib -o "$build/bench_timeline" bench/timeline/bench_timeline.c \
    "$build/libkineta.a" -lisal -lz -lm -pthread
if [ $# -eq 0 ]; then
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
    trace="$dir/synth-1g.json"
    if [ ! -f "$trace" ]; then
        mkdir -p "$dir"
        "$build/kineta-synth" --size 1G --streams 3 --ns -o "$trace"
    fi
    set -- "$trace"
fi
ls -l "$@"
"$build/bench_timeline" "$@"
