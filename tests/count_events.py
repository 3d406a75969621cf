#!/usr/bin/env python3
"""Independent event counts of Kineto traces, for tests/test_load_traces.c.

Uses only the standard library (json, gzip) so that the C loader is checked
against a parser it shares no code with.  Gzip is recognized by magic bytes.
For each file given prints "== PATH", then one per line:
    total N            entries of traceEvents
    ph C N             entries by ph (C = the ph string, "-" when absent)
    xcat N CATEGORY    complete (ph X) events by category as written ("" when absent)
or, when the file is not a Kineto trace, the single line
    not-kineto
"""
import collections
import gzip
import json
import sys


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        doc = json.loads(data)
    except ValueError:
        print("invalid-json")
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("not-kineto")
        return
    events = doc["traceEvents"]
    by_ph = collections.Counter()
    by_cat = collections.Counter()
    for e in events:
        ph = e.get("ph", "-") if isinstance(e, dict) else "-"
        by_ph[ph] += 1
        if ph == "X":
            by_cat[e.get("cat", "")] += 1
    print("total", len(events))
    for ph, n in sorted(by_ph.items()):
        print("ph", ph, n)
    for cat, n in sorted(by_cat.items()):
        print("xcat", n, cat)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print("==", path)
        main(path)
