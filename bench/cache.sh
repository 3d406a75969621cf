#!/bin/sh
# bench/cache.sh — the columnar cache (--cache) end to end: every analysis
# command on a trace from its JSON and from its cache file, `cat` of the
# cache file, and bench_cache's split of kt_load (parse, write, map).
#   usage: bench/cache.sh [BUILD_DIR] [TRACE]
# Without TRACE, the 1 GiB single-rank synthetic trace is made once with
# kineta-synth in $KINETA_BENCH_DIR (default /tmp/kineta-bench).  The cache
# and the counters' trace copies go to a temporary directory (under
# $KINETA_BENCH_OUT, else $TMPDIR or /tmp), removed afterwards.
# Times are medians of $RUNS runs (default 3).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
bench_program "$build" cache
trace=${1:-$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)}
runs=${RUNS:-3}
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-cache.XXXXXX")
trap 'rm -rf "$out"' EXIT
cache="$out/cache"

# median wall time of RUNS runs of a command (stdout discarded)
med() {
    i=0
    while [ $i -lt "$runs" ]; do
        s=$(date +%s.%N)
        "$@" >/dev/null
        e=$(date +%s.%N)
        echo "$e - $s" | bc
        i=$((i + 1))
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}

ls -l "$trace"
"$build/bench_cache" "$cache" "$trace" "$runs"
"$build/kineta" info -q --cache="$cache" "$trace" >/dev/null # make sure it is written
file=$(ls "$cache"/*.ktc)
printf '%-10s %9s %9s %8s\n' command json cached speedup
printf '%-10s %9s\n' cat "$(med cat "$file")"
for cmd in info kernels temporal idle launch queue counters; do
    o=
    if [ $cmd = counters ]; then o="-o $out/counters"; mkdir -p "$out/counters"; fi
    j=$(med sh -c "rm -f $out/counters/*; exec $build/kineta $cmd -q --format csv $o $trace")
    c=$(med sh -c "rm -f $out/counters/*; exec $build/kineta $cmd -q --format csv --cache=$cache $o $trace")
    printf '%-10s %9s %9s %7.1fx\n' $cmd "$j" "$c" "$(echo "$j / $c" | bc -l)"
done
