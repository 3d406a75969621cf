"""HTA's hta.trace_analysis on kineta: TraceAnalysis and TimeSeriesTypes.

    from kineta.hta.trace_analysis import TraceAnalysis   # was: hta.trace_analysis
    ta = TraceAnalysis(trace_dir="traces/")
    ta.get_temporal_breakdown(visualize=False)

Traces load with HTA's semantics (kineta --hta-compat: µs rounding of ns
traces, the last ProfilerStep dropped), so frames equal HTA's.  Methods
keep HTA's names, arguments, defaults and return shapes; with
`visualize=True` they show HTA's plotly figures (_figures.py).  Analyses
kineta has not implemented raise NotImplementedError, never a wrong frame.
"""
import os
from enum import Flag, auto

import pandas as pd

from . import _figures
from .._native import KinetaError
from .._trace import load
from .common.trace import Trace
from .analyzers import cupti_counter_analysis
from .analyzers.critical_path_analysis import CPGraph, CriticalPathRegion


def _per_rank(frame, ranks):
    """HTA's Dict[rank, DataFrame] from one frame with a rank column (which HTA's frames do not have)."""
    return {int(r): frame[frame["rank"] == r].drop(columns=["rank"]).reset_index(drop=True) for r in ranks}


def _rank_zero(ranks):
    """The ranks asked for; HTA's default is rank 0 where its counters and launch stats take ranks."""
    return list(ranks) if ranks else [0]


def _described(summary, index, measure):
    """A summary as HTA's describe() leaves it: index columns as the index,
    the statistics under a (measure, statistic) column level; None when empty."""
    if not len(summary):
        return None
    summary = summary.set_index(index)
    summary.columns = pd.MultiIndex.from_tuples([(measure, c[len(measure) + 1:]) for c in summary.columns])
    return summary


class TimeSeriesTypes(Flag):
    """HTA's choice of counters for generate_trace_with_counters."""
    QUEUE_LENGTH = auto()
    MEMCPY_BANDWIDTH = auto()


