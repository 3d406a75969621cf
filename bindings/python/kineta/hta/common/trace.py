"""HTA's hta.common.trace: Trace, a job's per-rank trace DataFrames and the
symbol table their name/cat columns index, built by kineta.

    from kineta.hta.common.trace import Trace      # was: hta.common.trace
    t = Trace(trace_dir="traces/")
    t.parse_traces()            # HTA's frames as parsed (file times)
    t.load_traces()             # ... aligned and step-filtered, as TraceAnalysis uses them
    df = t.get_trace(0)

kineta's loader reads the files (in C, every rank at once); the frames are
made from its event columns (common/_parse.py) with HTA's rows, ids,
derived columns and dtypes, and a column per arg of the ParserConfig
(docs/hta-python.md).
"""
import gzip
import json
import os

import numpy as np
import pandas as pd

from ..._trace import load
from ..configs.parser_config import ParserConfig
from . import _parse
from .trace_filter import gpu_rows
from .trace_symbol_table import TraceSymbolTable, decode_symbol_id_to_symbol_name

DEFAULT_TRACE_DIR = "/tmp/trace"  # HTA's default


class Trace:
    """A job's traces: trace_files {rank: path}, traces {rank: DataFrame},
    symbol_table, is_parsed, min_ts, as HTA's Trace."""

    def __init__(self, trace_files=None, trace_dir=DEFAULT_TRACE_DIR, parser_config=None):
        self.trace_path = os.path.normpath(os.path.expanduser(trace_dir))
        self.parser_config = parser_config or ParserConfig.get_default_cfg()
        if isinstance(trace_files, dict):
            ranks = sorted(trace_files)
            paths = [self._path(trace_files[r]) for r in ranks]
            self._kt = load(paths, file_ranks=ranks)
        elif trace_files is not None:
            self._kt = load([self._path(f) for f in trace_files])
        else:
            self._kt = load(self.trace_path)
        self.trace_files = self._kt.files
        self.traces = {}
        self.meta_data = {}
        self.symbol_table = TraceSymbolTable()
        self.min_ts = 0
        self.is_parsed = False

    def _path(self, name):
        return name if os.path.isabs(name) or name.startswith(self.trace_path) else os.path.join(self.trace_path, name)

    def parse_traces(self, max_ranks=-1, use_multiprocessing=True, use_memory_profiling=True):
        """HTA's frames as parsed: every rank up to max_ranks, file times."""
        ranks = self._kt.ranks if max_ranks == -1 else self._kt.ranks[:max_ranks]
        self._parse(ranks)

    def parse_single_rank(self, rank):
        if rank in self.trace_files:
            self._parse([rank])

    def parse_multiple_ranks(self, ranks, use_multiprocessing=True, use_memory_profiling=True):
        self._parse(ranks)

    def _parse(self, ranks):
        frames = {}
        for rank in ranks:
            frame = _parse.parsed_frame(self._kt, self._kt.ranks.index(rank), rank,
                                                           self.parser_config.get_args())
            if len(frame):
                frames[rank] = frame
        self._encode(frames)
        self.traces.update(frames)
        self.is_parsed = bool(self.traces)

    def _encode(self, frames):
        """kineta string ids → this table's ids (added in first-seen order)."""
        strings = np.asarray(self._kt.strings(), dtype=object)
        for frame in frames.values():
            used = np.unique(np.concatenate([frame["cat"].to_numpy(), frame["name"].to_numpy()]))
            self.symbol_table.add_symbols(strings[used])
            ids = np.array([self.symbol_table.sym_index[s] for s in strings[used]], dtype=np.int64)
            for col in ("cat", "name"):
                frame[col] = ids[np.searchsorted(used, frame[col].to_numpy())]

    def load_traces(self, include_last_profiler_step=False, use_multiprocessing=True, use_memory_profiling=True):
        """parse_traces, then align_and_filter_trace, rows labelled by index (TraceAnalysis's frames)."""
        if self.is_parsed:
            return
        self.parse_traces()
        self.align_and_filter_trace(include_last_profiler_step)
        for rank, df in self.traces.items():
            df = df.set_index("index", drop=False)
            df.index.names = [None]
            self.traces[rank] = df
        self.is_parsed = True

    def align_and_filter_trace(self, include_last_profiler_step=False):
        """Times from the earliest event of any rank; then, when the job has
        two or more ProfilerSteps, the rows of the last one dropped (kept
        with include_last_profiler_step) and the GPU rows without a kept
        launch, as HTA does."""
        if not self.traces:
            return
        self.min_ts = min(df["ts"].min() for df in self.traces.values())
        for df in self.traces.values():
            df["ts"] = df["ts"] - self.min_ts
        if len(self.symbol_table.get_profiler_step_ids()) >= 2:
            for rank, df in self.traces.items():
                self.traces[rank] = self._kept_steps(df, include_last_profiler_step)

    def _kept_steps(self, df, include_last):
        gpu = gpu_rows(df, self.symbol_table)
        cpu = df.loc[~gpu]
        if cpu.empty:
            return df
        steps = cpu.loc[cpu["name"].isin(self.symbol_table.get_profiler_step_ids())]
        if include_last:
            cpu = cpu.loc[cpu["ts"] <= (steps["end"].max() if len(steps) else cpu["end"].max())]
        else:
            cpu = cpu.loc[cpu["ts"] < (steps["ts"].max() if len(steps) else cpu["ts"].min())]
        kernels = df.loc[gpu].merge(cpu["correlation"], on="correlation")
        return pd.concat([kernels, cpu], axis=0, ignore_index=True)

    def get_ranks(self):
        return sorted(self.traces)

    def _get_first_rank(self, rank=None):
        if rank is None:
            ranks = self.get_ranks()
            return ranks[0] if ranks else -1
        return rank

    def get_iterations(self, rank=None):
        rank = self._get_first_rank(rank)
        if rank in self.traces and "iteration" in self.traces[rank].columns:
            return sorted(int(i) for i in self.traces[rank]["iteration"].unique() if i >= 0)
        return []

    def get_trace_duration(self, rank=None):
        df = self.get_trace(self._get_first_rank(rank))
        return df.ts.max() - df.ts.min()

    def get_trace(self, rank):
        if rank not in self.traces:
            raise ValueError(f"no trace for rank {rank} (ranks: {self.get_ranks()})")
        return self.traces[rank]

    def get_all_traces(self):
        return self.traces

    def get_raw_trace_for_one_rank(self, rank=0):
        """The rank's file as a dict, unfiltered (to write back with write_raw_trace)."""
        if rank not in self.trace_files:
            raise ValueError(f"no trace for rank {rank} (ranks: {sorted(self.trace_files)})")
        path = self.trace_files[rank]
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            return json.load(f)

    def write_raw_trace(self, output_file, trace_contents):
        with gzip.open(output_file, "wt") as fp:
            json.dump(trace_contents, fp, indent=2)

    def decode_symbol_ids(self, use_shorten_name=True):
        """Adds s_name and s_cat (short names by default) to every rank's frame."""
        for df in self.traces.values():
            decode_symbol_id_to_symbol_name(df, self.symbol_table, use_shorten_name)

    def _repr_html_(self):
        rows = "".join(f"<tr><td>{r}</td><td>{len(df)}</td><td>{df.ts.max() - df.ts.min() if len(df) else 0}</td>"
                       f"<td>{os.path.basename(self.trace_files[r])}</td></tr>" for r, df in sorted(self.traces.items()))
        state = "parsed" if self.is_parsed else "not parsed yet (parse_traces())"
        return (f"<p>kineta.hta Trace: {len(self.trace_files)} rank(s), {state}, "
                f"{len(self.symbol_table.sym_table)} symbols</p><table><tr><th>rank</th><th>events</th>"
                f"<th>span (µs)</th><th>file</th></tr>{rows}</table>")
