#!/usr/bin/env python3
"""An XSpace protobuf (.xplane.pb) made k times larger for bench/readers.sh:
every line's events repeated k times, each copy later by the line's span.
Protobuf wire format by hand (no protobuf package), as lib/load/xplane reads it:
XSpace.planes = 1, XPlane.lines = 3, XLine.events = 4, XEvent.offset_ps = 2,
XEvent.duration_ps = 3.
    python3 bench/xplane_scale.py IN.xplane.pb OUT.xplane.pb K
"""
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i); num, wire = k >> 3, k & 7
        if wire == 0: v, i = varint(b, i)
        elif wire == 2: n, i = varint(b, i); v = b[i:i + n]; i += n
        elif wire == 1: v = b[i:i + 8]; i += 8
        elif wire == 5: v = b[i:i + 4]; i += 4
        else: raise ValueError(wire)
        out.append((num, wire, v))
    return out
def enc_varint(v):
    o = bytearray()
    while True:
        c = v & 0x7f; v >>= 7
        if v: o.append(c | 0x80)
        else: o.append(c); return bytes(o)
def enc(fs):
    o = bytearray()
    for num, wire, v in fs:
        o += enc_varint(num << 3 | wire)
        if wire == 0: o += enc_varint(v)
        elif wire == 2: o += enc_varint(len(v)) + v
        else: o += v
    return bytes(o)
# XLine: its events k times over
def line(b, k):
    fs = fields(b)
    ev = [f for f in fs if f[0] == 4 and f[1] == 2]
    if not ev: return b
    span = 1
    for e in ev:
        d = dict((n, v) for n, w, v in fields(e[2]) if w == 0)
        span = max(span, d.get(2, 0) + d.get(3, 0) + 1)
    out = [f for f in fs if not (f[0] == 4 and f[1] == 2)]
    for r in range(k):
        for e in ev:
            out.append((4, 2, enc([(n, w, v + r * span) if n == 2 and w == 0 else (n, w, v) for n, w, v in fields(e[2])])))
    return enc(out)
def plane(b, k): return enc([(n, w, line(v, k)) if n == 3 and w == 2 else (n, w, v) for n, w, v in fields(b)])
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
open(dst, "wb").write(enc([(n, w, plane(v, k)) if n == 1 and w == 2 else (n, w, v) for n, w, v in fields(open(src, "rb").read())]))
