#!/bin/sh
# bench/output.sh — what printing costs (issue 12's terminal output): the
# load alone (`kineta info`) beside commands whose output is large, in each
# format, median of RUNS (default 3) wall-clock runs.
#   usage: bench/output.sh [BUILD_DIR] [TRACE]
# Printing lives in the CLI (programs/print_tables.c, text_table.c), so this
# times the kineta binary rather than a bench_* program.  Without TRACE, a
# 1 GiB single-rank synthetic trace is made once in $KINETA_BENCH_DIR.
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
[ $# -gt 0 ] && shift
make -s BUILD="$build" "$build/kineta" "$build/kineta-synth"
trace=${1:-$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)}
runs=${RUNS:-3}

# "wall cpu" seconds of the run with the median wall time of $runs runs of
# "$@" (stdout discarded; cpu = user + system, steadier on a busy machine)
median() {
    i=0
    while [ $i -lt "$runs" ]; do
        /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1
        i=$((i + 1))
    done | sort -n | sed -n "$(( (runs + 1) / 2 ))p" | awk '{ printf "%.2f  %.2f", $1, $2 + $3 }'
}

ls -l "$trace"
printf '%-48s %s\n' "command" "wall s  cpu s"
k="$build/kineta"
for cmd in "info" "launch --table launches --format csv" "launch --table launches --format json" \
    "launch --table launches --format table" "kernels --top 0 --format csv" \
    "kernels --top 0 --format table" "kernels --top 0 --format table --verbose"; do
    # shellcheck disable=SC2086 # cmd is words
    printf '%-48s %s\n' "$cmd" "$(median "$k" $cmd -q "$trace")"
done
