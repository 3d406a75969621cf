#!/bin/sh
# bench/host.sh — the host's floors under the loader's targets, beside
# `cat` of the same file (bench/host/bench_host.c): fresh memory for a
# model of MB megabytes (default 420: real-1g.json's peak RSS), the file
# read with pread and through a mapping, and the first stage of a SIMD
# JSON parser over it, each on two threads; and the floor of the commands
# that write a trace copy (counters, patterns -o, critical-path -o): `cp`
# of the file into $KINETA_BENCH_OUT (else $TMPDIR or /tmp), where
# bench/layouts.sh puts their outputs (on the input's file system, cp
# copies inside the kernel, as counters and critical-path -o do for
# their long unedited runs), and `dd` of it there through user memory
# (read/write in 256 KiB blocks, as trace_sink.c writes), the floor of
# patterns -o, whose edits leave runs too short for a copy inside the
# kernel.  Run it on the file as the page cache holds it (bench/layouts.sh
# sets that state for its tables).
#   usage: bench/host.sh [BUILD_DIR] FILE [MB]
set -eu
build=${1:-build}
file=${2:?usage: bench/host.sh [BUILD_DIR] FILE [MB]}
make -s BUILD="$build" "$build/bench_host"
cat "$file" >/dev/null
/usr/bin/time -f "cat of the file:                      %e s" cat "$file" 2>&1 >/dev/null
"$build/bench_host" "${3:-420}" "$file"
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-host.XXXXXX")
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f "cp of the file beside the outputs:    %e s (CPU %U + %S s)" cp "$file" "$out/copy.json" 2>&1
rm -f "$out/copy.json"
/usr/bin/time -f "dd of the file through user memory:   %e s (CPU %U + %S s)" \
    dd if="$file" of="$out/copy.json" bs=256K status=none 2>&1
