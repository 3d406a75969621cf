#!/bin/sh
# bench/report.sh — `kineta report` (issue 12) timed against loading, and
# its page size, on 8 synthesized ranks and 64 small ones.
#   usage: bench/report.sh [BUILD_DIR] [RUNS]
# The traces are made once with kineta-synth in $KINETA_BENCH_DIR (default
# /tmp/kineta-bench): 8 ranks x 64 MiB and 64 ranks x 1 MiB.  The page is
# written to a temporary file, removed afterwards.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
runs=${2:-3}
bench_program "$build" report
dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
mkdir -p "$dir"
[ -d "$dir/synth-8r-64m" ] || "$build/kineta-synth" --ranks 8 --size 64M -o "$dir/synth-8r-64m" >/dev/null
[ -d "$dir/synth-64r-1m" ] || "$build/kineta-synth" --ranks 64 --size 1M -o "$dir/synth-64r-1m" >/dev/null
out=$(mktemp "${TMPDIR:-/tmp}/kineta-report.XXXXXX.html")
trap 'rm -f "$out"' EXIT
for set in synth-8r-64m synth-64r-1m; do
    echo "== $set ($(du -sh "$dir/$set" | cut -f1))"
    i=0
    while [ $i -lt "$runs" ]; do
        "$build/bench_report" "$out" "$dir/$set"/rank-*
        i=$((i + 1))
    done
done
