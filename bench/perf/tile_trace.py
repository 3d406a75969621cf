#!/usr/bin/env python3
"""tile_trace.py — a large trace *with shapes* for the perf benchmark.

The synthetic 1 GiB trace has no "Input Dims", so `kineta perf` would model
nothing on it.  This repeats a real record_shapes trace's events back to back
in time until the output reaches the wanted size: copy k has its timestamps
moved by k times the trace's span (plus a gap) and its correlation, flow and
External ids moved past every id of the copies before, so launches, flows
and call trees stay as in the original.  Written with json's indent=2, the
layout of the HF h100 traces.

usage: tile_trace.py IN.json[.gz] OUT.json SIZE_MB
"""
import gzip
import json
import sys


def main():
    src, dst, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    first = min(float(e["ts"]) for e in timed)
    last = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed)
    shift_ts = round(last - first + 1000.0)
    max_corr = max([int(e.get("args", {}).get("correlation", 0)) for e in events] +
                   [int(e["id"]) for e in events if isinstance(e.get("id"), int)] + [0]) + 1
    max_ext = max([int(e.get("args", {}).get("External id", 0)) for e in events] + [0]) + 1
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    head = json.dumps(trace, indent=2)[:-2] + ',\n  "traceEvents": [\n'
    want = size_mb * 1e6
    written = 0
    with open(dst, "w") as out:
        out.write(head)
        sep = ""
        for e in meta:
            out.write(sep + "    " + json.dumps(e, indent=2).replace("\n", "\n    "))
            sep = ",\n"
        k = 0
        while written < want:
            for e in body:
                c = json.loads(json.dumps(e))
                if "ts" in c:
                    c["ts"] = round(float(c["ts"]) + k * shift_ts, 3)
                args = c.get("args", {})
                if "correlation" in args:
                    args["correlation"] += k * max_corr
                if "External id" in args:
                    args["External id"] += k * max_ext
                if isinstance(c.get("id"), int) and c.get("ph") in ("s", "f", "t"):
                    c["id"] += k * max_corr
                text = sep + "    " + json.dumps(c, indent=2).replace("\n", "\n    ")
                out.write(text)
                written += len(text)
            k += 1
        out.write("\n  ]\n}\n")
    print(f"{dst}: {k} copies, {written / 1e6:.0f} MB of events")


if __name__ == "__main__":
    main()
