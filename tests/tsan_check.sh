#!/bin/sh
# tests/tsan_check.sh — the threaded paths under ThreadSanitizer: loading
# several ranks at once (parser threads intern into one string table while
# others read it), the report's analyses running side by side, and one
# file parsed by several threads: a 40 MB trace cut into byte ranges, the
# same made no trace by its first byte (the first range fails while the
# others parse), a gzip of 4 MB or more cut into blocks of its
# decompressed stream, and ranges held in memory whose middle one fails
# while the others parse (tests/tsan/split_fail.c); and --hta-compat's
# rows read by the range workers and its passes over a big rank, each in
# two halves at once; and an overlay of an 8 MB file, whose write-behind
# thread reads part of each window.
# A data race makes the run fail.  usage: tests/tsan_check.sh TSAN_BUILD_DIR
# (make tsan builds it).  ../shared's two-rank trace too when present.
set -eu
build=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/kineta-tsan.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$build/kineta-synth" --ranks 2 --size 2M --collectives -o "$dir/synth" >/dev/null
# the loader splits a plain file of 32 MB or more, a gzip of 4 MB or more
"$build/kineta-synth" --size 40M -o "$dir/big.json" >/dev/null
"$build/kineta-synth" --size 64M --gzip -o "$dir/big.json.gz" >/dev/null
"$build/kineta-synth" --size 8M -o "$dir/mid.json" >/dev/null
[ "$(wc -c <"$dir/big.json.gz")" -ge 4194304 ] || { echo "tsan: $dir/big.json.gz under 4 MB" >&2; exit 1; }
cp "$dir/big.json" "$dir/broken.json"
printf '[' | dd of="$dir/broken.json" bs=1 seek=0 conv=notrunc 2>/dev/null
set -- "$dir/synth"
shared=$(dirname "$0")/../../shared/traces/hta
[ -d "$shared/trace_filter" ] && set -- "$@" "$shared/trace_filter" "$shared/timeline_analysis"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0"
fail=0
for trace in "$@"; do
    for cmd in info "report -o $dir/r.html" "kernels" "collectives" "critical-path --no-overlay"; do
        # shellcheck disable=SC2086
        if ! "$build/kineta" $cmd --jobs 2 -q "$trace" >/dev/null 2>"$dir/err"; then
            echo "tsan: kineta $cmd $trace:" >&2
            head -40 "$dir/err" >&2
            fail=1
        fi
    done
done
for trace in "$dir/big.json" "$dir/big.json.gz" "$dir/broken.json"; do
    status=0
    "$build/kineta" info --jobs 4 -q "$trace" >/dev/null 2>"$dir/err" || status=$?
    want=0
    [ "$trace" = "$dir/broken.json" ] && want=3 # input unreadable, and said so
    if [ "$status" != "$want" ]; then
        echo "tsan: kineta info $trace: exit $status, want $want:" >&2
        head -40 "$dir/err" >&2
        fail=1
    fi
done
# --hta-compat on a rank of 260k events: HTA's rows read by the range
# workers (plain and gzip), or, when the file is cached (the cache keeps the
# rows as parsed), after the load in two halves at once; the step filter
# and the compaction in two halves at once
for args in "$dir/big.json" "$dir/big.json.gz" "--cache=$dir/cache $dir/big.json"; do
    # shellcheck disable=SC2086
    if ! "$build/kineta" info --hta-compat --jobs 2 -q $args >/dev/null 2>"$dir/err"; then
        echo "tsan: kineta info --hta-compat $args:" >&2
        head -40 "$dir/err" >&2
        fail=1
    fi
done
# the overlay writer: windows read by both threads, written by one
mkdir "$dir/overlay"
if ! "$build/kineta" patterns -o "$dir/overlay" -q "$dir/mid.json" >/dev/null 2>"$dir/err"; then
    echo "tsan: kineta patterns -o $dir/mid.json:" >&2
    head -40 "$dir/err" >&2
    fail=1
fi
# a range in the middle fails while the other threads parse theirs
if ! "$build/split-fail" 2>"$dir/err"; then
    echo "tsan: split-fail:" >&2
    head -40 "$dir/err" >&2
    fail=1
fi
[ "$fail" = 0 ] && echo "tsan: no data race ($# traces x 5 commands, 2 threads; 4 split loads, 4 threads; 3 --hta-compat loads, 2 threads; an overlay)"
exit "$fail"
