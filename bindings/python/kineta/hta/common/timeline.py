"""HTA's hta.common.timeline: timeline figures of trace frames (plotly
Gantt charts, one row per stream, CPU level or rank), prepared a column at
a time.

    from kineta.hta.common.timeline import Timeline     # was: hta.common.timeline
    Timeline(df, t.symbol_table, filter_func=GPUKernelFilter()).plot("GPU kernels")
"""
import logging
import re
from dataclasses import dataclass
from enum import Enum

import numpy as np
import pandas as pd

from .._plot import plotly_express, show_or_return

logger = logging.getLogger("kineta.hta")

AnnotationStreamID = 0
CPUStreamID = -1
DefaultMustHaveColumns = ["name", "ts", "dur"]
DefaultHoverColumns = ["trace", "rank", "iteration", "stream", "cat", "index"]
DefaultTaskLabelColumns = ["stream", "rank", "trace", "depth"]
REQUIRED_COLUMNS_FOR_CPU_GPU_ALIGNMENT = {"index", "stream", "ts", "dur", "name", "first_kernel_start", "kernel_span",
                                          "num_kernels"}


class EventType(Enum):
    GPUEvents = 0
    CPUEvents = 1
    AllEvents = 2


class PlotFormat(Enum):
    HTML = "html"      # return the figure as an HTML string
    Inline = "inline"  # show the figure
    File = "file"      # only save it


@dataclass
class TimelinePlotSetting:
    auto_detect: bool = True
    event_type: EventType = EventType.GPUEvents
    multi_ranks: bool = False
    multi_traces: bool = False
    multi_streams: bool = True
    x_start_column: str = "calibrated_start_global"
    x_end_column: str = "calibrated_end_global"
    task_column: str = "task"
    color_column: str = "name"
    task_height: int = 30
    amplify_short_events: bool = True
    short_events_display_duration: int = 1000
    use_global_time: bool = False
    plot_format: PlotFormat = PlotFormat.Inline
    compress_threads: bool = True


DefaultTimelinePlotSetting = TimelinePlotSetting()


def _several(events, column):
    return column in events.columns and events[column].nunique() > 1


def auto_detect_setting(events, setting):
    """Ranks, traces, streams and CPU/GPU kind of the events, into setting."""
    if not setting.auto_detect:
        return
    setting.multi_ranks, setting.multi_traces = _several(events, "rank"), _several(events, "trace")
    setting.multi_streams = _several(events, "stream")
    streams = events["stream"].unique().tolist() if "stream" in events.columns else [-1]
    if len(streams) > 1 and -1 in streams:
        setting.event_type = EventType.AllEvents
    else:
        setting.event_type = EventType.CPUEvents if -1 in streams else EventType.GPUEvents


_KEEP = re.compile(r"(^##.+##$)|(^<.+>$)|(^Mem\w+(\s+\w+)?\s+\(.+\)$)")
_NAME = re.compile(r"^(void\s+)?([\w_:.#\s<>,]+)(\(.+\))?")


def _simplify_name(name, max_length=45):
    """A label of at most max_length characters: no return type, arguments or namespaces' noise."""
    max_length = max(20, max_length)
    if not _KEEP.match(name):
        name = re.sub(r"\(anonymous namespace\)::", "anon::", name)
        name = re.sub(r"^void\s+", "", name)
        name = re.sub(r"autograd::engine::evaluate_function: ", "autograd::", name)
        m = _NAME.match(name)
        if m:
            name = m.group(2)
    return name if len(name) < max_length else name[: max_length - 3] + "..."


def _label(prefix, col):
    text = col.str.pad(width=5, side="right") if pd.api.types.is_string_dtype(col) else col.astype(str).str.zfill(3)
    return f"{prefix} " + text


def _join(tasks, labels):
    return labels if tasks is None else tasks + " " + labels


