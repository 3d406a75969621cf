# bench/common.sh — what the analysis benchmarks share (sourced, not run).
#   bench_program BUILD NAME    builds BUILD/bench_NAME (and kineta-synth) via make
#   bench_trace BUILD FILE ARGS synthesizes FILE once (kineta-synth ARGS -o FILE)
#                               into $KINETA_BENCH_DIR (default /tmp/kineta-bench)
#                               and prints its path
#   bench_cli BUILD             builds BUILD/kineta and BUILD/kineta-synth via make
#   bench_cli_args [BUILD [TRACE]]  sets build (default build) after bench_cli,
#                               and trace (default the 1 GiB synthetic trace)
#   bench_median RUNS CMD...    "wall cpu" seconds of the run with the median
#                               wall time of RUNS runs of CMD (stdout discarded;
#                               cpu = user + system, steadier on a busy machine)
bench_program() {
    make -s BUILD="$1" "$1/bench_$2" "$1/kineta-synth"
}

bench_trace() {
    build=$1
    file=$2
    shift 2
    dir=${KINETA_BENCH_DIR:-/tmp/kineta-bench}
    mkdir -p "$dir"
    [ -e "$dir/$file" ] || "$build/kineta-synth" "$@" -o "$dir/$file" >/dev/null
    echo "$dir/$file"
}

bench_cli() {
    make -s BUILD="$1" "$1/kineta" "$1/kineta-synth"
}

bench_cli_args() {
    build=${1:-build}
    bench_cli "$build"
    trace=${2:-$(bench_trace "$build" synth-1g.json --size 1G --streams 3 --ns)}
}

bench_median() {
    n=$1
    shift
    i=0
    while [ $i -lt "$n" ]; do
        /usr/bin/time -f "%e %U %S" "$@" 2>&1 >/dev/null | tail -1
        i=$((i + 1))
    done | sort -n | sed -n "$(( (n + 1) / 2 ))p" | awk '{ printf "%.2f  %.2f", $1, $2 + $3 }'
}