class TraceAnalysis:
    def __init__(self, trace_files=None, trace_dir=None, include_last_profiler_step=False, jobs=0):
        if trace_files:
            ranks = sorted(trace_files)
            paths = [os.path.join(trace_dir or "", trace_files[r]) for r in ranks]
            self._kt = load(paths, jobs=jobs, hta_compat=not include_last_profiler_step, file_ranks=ranks)
        else:
            self._kt = load(trace_dir or "./traces", jobs=jobs, hta_compat=not include_last_profiler_step)
        self.trace_dir = trace_dir
        self._include_last = include_last_profiler_step
        self._trace = None

    @property
    def t(self):
        """HTA's Trace of these files (common.trace: get_trace, symbol_table), built on first use."""
        if self._trace is None:
            self._trace = Trace(trace_files=self._kt.files)
            self._trace.load_traces(include_last_profiler_step=self._include_last)
        return self._trace

    def _ranks(self, ranks):
        return None if ranks is None else list(ranks)

    def _run(self, command, **options):
        """Frames as HTA holds them: floats rounded where HTA rounds."""
        return self._kt.run(command, rounded=True, **options)

    def get_temporal_breakdown(self, visualize=True):
        frame = self._run("temporal")["temporal_breakdown"]
        if visualize:
            _figures.temporal_breakdown(frame)
        return frame

    def get_gpu_kernel_breakdown(self, visualize=True, duration_ratio=0.8, num_kernels=10,
                                 include_memory_kernels=True, image_renderer=None):
        f = self._run("breakdown", num_kernels=num_kernels, duration_ratio=duration_ratio,
                             no_memory=not include_memory_kernels)
        if visualize:
            analyzed = ["COMPUTATION", "COMMUNICATION"] + (["MEMORY"] if include_memory_kernels else [])
            _figures.kernel_breakdown(f["kernel_type"], f["kernels"], self._kt.ranks, analyzed, image_renderer)
        return f["kernel_type"], f["kernels"]

    def get_idle_time_breakdown(self, ranks=None, streams=None, visualize=True, visualize_pctg=True,
                                show_idle_interval_stats=False, consecutive_kernel_delay=30):
        stream_list = ",".join(str(s) for s in streams) if streams else None
        f = self._run("idle", ranks=self._ranks(ranks), streams=stream_list,
                        consecutive_kernel_delay=consecutive_kernel_delay)
        if visualize:
            _figures.idle_time_breakdown(f["idle_time"], visualize_pctg)
        return f["idle_time"], (f["interval_stats"].set_index("idle_category") if show_idle_interval_stats else None)

    def get_comm_comp_overlap(self, visualize=True):
        frame = self._run("overlap")["comm_comp_overlap"]
        if visualize:
            _figures.comm_comp_overlap(frame)
        return frame

    def get_cuda_kernel_launch_stats(self, ranks=None, runtime_cutoff=50, launch_delay_cutoff=100,
                                     visualize=True):
        ranks = _rank_zero(ranks)
        f = self._run("launch", ranks=ranks, runtime_cutoff=runtime_cutoff, launch_delay_cutoff=launch_delay_cutoff)
        frames = _per_rank(f["launches"], ranks)
        if visualize:
            for rank, events in frames.items():
                _figures.launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff)
        return frames

    def get_queue_length_summary(self, ranks=None):
        summary = self._run("queue", ranks=_rank_zero(ranks))["summary"]
        return _described(summary, ["rank", "stream"], "queue_length")

    def get_queue_length_time_series(self, ranks=None):
        ranks = _rank_zero(ranks)
        return _per_rank(self._run("queue", ranks=ranks)["series"], ranks)

    def get_time_spent_blocked_on_full_queue(self, queue_length_dict=None, max_queue_length=1024):
        ranks = list(queue_length_dict) if queue_length_dict else None
        blocked = self._run("queue", ranks=ranks, max_queue_length=max_queue_length)["blocked"]
        return blocked if len(blocked) else None

    def get_memory_bw_summary(self, ranks=None):
        summary = self._run("memcpy-bw", ranks=_rank_zero(ranks))["summary"]
        return _described(summary, ["rank", "name"], "memory_bw_gbps")

    def get_memory_bw_time_series(self, ranks=None):
        ranks = _rank_zero(ranks)
        return _per_rank(self._run("memcpy-bw", ranks=ranks)["series"], ranks)

    def generate_trace_with_counters(self, time_series=None, ranks=None, output_suffix="_with_counters",
                                     output_dir=None):
        """Writes <trace>_with_counters.json[.gz] beside the traces, as HTA
        does (output_dir elsewhere); returns kineta's table of files written."""
        if output_suffix != "_with_counters":
            raise NotImplementedError("kineta writes <name>_with_counters only")
        out = output_dir or self.trace_dir or "."
        return self._kt.counters(ranks=_rank_zero(ranks), out=out)

    def get_gpu_user_annotation_breakdown(self, use_gpu_annotation=True, visualize=True, duration_ratio=0.8,
                                         num_kernels=1000, allowlist_patterns=None, image_renderer=None):
        if duration_ratio != 0.8:
            raise NotImplementedError("kineta folds annotations at HTA's default duration_ratio=0.8 only")
        frame = self._run("annotations", num_annotations=num_kernels,
                          allow=list(allowlist_patterns or []))["gpu" if use_gpu_annotation else "cpu"]
        if not len(frame):
            return None
        if visualize:
            _figures.annotation_breakdown(frame, self._kt.ranks, image_renderer)
        return frame

    def get_gpu_kernels_with_user_annotations(self, rank, expand_names=True, shorten_names=True):
        frame = self._run("annotations", ranks=[rank], full_names=not shorten_names)["kernels"]
        return frame.drop(columns=["rank"]) if len(frame) else None

    def get_aten_op_kernels_and_delay(self, ranks=None, sort_by=None):
        wanted = list(ranks) if ranks is not None else [self._kt.ranks[0]]
        ops = self._run("ops", ranks=wanted)["ops"]
        out = {}
        for r in wanted:
            frame = ops[ops["rank"] == r].drop(columns=["rank"]).reset_index(drop=True)
            if sort_by:
                frame = frame.sort_values(by=sort_by, ascending=False, ignore_index=True)
            out[int(r)] = frame
            _figures.aten_op_kernels(r, frame)  # HTA shows this table on every call
        return out

    def get_cupti_counter_data_with_operators(self, ranks=None):
        """HTA's frames of CUPTI counter events with their operators (analyzers/cupti_counter_analysis.py)."""
        return cupti_counter_analysis.get_counter_data_with_operators(self.t, ranks)

    def get_frequent_cuda_kernel_sequences(self, operator_name, output_dir, min_pattern_len=3, rank=0, top_k=5,
                                           visualize=False, compress_other_kernels=True):
        """HTA's frequent sequences; writes overlaid_<file> into output_dir."""
        if not operator_name:
            return pd.DataFrame()
        frame = self._run("patterns", ranks=[rank], out=output_dir, op=operator_name, min_len=min_pattern_len,
                          top=top_k, keep_names=not compress_other_kernels)["patterns"]
        if not len(frame):
            return pd.DataFrame()  # HTA's frame when no pattern is found (no figure either)
        frame = frame.drop(columns=["rank"], errors="ignore")
        if visualize:
            _figures.frequent_patterns(frame, min(top_k, len(frame)), rank)
        return frame

    def get_profiler_steps(self):
        steps = self._run("info")["steps"]
        return sorted(int(s) for s in steps[steps["side"] == "cpu"]["step"].unique())

    def get_potential_stragglers(self, profiler_steps=None, num_candidates=2, visualize=False,
                                 straggler_identification_impl=None):
        """HTA's list of straggler ranks (its late-start metric; docs/collectives.md)."""
        if straggler_identification_impl is not None:
            raise NotImplementedError("kineta runs HTA's default metric only")
        steps = ",".join(str(s) for s in profiler_steps) if profiler_steps is not None else None
        if profiler_steps is not None and not steps:
            raise ValueError(f"invalid value for argument: profiler_steps={profiler_steps}")
        f = self._run("stragglers", candidates=max(num_candidates, 1), steps=steps)  # HTA: k < 1 → 1
        if visualize and len(f["metric"]):
            chosen = profiler_steps if profiler_steps is not None else self.get_profiler_steps()
            _figures.stragglers(self.t, chosen, f["metric"])
        return [int(r) for r in f["stragglers"]["rank"]]

    def critical_path_analysis(self, rank, annotation, instance_id, data_load_events=None):
        """HTA's (CPGraph, success) as (CPGraph, True), or None when
        the annotation (or the window) gives no graph, as HTA returns None."""
        if data_load_events:
            raise NotImplementedError("kineta has no data_loading class on the critical path")
        if rank not in self._kt.ranks:
            raise ValueError(f"no trace for rank {rank}")  # HTA's Trace.get_trace
        region = CriticalPathRegion(rank, annotation, instance_id)
        try:
            frames = self._run("critical-path", ranks=[rank], no_overlay=True, **region.options())
        except KinetaError as e:
            if e.status != 1:
                raise
            return None
        return CPGraph(region, frames), True

    def overlay_critical_path_analysis(self, rank, critical_path_graph, output_dir, only_show_critical_events=True,
                                       show_all_edges=False):
        """Writes output_dir/overlaid_critical_path_<file> (HTA's format);
        returns its path."""
        region = critical_path_graph.region
        if rank != region.rank:
            raise ValueError(f"the graph is rank {region.rank}'s, not rank {rank}'s")
        files = self._run("critical-path", ranks=[rank], out=output_dir, only_critical=only_show_critical_events,
                          all_edges=show_all_edges and not only_show_critical_events, **region.options())["files"]
        return files["output"].iloc[0]

    def __getattr__(self, name):
        if name.startswith("get_") or name.endswith("_analysis"):
            raise NotImplementedError(f"kineta.hta: {name} is not available in this kineta")
        raise AttributeError(name)
