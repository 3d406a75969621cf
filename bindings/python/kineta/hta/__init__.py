"""HTA's API on kineta, under HTA's module paths: replacing the prefix
`hta.` with `kineta.hta.` is the whole migration of a notebook.

    from kineta.hta.trace_analysis import TraceAnalysis   # was: hta.trace_analysis
    ta = TraceAnalysis(trace_dir="traces/")
    ta.get_temporal_breakdown(visualize=False)

    import kineta.hta as hta                              # was: import hta
"""
from .analyzers.critical_path_analysis import CPGraph
from .trace_analysis import TimeSeriesTypes, TraceAnalysis
from .trace_diff import DeviceType, LabeledTrace, TraceDiff

__all__ = ["CPGraph", "DeviceType", "LabeledTrace", "TimeSeriesTypes", "TraceAnalysis", "TraceDiff"]
