"""HTA's hta.common.trace_symbol_table: the table of event names and
categories that a trace frame's name/cat columns hold ids into.

HTA's methods and attributes (sym_table, sym_index), with the per-row
lookups done on whole numpy arrays instead of a Python call per row.  Ids
are dense and deterministic (kineta's first-seen order), where HTA's come
from iterating a Python set: compare frames by decoded names, not ids.
"""
import re

import numpy as np
import pandas as pd

from ..utils.utils import shorten_name

# HTA's symbol groups (hta.common.types): the regexes its filters and
# analyses select categories and names with.
PROFILER_STEP = re.compile(r"^ProfilerStep#(\d+)")
MEMORY_KERNEL = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
KERNEL_CATEGORY = re.compile("(kernel)|(gpu_mem.+)|(mtia_ccp_events)")
KERNEL_LAUNCH = re.compile(r"(cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction)")
CPU_EVENT_CATEGORY = re.compile(r"(^cpu_op)|(^user_annotation$)|(^(.+)_runtime)")

# The runtime calls that launch GPU work (HTA's get_runtime_launch_events_mask).
LAUNCH_NAMES = ("cudaMemsetAsync", "cudaMemcpyAsync", "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
                "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel", "hipExtModuleLaunchKernel",
                "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream", "cuLaunchKernelEx")


