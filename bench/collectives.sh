#!/bin/sh
# bench/collectives.sh — `kineta collectives` against `kineta info` on the same
# multi-rank files (issue 13: collectives within 1.2x of info), through the CLI
# (each command loads the trace itself) and on a loaded trace (bench_collectives).
#   usage: bench/collectives.sh [BUILD_DIR] [TRACE_DIR]
# Without TRACE_DIR, 64 ranks x 64 MiB of kineta-synth --collectives (gzip) are
# made once in $KINETA_BENCH_DIR (default /tmp/kineta-bench).  RUNS (default 3)
# alternating runs of each command; the table shows every wall time and peak RSS.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
bench_program "$build" collectives
make -s BUILD="$build" "$build/kineta"
dir=${2:-}
if [ -z "$dir" ]; then
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}/coll-64x64m
    [ -f "$dir/truth.json" ] || "$build/kineta-synth" --ranks 64 --size 64M --gzip --collectives \
        --clock-skew 2000 --straggler 5:300 -o "$dir" >/dev/null
fi
du -sh "$dir"
for i in $(seq "${RUNS:-3}"); do
    for cmd in info collectives; do
        /usr/bin/time -f "$cmd run $i: %e s wall, %U s user, %S s sys, %M KB peak RSS" \
            "$build/kineta" "$cmd" -q --format json -o /dev/null "$dir"/rank-*
    done
done
"$build/bench_collectives" "$dir"/rank-*
