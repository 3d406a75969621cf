#!/bin/sh
# bench/queue.sh — launch, queue, memcpy-bw and counters (issue 4) timed on a
# loaded trace, plus the counters writer's speed on plain and gzip input.
#   usage: bench/queue.sh [BUILD_DIR] [TRACE...]
# Without TRACE, 1 GiB single-rank synthetic traces (plain and gzip) are
# made once with kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).
# The trace copies go to a temporary directory (under $KINETA_BENCH_OUT, e.g.
# /dev/shm to leave the disk out, else $TMPDIR or /tmp), removed afterwards.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" queue
if [ $# -eq 0 ]; then
    set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)" \
        "$(bench_trace "$build" synth-1g.json.gz --size 1G --streams 3 --ns --gzip)"
fi
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-queue.XXXXXX")
trap 'rm -rf "$out"' EXIT
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_queue" "$out" "$trace"
    rm -f "$out"/*
done
