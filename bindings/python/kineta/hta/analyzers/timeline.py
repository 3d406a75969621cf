"""HTA's hta.analyzers.timeline: GPU kernels of one or several ranks'
frames on a timeline (plotly), a row per rank and stream.

    from kineta.hta.analyzers.timeline import plot_timeline_gpu_kernels   # was: hta.analyzers.timeline
    df = pd.concat([t.get_trace(r) for r in ranks], keys=ranks, names=["rank", "idx"]).reset_index()
    plot_timeline_gpu_kernels("GPU kernels", df, t.symbol_table, iterations=[551])
"""
import re

import numpy as np
import pandas as pd

from .._plot import plotly_express

_NOISE = [re.compile(p) for p in (r"\(.+\)", r"<[^<]+>?", r"^void\s+", r"\s+", r"autograd::engine::evaluate_function")]


def _simplify_name(name):
    for pattern in _NOISE:
        name = pattern.sub("", name)
    return name if len(name) < 45 else name[:42] + "..."


def _unique_values(df, col, exclude_values=(-1,)):
    if col not in df:
        raise ValueError(f"{col} not in the DataFrame's columns: {df.columns}")
    return sorted(v for v in df[col].unique().tolist() if v not in exclude_values)


def plot_timeline(title, events, ranks=None):
    """Shows a timeline of prepared events (prepare_timeline_gpu_events's columns)."""
    must = ["calibrated_start_global", "calibrated_end_global", "task", "label"]
    if not set(must).issubset(events.columns):
        raise ValueError(f"the events dataframe doesn't contain all required columns {must}")
    if ranks is None:
        ranks = sorted(events["rank"].unique()) if "rank" in events.columns else []
    px = plotly_express()
    hover = sorted(set(events.columns) & {"rank", "stream", "iteration", "s_cat", "cat", "s_name", "name", "dur"})
    fig = px.timeline(events, x_start="calibrated_start_global", x_end="calibrated_end_global", y="task",
                      hover_data=hover, category_orders={"task": sorted(events["task"].unique())}, color="label",
                      color_discrete_sequence=px.colors.qualitative.D3, width=1600, height=200 + 120 * len(ranks),
                      title=title)
    fig.show()


def prepare_timeline_gpu_events(df, symbol_table, ranks=None, iterations=None, streams=None, duration_threshold=1000):
    """The GPU rows (stream != -1) of the given ranks, iterations and streams,
    with short names, a task per rank and stream, and start/end times (short
    kernels widened to duration_threshold µs)."""
    missing = {"iteration", "name", "cat", "rank", "stream", "ts"} - set(df.columns)
    if missing:
        raise ValueError(f"columns {missing} are not in input DataFrame")
    ranks = _unique_values(df, "rank") if ranks is None else ranks
    iterations = _unique_values(df, "iteration") if iterations is None else iterations
    streams = _unique_values(df, "stream") if streams is None else streams
    events = df.loc[df["rank"].isin(ranks) & df["iteration"].isin(iterations) & df["stream"].isin(streams)].copy()
    table = symbol_table.get_sym_table()
    short = np.array([_simplify_name(s) for s in table], dtype=object)
    events["s_name"] = short[events["name"].to_numpy()]
    events["s_cat"] = np.asarray(table, dtype=object)[events["cat"].to_numpy()]
    events["calibrated_start_global"] = pd.to_datetime(events["ts"], unit="us")
    events["calibrated_end_global"] = pd.to_datetime(events["ts"] + np.maximum(events["dur"], duration_threshold),
                                                     unit="us")
    events["label"] = events["s_name"]
    events["task"] = "rank " + events["rank"].astype(str) + " stream " + events["stream"].astype(str)
    return events.sort_values(by=["rank", "stream", "ts"])


def plot_timeline_gpu_kernels(title, df, symbol_table, ranks=None, iterations=None, streams=None,
                              duration_threshold=1000):
    """Shows the GPU kernels of df (frames with a rank column) on a timeline."""
    plot_timeline(title, prepare_timeline_gpu_events(df, symbol_table, ranks, iterations, streams,
                                                     duration_threshold))


def plot_timeline_gpu_kernels_from_trace(title, trace_data, ranks=None, iterations=None, streams=None,
                                         duration_threshold=1000):
    """plot_timeline_gpu_kernels on a Trace's frames."""
    chosen = [r for r in trace_data.get_all_traces() if ranks is None or r in ranks]
    df = pd.concat([trace_data.get_trace(r) for r in chosen], axis=0, keys=chosen, names=["rank", "idx"]).reset_index()
    plot_timeline_gpu_kernels(title, df, trace_data.symbol_table, ranks, iterations, streams, duration_threshold)
