#!/bin/sh
# bench/queue.sh — launch, queue, memcpy-bw and counters (issue 4) timed on a
# loaded trace, plus the counters writer's speed on plain and gzip input.
#   usage: bench/queue.sh [BUILD_DIR] [TRACE...]
# Without TRACE, 1 GiB single-rank synthetic traces (plain and gzip) are
# made once with kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).
# The trace copies go to a temporary directory (under $KINETA_BENCH_OUT, e.g.
# /dev/shm to leave the disk out, else $TMPDIR or /tmp), removed afterwards.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
make -s BUILD="$build" "$build/libkineta.a" "$build/kineta-synth"
cc -std=c11 -O2 -D_GNU_SOURCE -Ilib -o "$build/bench_queue" bench/queue/bench_queue.c \
    "$build/libkineta.a" -lisal -lz -lm -pthread
if [ $# -eq 0 ]; then
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
    mkdir -p "$dir"
    for ext in json json.gz; do
        trace="$dir/synth-1g.$ext"
        [ -f "$trace" ] || "$build/kineta-synth" --size 1G --streams 3 --ns \
            $([ "$ext" = json.gz ] && echo --gzip) -o "$trace"
    done
    set -- "$dir/synth-1g.json" "$dir/synth-1g.json.gz"
fi
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-queue.XXXXXX")
trap 'rm -rf "$out"' EXIT
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_queue" "$out" "$trace"
    rm -f "$out"/*
done
