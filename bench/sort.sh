#!/bin/sh
# bench/sort.sh — the radix sorts and run merges of model/radix.c on the key
# shapes traces give them (bench/sort/bench_sort.c), in ns per key.
#   usage: bench/sort.sh [BUILD_DIR] [N]
set -eu
build=${1:-build}
make -s BUILD="$build" "$build/bench_sort"
"$build/bench_sort" "${2:-1000000}"