def _task_names(events, setting):
    """The row label of each event: trace, rank, then stream or CPU level."""
    tasks = None
    if setting.multi_traces:
        tasks = _join(tasks, _label("trace", events["trace"]))
    if setting.multi_ranks:
        tasks = _join(tasks, _label("rank", events["rank"]))
    if setting.event_type == EventType.GPUEvents:
        if setting.multi_streams:
            tasks = _join(tasks, _label("gpu stream", events["stream"]))
    elif setting.event_type == EventType.CPUEvents:
        if "tid" in events.columns and not setting.compress_threads:
            tasks = _join(tasks, _label("tid", events["tid"]))
        if "depth" in events.columns:
            tasks = _join(tasks, _label("cpu level", events["depth"]))
        if tasks is None:
            tasks = pd.Series("cpu events", index=events.index)
    else:
        stream = events["stream"]
        cpu = ("cpu level " + events["depth"].astype(str).str.zfill(3)) if "depth" in events.columns else "cpu events"
        labels = pd.Series(np.where(stream.eq(-1), cpu, np.where(stream.eq(AnnotationStreamID), "gpu annotate",
                                    "gpu stream " + stream.astype(str).str.zfill(3))), index=events.index)
        tasks = _join(tasks, labels)
    if tasks is None:
        raise NotImplementedError("The events must have at least one of label columns "
                                  "(`trace`, `rank`, `stream`, `tid`, `depth`)")
    return tasks


def _sort_columns(events, setting):
    columns = (["trace"] if setting.multi_traces else []) + (["rank"] if setting.multi_ranks else [])
    if setting.event_type == EventType.GPUEvents:
        columns += ["stream"] if setting.multi_streams else []
    elif setting.event_type == EventType.CPUEvents:
        columns += ["tid", "depth"]
    else:
        columns += ["stream"]
    return [c for c in columns + ["ts"] if c in events.columns]


def _name_column(df):
    for column in ("name", "s_name"):
        if column in df.columns and pd.api.types.is_string_dtype(df[column]):
            return column
    return ""


def align_module_with_kernels(events_df, module_list, sym_table=None, include_original_cpu_events=False):
    """Annotation events (stream 0) copying the CPU events named by
    module_list, moved to span their kernels (first_kernel_start,
    kernel_span: CallGraph's columns), with the GPU events (and the CPU
    events when include_original_cpu_events)."""
    missing = REQUIRED_COLUMNS_FOR_CPU_GPU_ALIGNMENT - set(events_df.columns)
    if missing:
        raise ValueError(f"The input df doesn't contain required columns: {missing}")
    cpu = events_df.loc[events_df["stream"].eq(CPUStreamID) & events_df["num_kernels"].ge(1)]
    if sym_table is not None and not pd.api.types.is_string_dtype(events_df["name"]):
        ids = {i for pattern in module_list for i in sym_table.get_symbol_ids(pattern).values()}
        chosen = cpu.loc[cpu["name"].isin(ids)]
    else:
        column = _name_column(events_df)
        if not column:
            raise ValueError("The event data Frame doesn't contain a string column `name` or `s_name`"
                             " or an int `name` column with a symbol table.")
        chosen = cpu.loc[np.logical_or.reduce([cpu[column].str.match(p) for p in module_list])]
    original = (events_df.loc[~events_df["stream"].isin([AnnotationStreamID])] if include_original_cpu_events
                else events_df.loc[events_df["stream"].gt(0)])
    annotations = chosen.copy()
    annotations["ts"] = annotations["first_kernel_start"].astype(int)
    annotations["dur"] = annotations["kernel_span"].astype(int)
    annotations["stream"] = AnnotationStreamID
    return pd.concat([original, annotations], ignore_index=True)


