"""bench/python/bench_hta.py DIR — HTA's TraceAnalysis(trace_dir=DIR) plus
get_temporal_breakdown, run by HTA and by kineta.hta in one process on the
same files, side by side: wall and CPU time of each (CPU of this process
only: HTA parses ranks in worker processes, whose CPU is not counted), the
ratio, and whether the two frames are equal.  kineta runs KINETA_BENCH_RUNS
times (default 3, the median reported), HTA once (it takes minutes).
DIR's *.json / *.json.gz files are the ranks (others, e.g. kineta-synth's
truth.json, are left out).  Usage:
    KINETA_LIBRARY=build/libkineta-py.so PYTHONPATH=../shared/peers/hta \\
        /usr/bin/python3 bench/python/bench_hta.py DIR
bench/hta_temporal.sh makes DIR from synthetic ranks and runs this.
"""
import glob
import logging
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"))
import pandas as pd  # noqa: E402

from kineta.hta.trace_analysis import TraceAnalysis as KinetaTA  # noqa: E402

RUNS = int(os.environ.get("KINETA_BENCH_RUNS", "3"))


def timed(fn):
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - start, time.process_time() - cpu, result


def temporal(cls, trace_dir):
    return cls(trace_dir=trace_dir).get_temporal_breakdown(visualize=False)


def ranks_dir(src, dst):
    """dst holding links to src's rank files only."""
    files = sorted(f for f in glob.glob(os.path.join(src, "rank-*.json*")))
    for f in files:
        os.symlink(os.path.abspath(f), os.path.join(dst, os.path.basename(f)))
    return files


def main(src):
    try:
        from hta.trace_analysis import TraceAnalysis as HtaTA
    except ImportError:
        sys.exit("HTA not importable: PYTHONPATH=../shared/peers/hta (docs/performance.md)")
    logging.disable(logging.WARNING)  # HTA logs every file it parses
    with tempfile.TemporaryDirectory() as trace_dir:
        files = ranks_dir(src, trace_dir)
        size = sum(os.path.getsize(f) for f in files)
        print(f"{len(files)} ranks, {size / 2**20:.0f} MiB in {src}")
        runs = [timed(lambda: temporal(KinetaTA, trace_dir)) for _ in range(RUNS)]
        k_wall, k_cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        k_frame = runs[-1][2]
        h_wall, h_cpu, h_frame = timed(lambda: temporal(HtaTA, trace_dir))
    print(f"kineta.hta  {k_wall:8.3f} s wall  {k_cpu:8.3f} s CPU   (median of {RUNS})")
    print(f"HTA         {h_wall:8.3f} s wall  {h_cpu:8.3f} s CPU of the main process")
    print(f"kineta.hta is {h_wall / k_wall:.0f}x faster (wall)")
    try:
        pd.testing.assert_frame_equal(k_frame.reset_index(drop=True), h_frame.reset_index(drop=True),
                                      check_dtype=False)
        print("frames equal")
    except AssertionError as e:
        print(f"frames differ: {e}")


if __name__ == "__main__":
    main(sys.argv[1])
