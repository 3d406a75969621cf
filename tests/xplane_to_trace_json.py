"""Writes a JAX .xplane.pb as the Chrome trace jax.profiler writes beside it
(<host>.trace.json.gz), the way xprof's trace viewer conversion lays it out:
process_name / thread_name M records (pid = plane, tid = line id), then one
X event per line event with ts and dur in µs to the ps and every stat as a
string arg, no cat.  For the test that loads both files of one run and
compares kineta's answers.  Usage: xplane_to_trace_json.py IN.xplane.pb OUT.trace.json.gz
"""
import gzip
import json
import struct
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def meta_map(v):
    key = val = None
    for f, _, x in fields(v):
        if f == 1:
            key = x
        elif f == 2:
            val = x
    name = ""
    for f, w, x in fields(val or b""):
        if f == 2 and w == 2:
            name = x.decode("utf-8", "replace")
    return key, name


def us(ps):
    return "%d.%06d" % (ps // 1000000, ps % 1000000)


def stat_value(stat, smeta):
    sid, val = None, ""
    for f, w, x in fields(stat):
        if f == 1:
            sid = x
        elif f == 2:
            val = repr(struct.unpack("<d", x)[0])
        elif f in (3, 4):
            val = str(x if f == 3 or x < 1 << 63 else x - (1 << 64))
        elif f in (5, 6):
            val = x.decode("utf-8", "replace")
        elif f == 7:
            val = smeta.get(x, "")
    return smeta.get(sid, ""), val


def main(src, dst):
    data = open(src, "rb").read()
    meta, events = [], []
    pid = 0
    for f, _, plane in fields(data):
        if f != 1:
            continue
        pid += 1
        emeta, smeta, lines, pname = {}, {}, [], ""
        for g, w, v in fields(plane):
            if g == 2:
                pname = v.decode()
            elif g == 3:
                lines.append(v)
            elif g in (4, 5):
                k, n = meta_map(v)
                (emeta if g == 4 else smeta)[k] = n
        meta.append({"ph": "M", "pid": pid, "name": "process_name", "args": {"name": pname}})
        for line in lines:
            lid, lname, ns, evs = 0, "", 0, []
            for g, w, v in fields(line):
                if g == 1:
                    lid = v
                elif g == 2:
                    lname = v.decode()
                elif g == 3:
                    ns = v
                elif g == 4:
                    evs.append(v)
            meta.append({"ph": "M", "pid": pid, "tid": lid, "name": "thread_name", "args": {"name": lname}})
            for e in evs:
                name, off, dur, args = "", 0, 0, {}
                for g, w, v in fields(e):
                    if g == 1:
                        name = emeta.get(v, "")
                    elif g == 2:
                        off = v
                    elif g == 3:
                        dur = v
                    elif g == 4:
                        k, val = stat_value(v, smeta)
                        args[k] = val
                ev = {"ph": "X", "pid": pid, "tid": lid, "ts": "@%s@" % us(ns * 1000 + off),
                      "dur": "@%s@" % us(dur), "name": name}
                if args:
                    ev["args"] = args
                events.append(ev)
    doc = {"displayTimeUnit": "ns", "metadata": {"highres-ticks": True}, "traceEvents": meta + events + [{}]}
    text = json.dumps(doc, separators=(",", ":"))
    text = text.replace('"@', "").replace('@"', "")  # ts and dur as bare numbers
    with gzip.open(dst, "wt") as out:
        out.write(text)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
