# bench/common.sh — what the analysis benchmarks share (sourced, not run).
#   bench_program BUILD NAME    builds BUILD/bench_NAME (and kineta-synth) via make
#   bench_trace BUILD FILE ARGS synthesizes FILE once (kineta-synth ARGS -o FILE)
#                               into $KINETA_BENCH_DIR (default /tmp/kineta-bench)
#                               and prints its path
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