class TraceSymbolTable:
    """Symbols (sym_table, by id) and their ids (sym_index), as HTA's."""

    NULL = -128

    def __init__(self):
        self.sym_table = []
        self.sym_index = {}

    def is_empty(self):
        return not self.sym_table

    def add_symbols(self, symbols):
        for s in symbols:
            if s not in self.sym_index:
                self.sym_index[s] = len(self.sym_table)
                self.sym_table.append(s)

    add_symbols_mp = add_symbols  # HTA's multiprocess variant: one process is fast enough here

    def get_sym_id_map(self):
        return self.sym_index

    get_sym_index = get_sym_id_map

    def get_sym_table(self):
        return self.sym_table

    def get_sym_index_series(self):
        return pd.Series(self.sym_index, dtype="int64")

    def get_sym_table_series(self):
        return pd.Series(self.sym_table, dtype=object)

    def find_matches(self, patterns):
        """Ids of the symbols containing any of patterns (as literal text, as HTA escapes them)."""
        rx = re.compile("|".join(re.escape(p) for p in patterns))
        return [i for i, s in enumerate(self.sym_table) if rx.search(s)]

    def find_matched_symbols(self, patterns):
        return [self.sym_table[i] for i in self.find_matches(patterns)]

    def get_symbol_ids(self, symbol_pattern):
        """{symbol: id} of the symbols matching a GroupingPattern (or a regex) at their start."""
        rx = getattr(symbol_pattern, "pattern", symbol_pattern)
        inverse = getattr(symbol_pattern, "inverse_match", False)
        return {s: i for s, i in self.sym_index.items() if bool(re.match(rx, s)) != inverse}

    def get_symbol_names(self, symbol_ids):
        wanted = set(symbol_ids)
        return {i: s for i, s in enumerate(self.sym_table) if i in wanted}

    def _ids(self, rx):
        return [i for s, i in self.sym_index.items() if rx.match(s)]

    def get_cpu_event_cat_ids(self):
        return self._ids(CPU_EVENT_CATEGORY)

    def get_gpu_kernel_cat_ids(self):
        return self._ids(KERNEL_CATEGORY)

    def get_profiler_step_ids(self):
        return self._ids(PROFILER_STEP)

    def get_memory_name_ids(self):
        return self._ids(MEMORY_KERNEL)

    def get_kernel_launch_ids(self):
        return self._ids(KERNEL_LAUNCH)

    def decode(self, ids, shorten=False):
        """Symbols of an array of ids ("" for ids outside the table)."""
        symbols = [shorten_name(s) for s in self.sym_table] if shorten else self.sym_table
        table = np.array(list(symbols) + [""], dtype=object)
        ids = np.asarray(ids, dtype=np.int64)
        return table[np.where((ids >= 0) & (ids < len(self.sym_table)), ids, len(self.sym_table))]

    def encode(self, symbols):
        """Ids of an array of symbols (KeyError for one not in the table)."""
        uniques, inverse = np.unique(np.asarray(symbols, dtype=object), return_inverse=True)
        return np.array([self.sym_index[s] for s in uniques], dtype=np.int64)[inverse]

    def encode_df(self, df):
        for col in ("name", "cat"):
            if col in df.columns and pd.api.types.is_string_dtype(df[col]):
                df[col] = self.encode(df[col].to_numpy())

    def decode_df(self, df, create_new_columns=True):
        for col in ("name", "cat"):
            if col in df.columns and df[col].dtype.kind == "i":
                df["s_" + col if create_new_columns else col] = self.decode(df[col].to_numpy())

    def update_encoded_df(self, df, old_symbol_table):
        for col in ("cat", "name"):
            df[col] = self.encode(old_symbol_table.decode(df[col].to_numpy()))

    def add_symbols_to_trace_df(self, trace_df, col):
        """Replaces ids in trace_df[col] by their symbols ("" outside the table), in place."""
        trace_df[col] = self.decode(trace_df[col].to_numpy())

    def _name_ids(self, names):
        return [self.sym_index.get(n, self.NULL) for n in names]

    def get_operator_or_cuda_runtime_mask(self, df):
        return df["cat"].isin(self._name_ids(("cpu_op", "cuda_driver", "cuda_runtime")))

    def get_runtime_launch_events_mask(self, df):
        return df["name"].isin(self._name_ids(LAUNCH_NAMES)) & (df["index_correlation"] > 0)

    def get_events_mask(self, df, events):
        if events is None:
            return pd.Series(False, index=df.index)
        return df["name"].isin(self.find_matches(events))

    def _to_csv_file(self, file_path):
        pd.DataFrame(data=self.sym_table, columns=["symbol"]).to_csv(file_path, index=True)

    @staticmethod
    def from_csv_file(file_path):
        df = pd.read_csv(file_path)
        if "symbol" not in df.columns:
            raise ValueError(f"{file_path}: expect a column'symbol' in the csv")
        table = TraceSymbolTable()
        table.add_symbols(df["symbol"].tolist())
        return table

    @staticmethod
    def combine_symbol_tables(tables):
        result = TraceSymbolTable()
        for t in tables:
            result.add_symbols(t.get_sym_table())
        return result

    @staticmethod
    def clone(symbol_table):
        table = TraceSymbolTable()
        table.sym_table, table.sym_index = list(symbol_table.sym_table), dict(symbol_table.sym_index)
        return table

    @staticmethod
    def create_from_df(df):
        if not all(c in df.columns and pd.api.types.is_string_dtype(df[c]) for c in ("name", "cat")):
            raise ValueError("Expect both name and cat columns of string types to be present in the dataframe")
        table = TraceSymbolTable()
        table.add_symbols(pd.unique(np.concatenate([df["cat"].to_numpy(), df["name"].to_numpy()])))
        return table

    @staticmethod
    def create_from_symbol_id_map(symbol_id_map):
        by_id = {v: k for k, v in symbol_id_map.items()}
        table = TraceSymbolTable()
        table.add_symbols(by_id.get(i, f"Undefined-{i}") for i in range(max(symbol_id_map.values()) + 1))
        return table


def decode_symbol_id_to_symbol_name(df, symbol_table, use_shorten_name):
    """Adds s_name, s_cat (and s_user_annotation) with the symbols of the id columns, as HTA does."""
    for col in ("name", "cat", "user_annotation"):
        if col in df.columns and df[col].dtype.kind == "i":
            df["s_" + col] = symbol_table.decode(df[col].to_numpy(), shorten=use_shorten_name)
