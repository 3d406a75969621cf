"""HTA's per-rank trace frame (hta.common.trace.parse_trace_file) built from
kineta's event columns, whole arrays at a time (no Python call per event).

HTA reads every traceEvents entry into a DataFrame, labels each row with
its position in the file ("index"), keeps the rows with a dur and a cat
except the "Trace" span, rounds ns-resolution times to whole µs, links
launches and kernels by correlation (index_correlation) and gives each row
its ProfilerStep (iteration).  kineta's model holds every entry in file
order, so the same frame comes from its columns: the rows kept, their ids
(name/cat here still kineta string ids; Trace renumbers them densely) and
the derived columns, with the dtypes pandas gives HTA's frame (integer
columns downcast, dur float when some entry has none).
"""
import ctypes as C
import re

import numpy as np
import pandas as pd

from ..._native import lib
from ..configs.parser_config import ParserConfig
from . import _args

lib.kt_trace_hta_round.restype = C.c_int
lib.kt_trace_hta_round.argtypes = [C.c_void_p, C.c_size_t, C.c_void_p, C.c_void_p, C.c_size_t]

_STR_TAG = 1 << 62  # kt_event_columns: a pid/tid written as a string is 2^62 + its string id
# Events GPUKernelFilter takes although they have no stream (HTA's sync rows).
SYNC_NAMES = ("Event Sync", "Context Sync")
MINIMUM_ARGS = ParserConfig.ARGS_MINIMUM  # stream and correlation: HTA's frame always needs them
STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")  # HTA's step number of a ProfilerStep name


def downcast(values):
    """pandas' to_numeric(downcast="integer"), which HTA applies to its int columns."""
    return pd.to_numeric(values, downcast="integer")


def _ids_column(values, keep, strings):
    """pid/tid of the kept rows: ints, or Python objects when the file wrote
    some (even of a row not kept) as a string, as pandas holds HTA's column."""
    tagged = values >= _STR_TAG
    if not tagged.any():
        return downcast(values[keep])
    out = values.astype(object)
    out[tagged] = np.asarray(strings, dtype=object)[values[tagged] & 0xFFFFFFFF]
    return out[keep]