def prepare_timeline_events(df, setting=DefaultTimelinePlotSetting, symbol_table=None, hover_columns=None):
    """The rows to plot: names decoded and shortened, times from the first
    event, short events widened to short_events_display_duration, a task
    (row label) per event, sorted as drawn."""
    if df.empty or not set(DefaultMustHaveColumns).issubset(df.columns):
        logger.error("the frame is empty or lacks one of %s", DefaultMustHaveColumns)
        return pd.DataFrame()
    wanted = set(hover_columns or DefaultHoverColumns) | set(DefaultMustHaveColumns) | set(DefaultTaskLabelColumns)
    events = df[[c for c in df.columns if c in wanted]].copy()
    auto_detect_setting(df, setting)
    if symbol_table:
        short = np.array([_simplify_name(_simplify_name(s)) for s in symbol_table.get_sym_table()], dtype=object)
        events["name"] = short[events["name"].to_numpy()]
        if "cat" in events.columns:
            events["cat"] = np.array([_simplify_name(s) for s in symbol_table.get_sym_table()],
                                     dtype=object)[events["cat"].to_numpy()]
    start = events["ts"].min()
    events["ts"] = events["ts"] - start
    events[setting.x_start_column] = events["ts"]
    shown = np.maximum(events["dur"], setting.short_events_display_duration) if setting.amplify_short_events \
        else events["dur"]
    events[setting.x_end_column] = events["ts"] + shown
    if setting.use_global_time:
        for column in (setting.x_start_column, setting.x_end_column):
            events[column] = pd.to_datetime(events[column] + start, unit="us")
    events[setting.task_column] = _task_names(events, setting)
    return events.sort_values(by=_sort_columns(events, setting))


def plot_events_timeline(title, events, setting=DefaultTimelinePlotSetting, hover_columns=None,
                         output_image_path=None):
    """The timeline figure of prepared events (prepare_timeline_events):
    shown, returned as HTML or saved, by setting.plot_format."""
    must = {setting.x_start_column, setting.x_end_column, setting.task_column, setting.color_column}
    if events.empty or not must.issubset(events.columns):
        logger.error("nothing to plot: the frame is empty or lacks one of %s", must)
        return None
    px = plotly_express()
    tasks = sorted(events[setting.task_column].unique())
    height = 80 if len(tasks) < 20 else setting.task_height
    fig = px.timeline(events, x_start=setting.x_start_column, x_end=setting.x_end_column, y=setting.task_column,
                      hover_data=[c for c in (hover_columns or DefaultHoverColumns) if c in events.columns],
                      category_orders={setting.task_column: tasks}, color=setting.color_column,
                      color_discrete_sequence=px.colors.qualitative.D3, height=50 + height * len(tasks), title=title)
    fig.layout.xaxis.type = "linear"
    for trace in fig.data:  # a linear axis: bar lengths are durations
        trace.x = events[events["name"].eq(trace.name)]["dur"].tolist()
    fig.update_layout(xaxis_range=[events[setting.x_start_column].min(), events[setting.x_end_column].max()],
                      xaxis={"showgrid": True, "rangeslider_visible": True}, paper_bgcolor="rgba(0,0,0,0)")
    return show_or_return(fig, setting.plot_format.value, output_image_path)


def get_fig_title_from_fig_name(fig_name, sep=r"\s+|_+|-+"):
    return " ".join(s.capitalize() for s in re.split(sep, fig_name or "untitled_figure") if s)


def get_fig_name_from_fig_title(title):
    return "_".join(s.lower() for s in re.split(r"\s+", title or "Untitled Figure") if s)


class Timeline:
    """A frame's events prepared for a timeline (filtered by filter_func); plot() draws it."""

    def __init__(self, timeline_events, symbol_table, filter_func=None, setting=DefaultTimelinePlotSetting,
                 hover_columns=None):
        self.timeline_events = timeline_events
        self.symbol_table = symbol_table
        self.setting = setting
        self.hover_columns = hover_columns or DefaultHoverColumns
        self.prepare(filter_func)

    @staticmethod
    def is_timeline_events(df, setting):
        return {setting.task_column, setting.x_start_column, setting.x_end_column}.issubset(df.columns)

    def prepare(self, filter_func=None):
        if self.is_timeline_events(self.timeline_events, self.setting):
            return
        if filter_func:
            self.timeline_events = filter_func(self.timeline_events, self.symbol_table).copy()
        self.timeline_events = prepare_timeline_events(self.timeline_events, symbol_table=self.symbol_table,
                                                       setting=self.setting)

    def plot(self, title, save_path=None):
        return plot_events_timeline(title, self.timeline_events, setting=self.setting,
                                    hover_columns=self.hover_columns, output_image_path=save_path)
