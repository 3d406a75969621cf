#!/bin/sh
# bench/layouts.sh — the loader and every command on three trace layouts
# (issue 16): the synthesizer's (Kineto's multi-line layout), a real trace
# tiled in compact one-event-per-line layout (Python's json.dumps), and the
# same re-indented with indent=2 (TraceLens's test traces); the loader on a
# fourth, the same events with their members sorted (jq -S).
#   usage: bench/layouts.sh [BUILD_DIR] [loader|commands|instructions]...
# The traces (~1 GiB each, plus gzip copies) are made once:
#   $KINETA_BENCH_DIR/synth-1g.json      kineta-synth --size 1G --streams 3 --ns
#   $KINETA_LAYOUT_DIR/real-1g.json      bench/tile_trace.py from
#   $KINETA_LAYOUT_DIR/real-1g-indent2.json  ../shared/traces/hta/df_index_resolver
#   $KINETA_LAYOUT_DIR/real-1g-sortkeys.json (the loader part only: members sorted)
# (defaults /tmp/kineta-bench and /tmp/kineta-layouts).  Each row is run
# KINETA_BENCH_RUNS times (default 3), interleaved with `cat` of the same
# file so both see the same machine: median wall (ns clock), peak RSS,
# CPU (user+sys).
# Command outputs (counters' trace copy, export's database) go to a
# temporary directory under $KINETA_BENCH_OUT (else $TMPDIR or /tmp).
# KINETA_BENCH_COMMANDS and KINETA_BENCH_TRACES narrow the commands part
# to some commands (names as in its table) and traces.
# The page cache holds a file in pieces ("folios") whose size depends on
# how the file got there, and `cat` reads a file held in 2 MiB pieces
# twice as fast as one held in 4 KiB pages.  So the loader part measures
# each trace in two states it sets itself:
#   read-back  evicted, then read once: as readahead leaves a trace read
#              from disk (large folios; how large follows read_ahead_kb)
#   written    a copy written 8 KiB at a time beside the layout traces, as
#              the profiler's and Python's buffered writers leave a trace
#              they just wrote (4 KiB pages)
# KINETA_BENCH_CACHE names the states to measure (the commands part uses
# the first; default read-back); as-found measures the files as they are.
set -eu
here=$(dirname "$0")
build=${1:-build}
[ $# -gt 0 ] && shift
parts=${*:-loader commands}
make -s BUILD="$build" "$build/kineta" "$build/kineta-synth"
synth_dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
dir=${KINETA_LAYOUT_DIR:-/tmp/kineta-layouts}
src=${KINETA_LAYOUT_SRC:-$here/../../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz}
mkdir -p "$synth_dir" "$dir"
synth=$synth_dir/synth-1g.json
[ -f "$synth" ] || "$build/kineta-synth" --size 1G --streams 3 --ns -o "$synth" >/dev/null
[ -f "$dir/real-1g.json" ] || python3 "$here/tile_trace.py" "$src" "$dir/real-1g.json" 1030 >/dev/null
[ -f "$dir/real-1g-indent2.json" ] ||
    python3 "$here/tile_trace.py" "$src" "$dir/real-1g-indent2.json" 1030 --indent 2 >/dev/null
gz_of() { # a gzip copy beside the layout traces (the synthetic one is read-only)
    gz=$dir/$(basename "$1").gz
    [ -f "$gz" ] || gzip -c "$1" >"$gz"
    echo "$gz"
}
out=$(mktemp -d "${KINETA_BENCH_OUT:-${TMPDIR:-/tmp}}/kineta-layouts.XXXXXX")
trap 'rm -rf "$out" "$dir/written.json"' EXIT
runs=${KINETA_BENCH_RUNS:-3}

# One sample: "wall rss_kib cpu_s" of a command (output discarded).
# A command that fails stops the benchmark with its error.  The wall is
# read from date's nanoseconds: /usr/bin/time's %e counts 10 ms ticks,
# and `cat` of a file held in large folios takes 0.04 s (a 25 % step).
sample() {
    t0=$(date +%s%N)
    if ! /usr/bin/time -o "$out/time" -f '%M %U %S' "$@" >/dev/null 2>"$out/err"; then
        echo "bench/layouts.sh: failed: $*" >&2
        cat "$out/err" >&2
        exit 1
    fi
    t1=$(date +%s%N)
    tail -1 "$out/time" | awk -v ns=$((t1 - t0)) '{ printf "%.4f %s %.2f\n", ns / 1e9, $1, $2 + $3 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$1" '{ print $c }'; }

# Puts file $1 in page-cache state $2 (see the top); prints the path to
# measure: the file itself, or for "written" the copy (on the traces'
# file system: tmpfs keeps pages differently).
cache_state() {
    case $2 in
    read-back)
        dd if="$1" iflag=nocache count=0 status=none
        cat "$1" >/dev/null
        echo "$1" ;;
    written)
        dd if="$1" of="$dir/written.json" bs=8k status=none
        echo "$dir/written.json" ;;
    *)
        cat "$1" >/dev/null
        echo "$1" ;;
    esac
}
loader() {
    # a fourth layout for the loader alone: members sorted (json.dumps(sort_keys=True), jq -S)
    sorted=$dir/real-1g-sortkeys.json
    [ -f "$sorted" ] || python3 "$here/tile_trace.py" "$src" "$sorted" 1030 --sort-keys >/dev/null
    printf '| trace | page cache | JSON MB | events | `cat` s | `info` s (CPU s) | info / cat | peak RSS / JSON | .gz `info` s (CPU s) | gz speed / plain |\n'
    printf '|---|---|---|---|---|---|---|---|---|---|\n'
    for f in "$synth" "$dir/real-1g.json" "$dir/real-1g-indent2.json" "$sorted"; do
        gz=$(gz_of "$f")
        cat "$gz" >/dev/null
        bytes=$(wc -c <"$f")
        events=$("$build/kineta" info --format csv "$f" 2>/dev/null | awk -F, 'NR == 2 { print $6 }')
        for state in ${KINETA_BENCH_CACHE:-read-back written}; do
            m=$(cache_state "$f" "$state")
            : >"$out/cat" && : >"$out/info" && : >"$out/gz"
            i=0
            while [ "$i" -lt "$runs" ]; do
                sample cat "$m" >>"$out/cat"
                sample "$build/kineta" info "$m" >>"$out/info"
                sample "$build/kineta" info "$gz" >>"$out/gz"
                i=$((i + 1))
            done
            rm -f "$dir/written.json"
            c=$(col 1 <"$out/cat" | median)
            k=$(col 1 <"$out/info" | median)
            g=$(col 1 <"$out/gz" | median)
            rss=$(col 2 <"$out/info" | sort -n | tail -1)
            kc=$(col 3 <"$out/info" | median)
            gc=$(col 3 <"$out/gz" | median)
            echo "$(basename "$f") $state $bytes $events $c $k $g $rss $kc $gc" | awk '{
                printf "| %s | %s | %.0f | %.2f M | %.3f | %.2f (%.2f) | %.1fx | %.3f | %.2f (%.2f) | %.2f |\n",
                       $1, $2, $3 / 1e6, $4 / 1e6, $5, $6, $9, $6 / $5, $8 * 1024 / $3, $7, $10, $6 / $7 }'
        done
    done
}

