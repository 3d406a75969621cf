#!/usr/bin/env python3
"""Check kineta-synth traces against the ground truth written with them.

Why this exists: kineta's tests trust the numbers in truth.json (busy/idle time, overlap,
counts).  Those numbers come from the generator itself, so they are only worth something
if an independent reader, sharing no code with the generator, re-derives every one of
them from the trace text.  This script does that with the Python standard library only:
timestamps are read as exact decimals (never floats) and converted to integer
nanoseconds, intervals are merged from scratch, and the overlap is computed by a direct
intersection rather than the generator's inclusion-exclusion.  It also checks the
properties the truth depends on (no overlap within a stream, launch before kernel,
proper CPU nesting, the native Kineto file layout).

usage: synth_check.py TRUTH.json TRACE_FILE...
exit status: 0 all equal, 1 a mismatch (each one printed), 2 usage error.
"""
import bisect
import gzip
import json
import re
import sys
from collections import Counter, defaultdict
from decimal import Decimal

TOP_LEVEL_KEYS = ["schemaVersion", "deviceProperties", "distributedInfo", "traceEvents",
                  "traceName", "displayTimeUnit", "baseTimeNanoseconds"]
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
MAX_REPORTED = 50
CPU_INTERVAL_CATS = {"cpu_op", "user_annotation", "python_function", "cuda_runtime"}
GRAPH_LAUNCHES = {"cudaGraphLaunch", "hipGraphLaunch"}
# runtime calls that enqueue GPU work (each has one ac2g flow start)
LAUNCH_APIS = GRAPH_LAUNCHES | {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync"}
STEP_RE = re.compile(r"ProfilerStep#(\d+)$")
WS_RE = re.compile(r"[ \t\r\n]*")


class Problems:
    """Collects every mismatch so one run reports all of them."""

    def __init__(self):
        self.items = []

    def add(self, where, msg):
        self.items.append(f"{where}: {msg}")

    def equal(self, where, what, got, want):
        if got == want:
            return
        if isinstance(got, dict) and isinstance(want, dict):
            keys = sorted(k for k in got.keys() | want.keys() if got.get(k) != want.get(k))
            shown = "; ".join(f"{k[:60]!r}: trace {got.get(k)}, truth {want.get(k)}" for k in keys[:3])
            self.add(where, f"{what}: {len(keys)} entries differ ({shown})")
        else:
            self.add(where, f"{what}: trace says {got!r}, truth says {want!r}")


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read()


def to_ns(value, ns_mode, where, problems):
    """µs value from the file (int or exact Decimal) → integer ns."""
    if ns_mode:
        if not isinstance(value, Decimal) or value.as_tuple().exponent != -3:
            problems.add(where, f"expected a µs value with exactly 3 decimals, got {value!r}")
    elif not isinstance(value, int):
        problems.add(where, f"expected an integer µs value, got {value!r}")
    ns = Decimal(value) * 1000
    if ns != ns.to_integral_value():
        problems.add(where, f"{value!r} µs is not a whole number of ns")
    return int(ns)


def walk_trace(text, on_event):
    """Parses the top-level object, streaming traceEvents one element at a time (a 1 GiB
    trace would not fit in memory as one list of dicts).  Returns (key order, metadata)."""
    dec = json.JSONDecoder(parse_float=Decimal)

    def ws(i):
        return WS_RE.match(text, i).end()

    def expect(i, ch):
        i = ws(i)
        if text[i] != ch:
            raise ValueError(f"expected {ch!r} at offset {i}")
        return i + 1

    keys, meta = [], {}
    i = expect(0, "{")
    while True:
        i = ws(i)
        if text[i] == "}":
            break
        if keys:
            i = ws(expect(i, ","))
        key, i = dec.raw_decode(text, i)
        i = ws(expect(i, ":"))
        keys.append(key)
        if key != "traceEvents":
            meta[key], i = dec.raw_decode(text, i)
            continue
        i = expect(i, "[")
        first = True
        while True:
            i = ws(i)
            if text[i] == "]":
                i += 1
                break
            if not first:
                i = ws(expect(i, ","))
            first = False
            event, i = dec.raw_decode(text, i)
            on_event(event)
    if ws(i + 1) != len(text):
        raise ValueError("trailing data after the top-level object")
    return keys, meta


def merge(intervals):
    """Sorted, disjoint union of (start, end) intervals."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def length(merged):
    return sum(e - s for s, e in merged)


def intersection_length(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


class TraceStats:
    """Everything the checks need, gathered in one pass over the events."""

    def __init__(self, ns_mode, where, problems):
        self.ns_mode, self.where, self.problems = ns_mode, where, problems
        self.total = 0
        self.by_ph = Counter()
        self.by_cat = Counter()
        self.gpu = []            # (ts, end, cat, stream, correlation, name)
        self.runtime = {}        # correlation -> (ts, name)
        self.cpu = defaultdict(list)  # (pid, tid) -> [(ts, end)]
        self.cpu_steps = {}      # step -> (ts, end)
        self.gpu_steps = {}
        self.flow_s, self.flow_f = Counter(), Counter()
        self.fwdbwd = {"s": Counter(), "f": Counter()}
        self.python_ids, self.python_parents = set(), []
        self.python_threads = set()

    def time(self, ev, key):
        return to_ns(ev[key], self.ns_mode, f"{self.where} event {self.total}", self.problems)

    def add(self, ev):
        self.total += 1
        ph = ev.get("ph")
        self.by_ph[ph] += 1
        if ph == "X":
            self.add_complete(ev)
        elif ph in ("s", "f") and ev.get("cat") == "ac2g":
            (self.flow_s if ph == "s" else self.flow_f)[ev["id"]] += 1
        elif ph in ("s", "f") and ev.get("cat") == "fwdbwd":
            self.fwdbwd[ph][ev["id"]] += 1

    def add_complete(self, ev):
        cat, name = ev.get("cat"), ev.get("name")
        self.by_cat[cat] += 1
        ts = self.time(ev, "ts")
        end = ts + self.time(ev, "dur")
        args = ev.get("args", {})
        if cat in GPU_CATS:
            self.gpu.append((ts, end, cat, args["stream"], args["correlation"], name))
        elif cat == "cuda_runtime":
            self.runtime[args["correlation"]] = (ts, name)
        elif cat == "gpu_user_annotation" and STEP_RE.match(name):
            self.gpu_steps[int(STEP_RE.match(name).group(1))] = (ts, end)
        if cat in CPU_INTERVAL_CATS:
            self.cpu[(ev["pid"], ev["tid"])].append((ts, end))
        if cat == "user_annotation" and STEP_RE.match(name):
            self.cpu_steps[int(STEP_RE.match(name).group(1))] = (ts, end)
        if cat == "python_function":
            self.python_ids.add(args["Python id"])
            if args["Python parent id"] is not None:
                self.python_parents.append(args["Python parent id"])
            self.python_threads.add((ev["pid"], ev["tid"]))


def check_layout(raw, where, problems):
    head = b'\n{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {\n'
    if not raw.startswith(head):
        problems.add(where, "file does not start like a native Kineto trace")
    if b'\n  "traceEvents": [\n  {\n    "' not in raw:
        problems.add(where, "traceEvents is not laid out one event per block")
    if b'\n  }\n  ],\n  "traceName": ' not in raw:
        problems.add(where, "traceName does not follow the closing ']' of traceEvents")
    if not raw.endswith(b"\n}"):
        problems.add(where, "file does not end with '\\n}'")


def check_streams(st, where, problems):
    by_stream = defaultdict(list)
    for ts, end, _cat, stream, _corr, _name in st.gpu:
        by_stream[stream].append((ts, end))
    for stream, ivs in by_stream.items():
        ivs.sort()
        for (_, prev_end), (ts, _) in zip(ivs, ivs[1:]):
            if ts < prev_end:
                problems.add(where, f"stream {stream}: activity at {ts} ns starts before the previous one ends ({prev_end})")
                break


def check_launches(st, where, problems):
    for ts, _end, cat, _stream, corr, name in st.gpu:
        rt = st.runtime.get(corr)
        if rt is None:
            problems.add(where, f"{cat} {name[:40]!r} (correlation {corr}) has no runtime call")
        elif not rt[0] < ts:
            problems.add(where, f"correlation {corr}: launch at {rt[0]} is not before the GPU start {ts}")
    launches = Counter(c for c, (_ts, name) in st.runtime.items() if name in LAUNCH_APIS)
    problems_before = len(problems.items)
    if st.flow_s != launches:
        problems.add(where, f"{sum(st.flow_s.values())} ac2g flow starts do not match the "
                            f"{sum(launches.values())} launch calls")
    if sum(st.flow_f.values()) != len(st.gpu):
        problems.add(where, f"{sum(st.flow_f.values())} ac2g flow ends for {len(st.gpu)} GPU activities")
    if len(problems.items) == problems_before:
        if Counter(g[4] for g in st.gpu) != st.flow_f:
            problems.add(where, "ac2g flow end ids do not match the GPU activities' correlation ids")
    if st.fwdbwd["s"] != st.fwdbwd["f"] or any(n != 1 for n in st.fwdbwd["s"].values()):
        problems.add(where, "fwdbwd flows do not pair up one start with one end")


def check_nesting(st, where, problems):
    """On every CPU thread two events are either disjoint or one contains the other."""
    for thread, ivs in st.cpu.items():
        ivs.sort(key=lambda iv: (iv[0], -iv[1]))
        stack = []
        for ts, end in ivs:
            while stack and stack[-1] <= ts:
                stack.pop()
            if stack and end > stack[-1]:
                problems.add(where, f"thread {thread}: event [{ts}, {end}) crosses its parent's end {stack[-1]}")
                break
            stack.append(end)


def check_python(st, where, problems):
    if len(st.python_threads) > 1:
        problems.add(where, f"python_function events on several threads: {sorted(st.python_threads)}")
    for pid, tid in st.python_threads:
        if pid != tid:
            problems.add(where, "python_function events are not on the main thread (pid == tid)")
    missing = [p for p in st.python_parents if p not in st.python_ids]
    if missing:
        problems.add(where, f"{len(missing)} Python parent ids point at no python_function event")


def check_gpu_steps(st, where, problems):
    """Each step's GPU annotation must cover the GPU work launched during that step."""
    if set(st.gpu_steps) != set(st.cpu_steps):
        problems.add(where, "gpu_user_annotation steps differ from the CPU ProfilerStep annotations")
        return
    steps = sorted(st.cpu_steps.items(), key=lambda kv: kv[1][0])
    starts = [span[0] for _step, span in steps]
    for ts, end, _cat, _stream, corr, _name in st.gpu:
        rt = st.runtime.get(corr)
        if rt is None:
            continue
        k = bisect.bisect_right(starts, rt[0]) - 1
        if k < 0 or rt[0] >= steps[k][1][1]:
            problems.add(where, f"launch of correlation {corr} lies outside every ProfilerStep")
            return
        g_ts, g_end = st.gpu_steps[steps[k][0]]
        if ts < g_ts or end > g_end:
            problems.add(where, f"GPU activity of correlation {corr} lies outside gpu_user_annotation ProfilerStep#{steps[k][0]}")
            return


def derived(st):
    """Recompute every ground-truth number from the gathered events."""
    kernels = [g for g in st.gpu if g[2] == "kernel"]
    comm = [(g[0], g[1]) for g in kernels if g[5].startswith("nccl")]
    compute = [(g[0], g[1]) for g in kernels if not g[5].startswith("nccl")]
    busy = merge((g[0], g[1]) for g in st.gpu)
    m_comm, m_compute = merge(comm), merge(compute)
    first = busy[0][0] if busy else 0
    last = busy[-1][1] if busy else 0
    graph_corr = {c for c, (_ts, name) in st.runtime.items() if name in GRAPH_LAUNCHES}
    ktime, kcount = Counter(), Counter()
    for g in kernels:
        ktime[g[5]] += g[1] - g[0]
        kcount[g[5]] += 1
    return {
        "total_events": st.total,
        "by_ph": dict(st.by_ph),
        "complete_by_cat": dict(st.by_cat),
        "kernels": len(kernels),
        "memcpy": sum(1 for g in st.gpu if g[2] == "gpu_memcpy"),
        "memset": sum(1 for g in st.gpu if g[2] == "gpu_memset"),
        "gpu_events_by_stream": {str(k): v for k, v in Counter(g[3] for g in st.gpu).items()},
        "steps": sorted(st.cpu_steps),
        "gpu_busy_ns": length(busy),
        "gpu_idle_ns": last - first - length(busy),
        "gpu_span_ns": [first, last],
        "compute_busy_ns": length(m_compute),
        "comm_busy_ns": length(m_comm),
        "comm_compute_overlap_ns": intersection_length(m_comm, m_compute),
        "graph_launches": sum(1 for _ts, name in st.runtime.values() if name in GRAPH_LAUNCHES),
        "graph_kernels": sum(1 for g in kernels if g[4] in graph_corr),
        "kernel_time_by_name_ns": dict(ktime),
        "kernel_count_by_name": dict(kcount),
    }


def nonzero(d):
    return {k: v for k, v in d.items() if v}


def check_file(path, truth, problems):
    raw = read_text(path)
    where = path
    check_layout(raw, where, problems)
    st = TraceStats(truth["ns_timestamps"], where, problems)
    keys, meta = walk_trace(raw.decode("utf-8"), st.add)
    problems.equal(where, "top-level keys", keys, TOP_LEVEL_KEYS)
    info = meta.get("distributedInfo", {})
    rank = info.get("rank", 0)
    problems.equal(where, "world_size", info.get("world_size"), truth["world_size"])
    entries = [r for r in truth["ranks"] if r["rank"] == rank]
    if not entries:
        problems.add(where, f"rank {rank} is not in the truth file")
        return rank, st
    want = entries[0]
    problems.equal(where, "uncompressed bytes", len(raw), want["bytes"])
    got = derived(st)
    for key, value in got.items():
        expected = want[key]
        if isinstance(expected, dict):
            value, expected = nonzero(value), nonzero(expected)
        problems.equal(where, key, value, expected)
    check_streams(st, where, problems)
    check_launches(st, where, problems)
    check_nesting(st, where, problems)
    check_python(st, where, problems)
    check_gpu_steps(st, where, problems)
    return rank, st


def main(argv):
    usage = __doc__.strip().split("\n\n")[-1]
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        truth = json.load(f)
    problems = Problems()
    for path in argv[2:]:
        try:
            rank, st = check_file(path, truth, problems)
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
            problems.add(path, f"cannot read trace: {exc!r}")
            continue
        py = st.by_cat["python_function"]
        print(f"{path}: rank {rank}, {st.total} events, {len(st.gpu)} GPU activities, "
              f"python_function {100 * py / max(st.total, 1):.0f}% of all events, "
              f"{100 * py / max(st.by_ph['X'], 1):.0f}% of complete events")
    for p in problems.items[:MAX_REPORTED]:
        print("MISMATCH " + p, file=sys.stderr)
    if len(problems.items) > MAX_REPORTED:
        print(f"... and {len(problems.items) - MAX_REPORTED} more mismatches", file=sys.stderr)
    if problems.items:
        return 1
    print(f"OK: {len(argv) - 2} trace(s) match {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
