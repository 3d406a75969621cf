#!/bin/sh
# bench/hta_compat.sh — what --hta-compat adds to a load: `kineta info` with
# and without it on the same trace in one run, the median of $RUNS (default
# 3) wall times and that run's user + sys CPU.  The two alternate, run by
# run, so that a busy machine's changing load falls on both alike.
#   usage: bench/hta_compat.sh [BUILD_DIR] [TRACE]
# Without TRACE, the 1 GiB single-rank synthetic trace with ns timestamps
# (HTA rounds those to µs) is made once with kineta-synth in
# $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
bench_cli_args "$@"
ls -l "$trace"
runs=${RUNS:-3}
out=$(mktemp)
trap 'rm -f "$out" "$out.c"' EXIT
run=0
while [ $run -lt "$runs" ]; do
    bench_median 1 "$build/kineta" info -q "$trace" >>"$out" && echo >>"$out"
    bench_median 1 "$build/kineta" info -q --hta-compat "$trace" >>"$out.c" && echo >>"$out.c"
    run=$((run + 1))
done
median() { sort -n "$1" | sed -n "$(( (runs + 1) / 2 ))p"; }
# shellcheck disable=SC2046 # two numbers each
set -- $(median "$out") $(median "$out.c")
printf '%-14s %8s %8s\n' load wall_s cpu_s default "$1" "$2" --hta-compat "$3" "$4"
printf 'ratio          %8.2fx %7.2fx\n' "$(echo "$3 / $1" | bc -l)" "$(echo "$4 / $2" | bc -l)"
