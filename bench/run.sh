#!/bin/sh
# bench/run.sh BUILD — loader throughput and memory (make bench).
#
# Synthesizes a 1 GiB single-rank trace (plain and gzip; KINETA_BENCH_SIZE to
# change) once into $KINETA_BENCH_DIR (default /tmp/kineta-bench-load), then
# times, side by side: reading the file (cat), `kineta info` (the whole CLI:
# load + indexes + a summary) under /usr/bin/time, and kineta-bench (kt_load
# alone) with 1 and 2 threads.  Results vary 1.5-2x between runs on shared
# machines: compare numbers from one run.  Each row is run KINETA_BENCH_RUNS
# times (default 5): median and best wall, largest peak RSS.
set -eu
build=${1:-build}
size=${KINETA_BENCH_SIZE:-1G}
dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench-load}
plain="$dir/synth-$size.json"
gz="$plain.gz"
mkdir -p "$dir"
[ -f "$plain" ] || "$build/kineta-synth" --size "$size" --ns -o "$plain" >/dev/null
[ -f "$gz" ] || "$build/kineta-synth" --size "$size" --ns --gzip -o "$gz" >/dev/null
cat "$plain" "$gz" >/dev/null # into the page cache

mb() { echo "$1" | awk '{printf "%.0f", $1 / 1e6}'; }
json_bytes=$(wc -c <"$plain")
gz_bytes=$(wc -c <"$gz")
echo "trace: $plain ($(mb "$json_bytes") MB JSON; gzip $(mb "$gz_bytes") MB)"
echo
# /usr/bin/time reports peak RSS in KiB; MB below are 10^6 bytes.
runs=${KINETA_BENCH_RUNS:-5}
printf '| command | median wall s | best wall s | JSON MB/s (median) | peak RSS MB | RSS / JSON |\n|---|---|---|---|---|---|\n'
row() { # label, command...
    label=$1
    shift
    i=0
    samples=""
    while [ "$i" -lt "$runs" ]; do
        samples="$samples$( { /usr/bin/time -f '%e %M' "$@" >/dev/null; } 2>&1 | tail -1)
"
        i=$((i + 1))
    done
    printf '%s' "$samples" | sort -n | awk -v l="$label" -v j="$json_bytes" '
        { wall[NR] = $1; if ($2 > rss) rss = $2 }
        END { m = wall[int((NR + 1) / 2)]
              printf "| `%s` | %.2f | %.2f | %.0f | %.0f | %.3f |\n", l, m, wall[1],
                     j / 1e6 / (m > 0 ? m : 0.001), rss * 1024 / 1e6, rss * 1024 / j }'
}
row "cat FILE.json > /dev/null" cat "$plain"
row "kineta info FILE.json" "$build/kineta" info "$plain"
row "kineta info --jobs 1 FILE.json" "$build/kineta" info --jobs 1 "$plain"
row "kineta info FILE.json.gz" "$build/kineta" info "$gz"
echo
echo "kt_load alone (kineta-bench):"
for f in "$plain" "$gz"; do
    for j in 1 2; do "$build/kineta-bench" --jobs "$j" "$f"; done
done
