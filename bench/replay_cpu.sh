#!/bin/sh
# bench/replay_cpu.sh — every op `kineta replay` writes for the perf sheets'
# roofline rows of the five shared H100 traces, run once on the CPU at its
# recorded size with Debian's python3-torch (tests/replay_check.py --times:
# one python process, inputs checked against TraceLens's sheets): each op's
# time, slowest first, each trace's total, the count of ops run and of ops
# this torch lacks, and the whole run's wall and CPU time (/usr/bin/time).
#   usage: bench/replay_cpu.sh [BUILD_DIR]
# KINETA_PYTHON picks the interpreter (default /usr/bin/python3, which has
# Debian's torch; pyenv's python3 on PATH does not).
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
bench_cli "$build"
root=$(dirname "$0")/..
shared=$root/../shared
work=$(mktemp -d /tmp/kineta-replay-cpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -f "all five traces: %e s wall, %U s user, %S s system, %M KB peak RSS" \
    "${KINETA_PYTHON:-/usr/bin/python3}" "$root/tests/replay_check.py" --times "$build/kineta" "$work" \
    "$shared/oracle/tracelens/h100" cpu "$shared"/traces/tracelens/h100/*.json.gz
