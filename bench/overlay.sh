#!/bin/sh
# bench/overlay.sh — what writing an overlay costs, against copying the same
# bytes: `patterns` and `critical-path` with -o DIR and with --no-overlay,
# `counters -o DIR` (the same writer, events appended only) and `cp` of the
# trace, interleaved in each round so all see the same machine.  The
# overlay's cost is the difference of the two runs of a command; the goal
# is at most 1.2x the cp.
#   usage: bench/overlay.sh [BUILD_DIR] [TRACE]
# Without TRACE, the 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).  Copies
# and overlays go to a temporary directory under $KINETA_BENCH_OUT (else
# $TMPDIR or /tmp), on the file system they would be written to in use.
# KINETA_BENCH_RUNS rounds (default 3); each row is the median wall (s).
# PGO=0 builds without profile-guided optimization (as make PGO=0).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
make -s BUILD="$build" ${PGO:+PGO=$PGO} "$build/kineta" "$build/kineta-synth"
trace=${1:-$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)}
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-overlay.XXXXXX")
trap 'rm -rf "$out"' EXIT
runs=${KINETA_BENCH_RUNS:-3}

# Seconds a command takes (its output discarded), from date's nanoseconds.
wall() {
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e9 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

cat "$trace" >/dev/null # in the page cache, as after the profiler wrote it
# Each round appends its times to $out/<command>.t; the copies are removed
# as soon as they are timed (removing everything in $out at the start of a
# round kept only the last round's times).
for r in $(seq "$runs"); do
    wall cp "$trace" "$out/copy.json" >>"$out/cp.t"
    rm -f "$out/copy.json"
    wall "$build/kineta" patterns "$trace" --no-overlay >>"$out/patterns-no.t"
    wall "$build/kineta" patterns "$trace" -o "$out" >>"$out/patterns-o.t"
    rm -f "$out"/*.json
    wall "$build/kineta" critical-path "$trace" --no-overlay >>"$out/critical-path-no.t"
    wall "$build/kineta" critical-path "$trace" -o "$out" >>"$out/critical-path-o.t"
    rm -f "$out"/*.json
    wall "$build/kineta" counters "$trace" -o "$out" >>"$out/counters-o.t"
    rm -f "$out"/*.json
done
m() { median <"$out/$1.t"; }
cp_s=$(m cp)
printf 'trace %s (%s bytes), %s rounds, median wall in s\n' "$trace" "$(stat -c %s "$trace")" "$runs"
printf '%-14s %8s %8s %10s %12s\n' command no-overlay -o overlay "overlay/cp"
for name in patterns critical-path; do
    no=$(m "$name-no")
    with=$(m "$name-o")
    echo "$name $no $with $cp_s" | awk '{ d = $3 - $2; printf "%-14s %8.3f %8.3f %10.3f %12.2f\n", $1, $2, $3, d, d / $4 }'
done
printf '%-14s %8s %8.3f\n' counters "" "$(m counters-o)"
printf '%-14s %8s %8.3f\n' cp "" "$cp_s"
printf 'machine: %s, %s cores, %s GiB; output on %s\n' \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" "$(nproc)" \
    "$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)" "$(df -T "$out" | awk 'NR == 2 { print $2 }')"
