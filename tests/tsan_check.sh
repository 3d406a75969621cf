#!/bin/sh
# tests/tsan_check.sh — the threaded paths under ThreadSanitizer: loading
# several ranks at once (parser threads intern into one string table while
# others read it) and the report's analyses running side by side.  A data
# race makes the run fail.  usage: tests/tsan_check.sh TSAN_BUILD_DIR
# (make tsan builds it).  ../shared's two-rank trace too when present.
set -eu
build=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/kineta-tsan.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$build/kineta-synth" --ranks 2 --size 2M --collectives -o "$dir/synth" >/dev/null
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
[ "$fail" = 0 ] && echo "tsan: no data race ($# traces x 5 commands, 2 threads)"
exit "$fail"
