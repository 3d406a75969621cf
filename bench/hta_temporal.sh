#!/bin/sh
# bench/hta_temporal.sh — TraceAnalysis(trace_dir=...) + get_temporal_breakdown,
# HTA's against kineta.hta's, side by side in one run (bench/python/bench_hta.py).
#   usage: bench/hta_temporal.sh [BUILD_DIR] [DIR]
# Without DIR, 4 synthetic ranks of 32 MiB (kineta-synth, made once in
# $KINETA_BENCH_DIR, default /tmp/kineta-bench).  HTA from ../shared/peers/hta.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
make -s PGO=0 "$build/kineta-synth" "$build/libkineta-py.so"
dir=${1:-$(bench_trace "$build" synth-4x32m --ranks 4 --size 32M)}
root=$(cd "$(dirname "$0")/.." && pwd)
KINETA_LIBRARY="$root/$build/libkineta-py.so" PYTHONPATH="${KINETA_HTA:-$root/../shared/peers/hta}" \
    /usr/bin/python3 "$root/bench/python/bench_hta.py" "$dir"
