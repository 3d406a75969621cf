#!/bin/sh
# bench/hta_compat.sh — what --hta-compat adds to a load: `kineta info` with
# and without it on the same trace in one run, the median of $RUNS (default
# 3) wall times and that run's user + sys CPU.
#   usage: bench/hta_compat.sh [BUILD_DIR] [TRACE]
# Without TRACE, the 1 GiB single-rank synthetic trace with ns timestamps
# (HTA rounds those to µs) is made once with kineta-synth in
# $KINETA_BENCH_DIR (default /tmp/kineta-bench).
set -eu
. "$(dirname "$0")/common.sh"
bench_cli_args "$@"
ls -l "$trace"
# shellcheck disable=SC2046 # two numbers each
set -- $(bench_median "${RUNS:-3}" "$build/kineta" info -q "$trace") \
    $(bench_median "${RUNS:-3}" "$build/kineta" info -q --hta-compat "$trace")
printf '%-14s %8s %8s\n' load wall_s cpu_s default "$1" "$2" --hta-compat "$3" "$4"
printf 'ratio          %8.2fx %7.2fx\n' "$(echo "$3 / $1" | bc -l)" "$(echo "$4 / $2" | bc -l)"
