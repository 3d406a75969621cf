#!/bin/sh
# bench/attrib.sh — annotations, ops, cupti and memory (issue 11) timed on a
# loaded trace, beside the load time.
#   usage: bench/attrib.sh [BUILD_DIR] [TRACE...]
# Without TRACE: the 1 GiB single-rank synthetic trace (made once with
# kineta-synth in $KINETA_BENCH_DIR, default /tmp/kineta-bench) and a
# 100 MB CUPTI range-profiler trace made by bench/attrib/cupti_trace.py.
# Each trace: all four in one process, then ops, cupti and memory alone
# (the first analysis needing the call tree pays for building it).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" attrib
if [ $# -eq 0 ]; then
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
    cupti="$dir/cupti-100m.json"
    [ -f "$cupti" ] || python3 "$(dirname "$0")/attrib/cupti_trace.py" "$cupti" 100 >/dev/null
    set -- "$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)" "$cupti"
fi
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_attrib" "$trace"
    for a in ops cupti memory; do "$build/bench_attrib" "$trace" $a | grep -v '^load'; done
done
