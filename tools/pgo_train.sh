#!/bin/sh
# tools/pgo_train.sh KINETA SYNTH DIR — the workload a profile-guided
# release build is compiled for (Makefile: PGO).
#
# KINETA is the instrumented CLI; it runs the loader and every command on
# traces SYNTH writes into DIR: a large one, a ROCm one with graph replays,
# two ranks with collectives, and one in each layout below.  gcc then lays out and inlines the code
# for the paths these runs took, and optimizes the rest as usual
# (-fprofile-partial-training).  The traces are the synthesizer's, so a
# fresh clone trains without ../shared.  Every build gets the same counts,
# and so the same code: one thread per run (--jobs 1; the threaded paths,
# the gzip reader's among them, are optimized as usual) and no address
# randomization (setarch -R), since gcc also records pointer values to
# learn their alignment.  Outputs are discarded; a command that fails
# stops the build.
set -eu
kineta=$1
synth=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir/ranks" "$dir/out"
"$synth" --size 24M --streams 3 -o "$dir/big.json" >/dev/null
"$synth" --size 12M --ns -o "$dir/cuda.json" >/dev/null
"$synth" --vendor rocm --graphs --size 6M -o "$dir/rocm.json" >/dev/null
"$synth" --ranks 2 --size 4M --collectives -o "$dir/ranks" >/dev/null
# The other layouts users bring (docs/layouts.md): one compact event per
# line, indent=2, members in sorted order.  Their parse paths differ, so
# each is trained (without python3 only Kineto's own layout is).
layouts=
if command -v python3 >/dev/null; then
    tile=$(dirname "$0")/../bench/tile_trace.py
    python3 "$tile" "$dir/cuda.json" "$dir/compact.json" 8 >/dev/null
    python3 "$tile" "$dir/cuda.json" "$dir/indent2.json" 8 --indent 2 >/dev/null
    python3 "$tile" "$dir/cuda.json" "$dir/sorted.json" 8 --sort-keys >/dev/null
    layouts="$dir/compact.json $dir/indent2.json $dir/sorted.json"
fi

norandom=
setarch "$(uname -m)" -R true 2>/dev/null && norandom="setarch $(uname -m) -R"
run() {
    # shellcheck disable=SC2086
    $norandom "$kineta" "$@" >/dev/null 2>&1 || { echo "tools/pgo_train.sh: failed: kineta $*" >&2; exit 1; }
}

run info --jobs 1 "$dir/big.json"
run report --jobs 1 -o "$dir/report.html" "$dir/big.json"
for f in "$dir/cuda.json" "$dir/rocm.json"; do
    for c in kernels breakdown categories temporal idle overlap gaps launch queue memcpy-bw \
        annotations ops cupti memory perf; do
        run "$c" --jobs 1 "$f"
    done
    run counters --jobs 1 -o "$dir/out" "$f"
    run patterns --jobs 1 -o "$dir/out" "$f"
    run patterns --mine --jobs 1 "$f"
    run critical-path --jobs 1 -o "$dir/out" "$f"
    run diff --jobs 1 "$f" "$f"
    run export --sqlite "$dir/x.db" --jobs 1 "$f"
    rm -rf "$dir/x.db" "$dir/out"/*
done
for f in $layouts; do
    run info --jobs 1 "$f"
    run report --jobs 1 -o "$dir/report.html" "$f"
    run export --sqlite "$dir/x.db" --jobs 1 "$f"
    run patterns --jobs 1 -o "$dir/out" "$f"
    rm -rf "$dir/x.db" "$dir/out"/*
done
run collectives --jobs 1 "$dir/ranks"
run stragglers --jobs 1 "$dir/ranks"
run report --jobs 1 -o "$dir/report.html" "$dir/ranks"
