"""bench/python/bench_python.py TRACE — the Python package's costs on top of
the loader: load, events() (rows per second), and a few analyses as
DataFrames, each the median of a few runs, wall and CPU time (all threads
of the process: CPU time hardly grows when other jobs share the machine,
wall time does).  Usage:
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
    """(median wall s, median CPU s, last result)"""
    walls, cpus, result = [], [], None
    for _ in range(RUNS):
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def main(path):
    load_s, load_cpu, t = timed(lambda: kineta.load(path))
    n = sum(len(t.events(rank=r)) for r in t.ranks[:1])
    events_s, events_cpu, _ = timed(lambda: t.events(rank=t.ranks[0]))
    print(f"load            {load_s:8.3f} s  {load_cpu:8.3f} s CPU")
    print(f"events()        {events_s:8.3f} s  {events_cpu:8.3f} s CPU  {n / events_s / 1e6:6.1f} M events/s wall, "
          f"{n / events_cpu / 1e6:6.1f} M/s of CPU ({n} events)")
    for name in ("temporal", "kernels", "idle", "launch"):
        s, cpu, frames = timed(lambda: t.run(name))
        rows = sum(len(f) for f in frames.values())
        print(f"{name:15s} {s:8.3f} s  {cpu:8.3f} s CPU  ({rows} rows)")


if __name__ == "__main__":
    main(sys.argv[1])
