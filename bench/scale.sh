#!/bin/sh
# bench/scale.sh — streamed ranks and MPI (issue 14): peak RSS and time of
# `kineta temporal` all-in-memory vs --stream-ranks on 8 and 64 synthesized
# gzip ranks of 64 MB, 8 and 64 ranks of 1 GB (one 1 GiB trace linked 64
# times, given their ranks with --file-ranks), mpirun when present, and the
# map / partial size / reduce figures of bench_scale.
#   usage: bench/scale.sh [BUILD_DIR]
set -eu
. "$(dirname "$0")/common.sh"
build=${1:-build}
bench_program "$build" scale
big=$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-scale.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$build/kineta-synth" --ranks 64 --size 64M --ns --gzip --seed 11 -o "$out/g64" >/dev/null
rm -f "$out/g64/truth.json"
mkdir "$out/g8" "$out/big"
for i in 0 1 2 3 4 5 6 7; do ln -s "$out/g64/rank-$i.json.gz" "$out/g8/"; done
i=0
while [ $i -lt 64 ]; do ln -s "$big" "$out/big/rank-$i.json"; i=$((i + 1)); done
big8=$(for i in 0 1 2 3 4 5 6 7; do printf '%s ' "$out/big/rank-$i.json"; done)
big64=$(ls "$out"/big/rank-*.json | sort -V | tr '\n' ' ')
measure() { # label, then the command
    label=$1
    shift
    /usr/bin/time -f "$label: %e s, peak RSS %M KB" "$@" >/dev/null
}
for d in g8 g64; do
    measure "$d load only (info)" "$build/kineta" info -q --format csv "$out/$d"
    measure "$d temporal in memory" "$build/kineta" temporal -q --format csv "$out/$d"
    for j in 1 2; do
        measure "$d temporal --stream-ranks --jobs $j" "$build/kineta" temporal -q --format csv --stream-ranks \
            --jobs $j "$out/$d"
    done
done
# shellcheck disable=SC2086
measure "8x1GB temporal in memory" "$build/kineta" temporal -q --format csv --file-ranks 0-7 $big8
for j in 1 2; do
    # shellcheck disable=SC2086
    measure "8x1GB temporal --stream-ranks --jobs $j" "$build/kineta" temporal -q --format csv --stream-ranks \
        --jobs $j --file-ranks 0-7 $big8
done
# shellcheck disable=SC2086
measure "64x1GB temporal --stream-ranks --jobs 2" "$build/kineta" temporal -q --format csv --stream-ranks \
    --jobs 2 --file-ranks 0-63 $big64
if command -v mpirun >/dev/null && [ -x "$build/kineta-mpi" ]; then
    # shellcheck disable=SC2086
    measure "64x1GB mpirun -n 2 kineta-mpi temporal --jobs 1" mpirun --allow-run-as-root --oversubscribe -n 2 \
        "$build/kineta-mpi" temporal -q --format csv --jobs 1 --file-ranks 0-63 $big64
fi
"$build/bench_scale" "$big" 0
"$build/kineta-synth" --size 1M --ns -o "$out/small.json" >/dev/null
"$build/bench_scale" "$out/small.json" 1024