def _times(kt, pos, ts, dur, missing_dur):
    """ts (µs, int), dur (µs) as HTA holds them (rounded for ns-resolution
    files) and whether they were rounded."""
    rounded = lib.kt_trace_hta_round(kt._handle(), pos, ts.ctypes.data_as(C.c_void_p),
                                     dur.ctypes.data_as(C.c_void_p), len(ts))
    ts_us = downcast(ts // 1000)
    whole = rounded or not (dur % 1000).any()
    if missing_dur or not whole:  # a NaN in the column (an entry without dur) makes it float
        return ts_us, dur / 1000.0, rounded
    return ts_us, downcast(dur // 1000), rounded


def index_correlation(frame, sync_ids):
    """HTA's index_correlation: the index of the launch of a kernel and of the
    kernel of a launch (both directions), 0 when the partner is not in the
    frame, -1 for rows without a correlation."""
    corr = frame["correlation"].to_numpy()
    out = np.minimum(corr, 0).astype(np.int64)
    linked = frame.loc[corr != -1, ["index", "correlation", "stream", "name"]]
    gpu = gpu_mask(linked, sync_ids)
    pairs = linked.loc[~gpu, ["index", "correlation"]].merge(linked.loc[gpu, ["index", "correlation"]],
                                                             on="correlation")
    out[frame.index.get_indexer(pairs["index_x"])] = pairs["index_y"].to_numpy()
    out[frame.index.get_indexer(pairs["index_y"])] = pairs["index_x"].to_numpy()
    return downcast(out)


def gpu_mask(frame, sync_ids):
    """HTA's GPUKernelFilter rows: a stream and a correlation, or a sync event."""
    return (((frame["stream"] >= 0) & (frame["correlation"] >= 0)) | frame["name"].isin(sync_ids)).to_numpy()


def iterations(frame, steps, cpu_op_id):
    """HTA's iteration: CPU rows (no stream, or stream 0 cpu_op) take the
    last ProfilerStep (file order) whose [ts, ts + dur) holds their ts,
    else -1; GPU rows (stream > 0) take their launch's, -1 without one;
    other rows (stream 0) have none (NaN)."""
    ts, stream = frame["ts"].to_numpy(), frame["stream"].to_numpy()
    on_cpu = (stream < 0) | ((stream == 0) & (frame["cat"].to_numpy() == cpu_op_id))
    it = np.full(len(frame), np.nan)
    it[on_cpu] = -1
    for start, dur, number in steps:
        it[on_cpu & (ts >= start) & (ts < start + dur)] = number
    launch = frame["index_correlation"].to_numpy()
    gpu = stream > 0
    linked = gpu & (launch > 0)
    it[gpu] = -1
    it[linked] = it[frame.index.get_indexer(launch[linked])]
    return downcast(it)


# The args columns the model holds: from its columns, not the file's text.
MODEL_ARGS = ("stream", "correlation", "external_id")


def parsed_frame(kt, pos, rank, specs):
    """One rank's frame as HTA's parse_trace_file leaves it, with a column
    per arg spec (ParserConfig.get_args()), name/cat as kineta string ids.
    """
    ev = kt.events(rank)
    strings = kt.strings()
    cat = ev["cat"].cat.codes.to_numpy().astype(np.int64)
    name = ev["name"].cat.codes.to_numpy().astype(np.int64)
    dur_all = ev["dur"].to_numpy()
    trace_ids = [i for i, s in enumerate(strings) if s == "Trace"]
    keep = np.flatnonzero((dur_all >= 0) & (cat >= 0) & ~np.isin(cat, trace_ids))
    ts, dur, rounded = _times(kt, pos, ev["ts"].to_numpy()[keep].copy(), dur_all[keep].copy(), (dur_all < 0).any())
    columns = {"index": downcast(keep), "cat": cat[keep], "name": name[keep],
               "pid": _ids_column(ev["pid"].to_numpy(), keep, strings),
               "tid": _ids_column(ev["tid"].to_numpy(), keep, strings), "ts": ts, "dur": dur}
    if rounded:  # HTA's rounding adds "end" right after the file's keys; otherwise it comes last
        columns["end"] = ts + dur
    model = {"stream": _streams(kt, pos, ev), "correlation": ev["correlation"].to_numpy(),
             "external_id": ev["external_id"].to_numpy()}
    specs = [s for s in MINIMUM_ARGS if s.name not in {a.name for a in specs}] + list(specs)
    texts = [s for s in specs if s.name not in MODEL_ARGS]
    values = _args.arg_texts(kt, pos, [s.raw_name for s in texts], keep) if texts else None
    for spec in specs:
        columns[spec.name] = (downcast(model[spec.name][keep]) if spec.name in MODEL_ARGS
                              else _args.arg_column(values[:, texts.index(spec)], spec))
    frame = pd.DataFrame(columns, index=keep)
    sync_ids = [i for i, s in enumerate(strings) if s in SYNC_NAMES]
    frame["index_correlation"] = index_correlation(frame, sync_ids)
    steps = _profiler_steps(frame, strings)
    cpu_op = [i for i, s in enumerate(strings) if s == "cpu_op"]
    frame["iteration"] = iterations(frame, steps, cpu_op[0] if cpu_op else -2)
    frame["end"] = frame["ts"] + frame["dur"]
    return frame


def _streams(kt, pos, ev):
    """The stream column, and HTA's stream number where the model has none
    but the file has one: CUDA's syncs on a whole device write 4294967295."""
    stream = ev["stream"].to_numpy().astype(np.int64)
    rows = np.flatnonzero((stream == -1) & (ev["kind"] == "cuda_sync").to_numpy())
    if len(rows):
        texts = _args.arg_texts(kt, pos, ["stream"], rows)[:, 0]
        given = pd.to_numeric(pd.Series(texts).str.decode("utf-8").str.strip('"'), errors="coerce")
        stream[rows] = given.fillna(-1).astype(np.int64).to_numpy()
    return stream


def _profiler_steps(frame, strings):
    """(ts, dur, N) of the rows named ProfilerStep#N, in file order."""
    numbers = {}
    for code in np.unique(frame["name"].to_numpy()):
        m = STEP.match(strings[code]) if code >= 0 else None
        if m:
            numbers[code] = int(m.group(1))
    rows = frame.loc[frame["name"].isin(list(numbers))]
    return [(ts, dur, numbers[n]) for ts, dur, n in zip(rows["ts"], rows["dur"], rows["name"])]
