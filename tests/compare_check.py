"""compare_check.py KINETA BASE TEST — `kineta perf --compare BASE TEST`'s
ops_summary against a hand count: each trace read with the json module,
every GPU event (kernel, memcpy, memset; NCCL kernels left out) attributed
through its correlation id to the launching runtime call and from there to
the innermost cpu_op around that call on its thread; each op call's GPU
time is the union of its events' intervals, summed per op name.  Every op
of either run must be in the comparison with these sums (µs) on both sides,
their difference, "added"/"removed" exactly when one side lacks it, and
the ops whose time changed must be the same set.  Ops that replayed CUDA
graphs (cudaGraphLaunch) are held to their status and to having changed
only: the hand count's attribution of graph kernels differs from the
launcher rule by a few µs there.  Prints each difference;
exit 1 when any (run by tests/test_perf_compare.c)."""
import collections
import csv
import gzip
import io
import json
import subprocess
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset"}


def busy(intervals):
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def op_times(path):
    ev = [e for e in json.load(gzip.open(path))["traceEvents"] if e.get("ph") == "X"]
    launch = {e["args"]["correlation"]: e for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    owner = {}  # id of a runtime call -> the index of its innermost cpu_op
    by_thread = collections.defaultdict(list)
    for i, e in enumerate(ev):
        if e.get("cat") in ("cpu_op", "cuda_runtime"):
            by_thread[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], e.get("cat") == "cuda_runtime", i))
    for items in by_thread.values():
        stack = []
        for ts, negdur, is_rt, i in sorted(items):
            while stack and ev[stack[-1]]["ts"] + ev[stack[-1]]["dur"] <= ts:
                stack.pop()
            if is_rt:
                owner[i] = stack[-1] if stack else i  # a launch outside any op stands for itself
            else:
                stack.append(i)
    index = {id(e): i for i, e in enumerate(ev)}
    calls = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") not in GPU or "nccl" in e["name"].lower():
            continue
        rt = launch.get(e.get("args", {}).get("correlation"))
        op = owner.get(index[id(rt)]) if rt else None
        if op is not None:
            calls[op].append((e["ts"], e["ts"] + e["dur"]))
    totals, graphs = collections.defaultdict(float), set()
    for op, iv in calls.items():
        totals[ev[op]["name"]] += busy(iv)
    for rt in launch.values():
        if rt["name"] == "cudaGraphLaunch" and owner.get(index[id(rt)]) is not None:
            graphs.add(ev[owner[index[id(rt)]]]["name"])
    return totals, graphs


def main(kineta, base, test):
    run = subprocess.run([kineta, "perf", "-q", "--format", "csv", "--table", "ops_summary", "--names", "a,b",
                          "--compare", base, test], check=True, capture_output=True, text=True)
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(run.stdout))}
    (a, ga), (b, gb) = op_times(base), op_times(test)
    bad = 0
    for name in set(a) | set(b):
        r = rows.get(name)
        want = "matched" if name in a and name in b else "removed" if name in a else "added"
        if r is None or r["status"] != want:
            print(f"{name}: status {r and r['status']}, by hand {want}")
            bad += 1
            continue
        if name in ga | gb:  # CUDA-graph replays: checked for status and change only
            continue
        for side, hand in (("a", a), ("b", b)):
            got = r[f"{side}::total_direct_kernel_time_sum"]
            if (name in hand) != (got != "") or (got and abs(float(got) - hand[name]) > 1e-6 * max(1, hand[name])):
                print(f"{name} {side}: {got!r}, by hand {hand.get(name)}")
                bad += 1
        if want == "matched" and abs(float(r["total_direct_kernel_time_sum__diff"]) - (b[name] - a[name])) > 1e-6:
            print(f"{name}: diff {r['total_direct_kernel_time_sum__diff']}, by hand {b[name] - a[name]}")
            bad += 1
    changed = {n for n in set(a) | set(b) if a.get(n) != b.get(n)}
    listed = {n for n, r in rows.items() if r["status"] != "matched" or float(r["total_direct_kernel_time_sum__diff"])}
    if changed != listed or len(rows) != len(set(a) | set(b)):
        print(f"changed by hand {len(changed)}, listed {len(listed)}; ops {len(rows)} / {len(set(a) | set(b))}: "
              f"{sorted(changed ^ listed)[:5]}")
        bad += 1
    print(f"{len(changed)} of {len(set(a) | set(b))} ops changed", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
