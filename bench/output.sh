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
bench_cli_args "$@"
runs=${RUNS:-3}

ls -l "$trace"
printf '%-48s %s\n' "command" "wall s  cpu s"
k="$build/kineta"
for cmd in "info" "launch --table launches --format csv" "launch --table launches --format json" \
    "launch --table launches --format table" "kernels --top 0 --format csv" \
    "kernels --top 0 --format table" "kernels --top 0 --format table --verbose"; do
    # shellcheck disable=SC2086 # cmd is words
    printf '%-48s %s\n' "$cmd" "$(bench_median "$runs" "$k" $cmd -q "$trace")"
done
