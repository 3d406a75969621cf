"""HTA's hta.common.trace_filter: callables that select rows of a trace
frame (Trace.get_trace), with HTA's classes, arguments and results.

    from kineta.hta.common.trace_filter import NameFilter   # was: hta.common.trace_filter
    NameFilter("aten::.*mm")(df, t.symbol_table)
"""
import logging
from abc import ABC, abstractmethod

import pandas as pd

from ._parse import SYNC_NAMES, gpu_mask
from .trace_symbol_table import TraceSymbolTable

logger = logging.getLogger("kineta.hta")


def _as_list(value, what):
    if not isinstance(value, (int, list)):
        raise TypeError(f"{what} must be an integer or a list of integers.")
    return [value] if isinstance(value, int) else value


def _has(df, column):
    if column not in df.columns:
        logger.warning("The DataFrame has no column named '%s'.", column)
        return False
    return True


def symbol_column_names(df):
    """The columns holding name and cat as strings ("name"/"s_name", "cat"/"s_cat"), "" when none."""
    def first(candidates):
        return next((c for c in candidates if c in df.columns and pd.api.types.is_string_dtype(df[c])), "")
    return first(("name", "s_name")), first(("cat", "s_cat"))


class Filter(ABC):
    """A row selection: filter(df) or filter(df, symbol_table) → DataFrame."""

    @abstractmethod
    def __call__(self, df, symbol_table=None):
        raise NotImplementedError()


class IterationFilter(Filter):
    """Rows of the given iteration numbers (ProfilerStep#N's N)."""

    def __init__(self, iterations):
        self.iterations = _as_list(iterations, "Iterations")

    def __call__(self, df, symbol_table=None):
        return df.loc[df["iteration"].isin(self.iterations)] if _has(df, "iteration") else df


class IterationIndexFilter(Filter):
    """Rows of the iterations at the given positions among the frame's iterations (-1 not counted)."""

    def __init__(self, iteration_index):
        self.iteration_index = _as_list(iteration_index, "iteration_index")

    def __call__(self, df, symbol_table=None):
        if not _has(df, "iteration"):
            return df
        iterations = [i for i in sorted(df["iteration"].unique()) if i != -1]
        if not iterations:
            return df
        chosen = [it for pos, it in enumerate(iterations) if pos in self.iteration_index]
        if not chosen:
            logger.warning("Indices %s select no iterations.", self.iteration_index)
            return pd.DataFrame()
        return df.loc[df["iteration"].isin(chosen)]


class FirstIterationFilter(IterationIndexFilter):
    def __init__(self):
        super().__init__([0])


class RankFilter(Filter):
    """Rows of the given ranks (a frame with a rank column)."""

    def __init__(self, ranks):
        self.ranks = _as_list(ranks, "ranks")

    def __call__(self, df, symbol_table=None):
        return df.loc[df["rank"].isin(self.ranks)] if _has(df, "rank") else df


class TimeRangeFilter(Filter):
    """Rows that start at or after time_range[0] and end at or before time_range[1]."""

    def __init__(self, time_range):
        if not (isinstance(time_range, tuple) and len(time_range) == 2 and all(isinstance(t, int) for t in time_range)):
            raise ValueError("time_range must be a tuple of two integers.")
        if time_range[0] > time_range[1]:
            raise ValueError("Start time must be less than or equal to end time.")
        self.time_start, self.time_end = time_range

    def __call__(self, df, symbol_table=None):
        if not _has(df, "ts"):
            return df
        return df.loc[df["ts"].ge(self.time_start) & (df["ts"] + df["dur"]).le(self.time_end)]


class NameStringColumnFilter(Filter):
    """Rows whose name (a string column) matches name_pattern at its start."""

    def __init__(self, name_pattern):
        self.name_pattern = name_pattern

    def __call__(self, df, symbol_table=None):
        column, _ = symbol_column_names(df)
        if not column:
            logger.warning("The DataFrame doesn't have a name column of string type")
            return df
        return df.loc[df[column].str.match(self.name_pattern)]


class NameIdColumnFilter(Filter):
    """Rows whose name id is a symbol matching name_pattern at its start."""

    def __init__(self, name_pattern):
        self.name_pattern = name_pattern
        self.name_column = "name"

    def __call__(self, df, symbol_table=None):
        if symbol_table is None:
            logger.warning("The argument `symbol_table` cannot be None in `NameIdColumnFilter`")
            return df
        ids = symbol_table.get_symbol_ids(self.name_pattern).values()
        return df.loc[df[self.name_column].isin(list(ids))]


class NameFilter(Filter):
    """Rows whose name matches name_pattern: by id with a symbol table, else on the string column."""

    def __init__(self, name_pattern, symbol_table=None, name_column=None):
        self.name_pattern = name_pattern
        self.symbol_table = symbol_table
        self.name_column = name_column

    def __call__(self, df, symbol_table=None):
        if df.empty:
            return df
        table = symbol_table or self.symbol_table
        if table is None:
            return NameStringColumnFilter(self.name_pattern)(df)
        return NameIdColumnFilter(self.name_pattern)(df, table)


class QueryFilter:
    """Rows matching a DataFrame.query expression."""

    def __init__(self, query_str):
        self.filter_query = query_str

    def __call__(self, df, symbol_table=None):
        return df.query(self.filter_query)


ZeroDurationFilter = QueryFilter("dur > 0")


def gpu_rows(df, symbol_table):
    """Mask of GPU work (a stream and a correlation) and GPU syncs (by name)."""
    return gpu_mask(df, [symbol_table.sym_index[s] for s in SYNC_NAMES if s in symbol_table.sym_index])


class GPUKernelFilter(Filter):
    """Rows run on a GPU (kernels, memcpy/memset, syncs)."""

    def __call__(self, df, symbol_table=None):
        if not _has(df, "stream"):
            return df
        return df.loc[gpu_rows(df, symbol_table or TraceSymbolTable())]


class CPUOperatorFilter(Filter):
    """Rows run on a CPU (everything GPUKernelFilter leaves)."""

    def __call__(self, df, symbol_table=None):
        if not _has(df, "stream"):
            return df
        if symbol_table is None:
            return df.loc[df["stream"] == -1]
        return df.loc[~gpu_rows(df, symbol_table)]


class CompositeFilter(Filter):
    """Filters applied one after another."""

    def __init__(self, filters):
        for f in filters:
            if not isinstance(f, Filter):
                raise TypeError("All elements in 'filters' must be instances of Filter or its subclasses.")
            if f is self:
                raise ValueError("CompositeFilter cannot contain itself as a filter.")
        self.filters = filters

    def __call__(self, df, symbol_table=None):
        for f in self.filters:
            df = f(df, symbol_table)
        return df


class MemCopyEventFilter(Filter):
    """gpu_memcpy rows named memory_copy_type (e.g. "Memcpy DtoH (Device -> Pinned)")."""

    def __init__(self, memory_copy_type, symbol_table=None):
        self.memory_copy_type = memory_copy_type
        self.symbol_table = symbol_table

    def __call__(self, df, symbol_table=None):
        if df.empty:
            return df
        index = (symbol_table or self.symbol_table or TraceSymbolTable()).sym_index
        if self.memory_copy_type not in index:
            return pd.DataFrame()
        return df.loc[df["name"].eq(index[self.memory_copy_type]) & df["cat"].eq(index.get("gpu_memcpy", -1))]
