#!/bin/sh
# bench/perf.sh — `kineta perf` (issue 18) timed on a large trace with shapes,
# beside the load time.
#   usage: bench/perf.sh [BUILD_DIR] [TRACE...]
# Without TRACE, a ~1 GiB trace is tiled once from the shared owlv2 h100 trace
# (record_shapes=True; the synthetic traces carry no Input Dims) by
# bench/perf/tile_trace.py into $KINETA_PERF_DIR (default /tmp/perf).
# Then `kineta perf --xlsx` (the workbook) and `kineta perf --compare` (the
# trace with itself) through the CLI: wall time and peak RSS (/usr/bin/time).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" perf
if [ $# -eq 0 ]; then
    dir=${KINETA_PERF_DIR:-/tmp/perf}
    mkdir -p "$dir"
    src=$(dirname "$0")/../../shared/traces/tracelens/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz
    [ -f "$dir/owlv2-tiled-1g.json" ] || python3 "$(dirname "$0")/perf/tile_trace.py" "$src" "$dir/owlv2-tiled-1g.json" 1074
    set -- "$dir/owlv2-tiled-1g.json"
fi
out=${KINETA_PERF_DIR:-/tmp/perf}
mkdir -p "$out"
for trace in "$@"; do
    ls -l "$trace"
    "$build/bench_perf" "$trace" "${KINETA_PERF_RUNS:-3}"
    /usr/bin/time -f "workbook (perf --xlsx)     %e s wall, %M KB peak RSS" \
        "$build/kineta" perf -q --format csv --table gpu_timeline --xlsx "$out/workbook.xlsx" "$trace" >/dev/null
    ls -l "$out/workbook.xlsx"
    /usr/bin/time -f "comparison (perf --compare) %e s wall, %M KB peak RSS" \
        "$build/kineta" perf -q --format csv --table gpu_timeline --compare "$trace" "$trace" >/dev/null
done
