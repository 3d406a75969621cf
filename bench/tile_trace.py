#!/usr/bin/env python3
"""bench/tile_trace.py — a large trace in a real trace's layout (issue 16).

The synthesizer writes Kineto's multi-line layout; users also bring traces
with one compact event per line (Python's json.dumps, many post-processing
tools) and traces re-indented by Python (json.dump(indent=2)).  This tiles
a real trace's events to the size asked for, in either layout, so the
loader and the analyses can be timed on each:

  bench/tile_trace.py SRC.json[.gz] OUT.json SIZE_MB [--indent N] [--sort-keys]

--sort-keys writes each event's members in sorted order, as
json.dumps(sort_keys=True) and `jq -S` do ("args" first, before "ph").

Copy k of the events is shifted in time by k times the source's span (plus
a gap), and its correlation, External id and flow ids are offset by k times
the span of those ids in the source (largest - smallest + 1, per kind; flow
ids are correlation ids), so every launch/kernel and flow link stays valid
within its copy, no id repeats across copies, and the copies' ids follow on
as one long profile's would (as dense as the source's).  ProfilerStep#N
names are renumbered the same way so steps stay distinct.  Metadata events
(ph M) are written once.  The top-level keys (distributedInfo, ...) are
kept in their order.
"""
import argparse
import gzip
import json
import re

STEP = re.compile(r"^ProfilerStep#(\d+)$")
ID_ARGS = ("correlation", "External id")


def read_trace(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def id_strides(events):
    """Per id kind, the span of its ids (smallest to largest): the copies'
    ids follow on.  Flow ids are correlation ids and shift with them."""
    ids = {"correlation": [], "External id": []}
    for ev in events:
        if isinstance(ev.get("id"), int):
            ids["correlation"].append(ev["id"])
        args = ev.get("args")
        if isinstance(args, dict):
            for key in ID_ARGS:
                if isinstance(args.get(key), int) and args[key] >= 0:
                    ids[key].append(args[key])
    return {key: max(v) - min(v) + 1 if v else 1 for key, v in ids.items()}


def time_stride(events):
    times = [(ev["ts"], ev["ts"] + ev.get("dur", 0)) for ev in events
             if isinstance(ev.get("ts"), (int, float))]
    first = min(t for t, _ in times)
    last = max(e for _, e in times)
    return int(last - first) + 1000


def step_stride(events):
    steps = [int(m.group(1)) for ev in events
             if (m := STEP.match(str(ev.get("name", ""))))]
    return max(steps) + 1 if steps else 0


def shifted(ev, k, dt, did, dstep):
    """Copy k of an event (k = 0 is the event itself)."""
    if k == 0:
        return ev
    ev = dict(ev)
    if isinstance(ev.get("ts"), int):
        ev["ts"] = ev["ts"] + k * dt
    elif isinstance(ev.get("ts"), float):  # µs with ns decimals: keep 3
        ev["ts"] = round(ev["ts"] + k * dt, 3)
    if isinstance(ev.get("id"), int):
        ev["id"] = ev["id"] + k * did["correlation"]
    args = ev.get("args")
    if isinstance(args, dict) and any(key in args for key in ID_ARGS):
        args = dict(args)
        for key in ID_ARGS:
            if isinstance(args.get(key), int) and args[key] >= 0:
                args[key] = args[key] + k * did[key]
        ev["args"] = args
    m = STEP.match(str(ev.get("name", "")))
    if m:
        ev["name"] = "ProfilerStep#%d" % (int(m.group(1)) + k * dstep)
    return ev


def event_text(ev, indent, sort_keys):
    if indent is None:
        return json.dumps(ev, sort_keys=sort_keys)
    pad = " " * (2 * indent)
    text = json.dumps(ev, indent=indent, sort_keys=sort_keys)
    return pad + text.replace("\n", "\n" + pad)


def write_tiled(trace, out, size, indent, sort_keys):
    events = trace["traceEvents"]
    meta = [ev for ev in events if ev.get("ph") == "M"]
    body = [ev for ev in events if ev.get("ph") != "M"]
    dt, did, dstep = time_stride(body), id_strides(body), step_stride(body)
    head = {k: v for k, v in trace.items() if k != "traceEvents"}
    keys = list(trace)
    before = {k: head[k] for k in keys[:keys.index("traceEvents")]}
    after = {k: head[k] for k in keys[keys.index("traceEvents") + 1:]}
    sep = ",\n"
    with open(out, "w", encoding="utf-8") as f:
        opening = json.dumps(before, indent=indent)[:-1].rstrip()
        f.write(opening + (",\n" if before else "\n"))
        f.write(" " * (indent or 0) + '"traceEvents": [\n')
        written = f.tell()
        first = True
        for ev in meta:
            f.write(("" if first else sep) + event_text(ev, indent, sort_keys))
            first = False
        k = 0
        while written < size:
            for ev in body:
                text = event_text(shifted(ev, k, dt, did, dstep), indent, sort_keys)
                f.write(("" if first else sep) + text)
                first = False
                written += len(text) + 2
            k += 1
        f.write("\n" + " " * (indent or 0) + "]")
        closing = json.dumps(after, indent=indent)[1:].lstrip()
        f.write((",\n" + " " * (indent or 0) + closing) if after else "\n}")
        f.write("\n")
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("size_mb", type=float)
    ap.add_argument("--indent", type=int, default=None)
    ap.add_argument("--sort-keys", action="store_true")
    a = ap.parse_args()
    copies = write_tiled(read_trace(a.src), a.out, int(a.size_mb * 1e6),
                         a.indent, a.sort_keys)
    print("%s: %d copies" % (a.out, copies))


if __name__ == "__main__":
    main()
