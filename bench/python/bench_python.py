"""bench/python/bench_python.py TRACE — the Python package's costs on top of
the loader: load, events() (rows per second), and a few analyses as
DataFrames, each the median of a few runs.  Usage:
    KINETA_LIBRARY=build/libkineta-py.so /usr/bin/python3 bench/python/bench_python.py FILE
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"))
import kineta  # noqa: E402

RUNS = int(os.environ.get("KINETA_BENCH_RUNS", "3"))


def timed(fn):
    times, result = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(path):
    load_s, t = timed(lambda: kineta.load(path))
    n = sum(len(t.events(rank=r)) for r in t.ranks[:1])
    events_s, _ = timed(lambda: t.events(rank=t.ranks[0]))
    print(f"load            {load_s:8.3f} s")
    print(f"events()        {events_s:8.3f} s  {n / events_s / 1e6:6.1f} M events/s ({n} events)")
    for name in ("temporal", "kernels", "idle", "launch"):
        s, frames = timed(lambda: t.run(name))
        rows = sum(len(f) for f in frames.values())
        print(f"{name:15s} {s:8.3f} s  ({rows} rows)")


if __name__ == "__main__":
    main(sys.argv[1])