# The kineta arguments of a command of the tables below on file $2;
# outputs go to $out.
command_args() {
    case $1 in
    counters) echo "counters -o $out $2" ;;
    patterns) echo "patterns --no-overlay $2" ;;
    patterns-overlay) echo "patterns -o $out $2" ;;
    critical-path) echo "critical-path --no-overlay $2" ;;
    critical-path-overlay) echo "critical-path -o $out $2" ;;
    patterns--mine) echo "patterns --mine $2" ;;
    diff) echo "diff $2 $2" ;;
    report) echo "report -o $out/r.html $2" ;;
    export) echo "export --sqlite $out/x.db $2" ;;
    *) echo "$1 $2" ;;
    esac
}
all_commands="kernels breakdown categories temporal idle overlap gaps launch queue memcpy-bw \
    counters patterns patterns-overlay patterns--mine critical-path critical-path-overlay diff annotations ops \
    cupti memory collectives stragglers perf report export"

# Each command's CPU and wall beside `kineta info` (the load alone) on the
# same file, interleaved; on top = command - info, and on top / info.  On a
# shared machine the wall times include waiting for a core: CPU seconds
# (user + system, all threads) are the figure to compare.  Every command
# runs with its defaults; diff compares the file with itself; counters and
# the overlays (patterns -o, critical-path -o) write their trace copies, export its
# database, report its page into the temporary directory; the last row,
# cp, is the copy of the file into that directory alone (what writing a
# trace copy costs there, without kineta).  A row per command (markdown).
# The last column is measured inside each run (--timings): the command's
# CPU after the load over the load's, median of the runs — two processes
# a few seconds apart see different hosts, one process less so.
commands() {
    # shellcheck disable=SC2086
    set -- ${KINETA_BENCH_COMMANDS:-$all_commands cp}
    state=${KINETA_BENCH_CACHE:-read-back}
    state=${state%% *}
    for f in ${KINETA_BENCH_TRACES:-"$synth" "$dir/real-1g.json" "$dir/real-1g-indent2.json"}; do
        m=$(cache_state "$f" "$state")
        : >"$out/info"
        for c in "$@"; do : >"$out/c.$c" && : >"$out/p.$c"; done
        i=0
        while [ "$i" -lt "$runs" ]; do
            sample "$build/kineta" info "$m" >>"$out/info"
            for c in "$@"; do
                args=$(command_args "$c" "$m")
                # shellcheck disable=SC2086
                if [ "$c" = cp ]; then sample cp "$m" "$out/copy.json" >>"$out/c.$c"
                else sample "$build/kineta" $args --timings >>"$out/c.$c" && in_process >>"$out/p.$c"; fi
                rm -rf "$out"/*.json "$out"/*.db "$out"/*.html
            done
            i=$((i + 1))
        done
        rm -f "$dir/written.json"
        k=$(col 1 <"$out/info" | median)
        kc=$(col 3 <"$out/info" | median)
        printf '\n%s: info %.2f s wall, %.2f s CPU\n\n' "$(basename "$f")" "$k" "$kc"
        printf '| command | wall s | on top, wall | CPU s | on top, CPU | CPU on top / load CPU | in one run |\n'
        printf '|---|---|---|---|---|---|---|\n'
        for c in "$@"; do
            w=$(col 1 <"$out/c.$c" | median)
            u=$(col 3 <"$out/c.$c" | median)
            p=$( [ -s "$out/p.$c" ] && median <"$out/p.$c" || echo -)
            echo "$c $w $k $u $kc $p" | awk '{ printf "| %s | %.2f | %+.2f | %.2f | %+.2f | %.2fx | %s%s |\n",
                $1, $2, $2 - $3, $4, $4 - $5, ($4 - $5) / $5, $6 == "-" ? "-" : sprintf("%.2f", $6), $6 == "-" ? "" : "x" }'
        done
    done
}

# The last run's command (and output) CPU over its load CPU, from its
# --timings line; nothing for a command that loads inside its own phase.
in_process() {
    awk -F'CPU ' '/^kineta: timings: load / { split($2, l, " "); split($3, c, " "); split($4, o, " ")
                                             if (l[1] > 0) printf "%.4f\n", (c[1] + o[1]) / l[1] }' "$out/err"
}

# Instructions (callgrind, --jobs 1: the same count on every run, whatever
# else the machine does) of each command beside `kineta info` on one copy
# of each layout: the synthesizer's at 64 MiB and df_index_resolver once,
# compact and indent=2.  Instructions in the kernel (page faults, the
# copies the trace writers make) are not counted: those rows need the
# timed table.  diff is counted on top of its two loads.  A row per
# command (markdown).
instructions() {
    one=$synth_dir/synth-64m.json
    [ -f "$one" ] || "$build/kineta-synth" --size 64M --streams 3 --ns -o "$one" >/dev/null
    [ -f "$dir/real-1copy.json" ] || python3 "$here/tile_trace.py" "$src" "$dir/real-1copy.json" 1 >/dev/null
    [ -f "$dir/real-1copy-indent2.json" ] ||
        python3 "$here/tile_trace.py" "$src" "$dir/real-1copy-indent2.json" 1 --indent 2 >/dev/null
    # the loader alone on the same events with their members sorted
    # (json.dumps(sort_keys=True), jq -S: "args" before "ph" and "cat")
    sorted=$dir/real-1copy-sortkeys.json
    [ -f "$sorted" ] || python3 "$here/tile_trace.py" "$src" "$sorted" 1 --sort-keys >/dev/null
    load=$(instr info "$sorted")
    printf '\n%s: info %.1f M instructions (%.2f per JSON byte)\n' "$(basename "$sorted")" \
        "$(echo "$load" | awk '{ print $1 / 1e6 }')" "$(echo "$load $(wc -c <"$sorted")" | awk '{ print $1 / $2 }')"
    # shellcheck disable=SC2086
    set -- ${KINETA_BENCH_COMMANDS:-$all_commands}
    for f in "$one" "$dir/real-1copy.json" "$dir/real-1copy-indent2.json"; do
        load=$(instr info "$f")
        printf '\n%s: info %.1f M instructions (%.2f per JSON byte)\n\n' "$(basename "$f")" \
            "$(echo "$load" | awk '{ print $1 / 1e6 }')" "$(echo "$load $(wc -c <"$f")" | awk '{ print $1 / $2 }')"
        printf '| command | M instructions | on top, M | on top / load |\n|---|---|---|---|\n'
        for c in "$@"; do
            # shellcheck disable=SC2046
            n=$(instr $(command_args "$c" "$f"))
            rm -rf "$out"/*.json "$out"/*.db "$out"/*.html
            loads=1
            [ "$c" = diff ] && loads=2 # it loads the file twice
            echo "$c $n $load $loads" | awk '{ printf "| %s | %.1f | %+.1f | %.2fx |\n", $1, $2 / 1e6, ($2 - $4 * $3) / 1e6, ($2 - $4 * $3) / $3 }'
        done
    done
}

# Instructions of one kineta run (its arguments), one thread.
instr() {
    cmd=$1
    shift
    if ! valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/kineta" "$cmd" --jobs 1 "$@" \
        >/dev/null 2>"$out/err"; then
        echo "bench/layouts.sh: failed: kineta $*" >&2
        cat "$out/err" >&2
        exit 1
    fi
    awk '/Collected :/ { print $NF }' "$out/err"
}

for p in $parts; do "$p"; echo; done
