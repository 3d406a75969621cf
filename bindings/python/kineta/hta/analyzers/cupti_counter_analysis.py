"""HTA's hta.analyzers.cupti_counter_analysis: the CUPTI counter events of a
trace (category cuda_profiler_range) with the operators that launched them,
as HTA's frame: the kernel rows of the rank's frame with the call-graph
columns, index_runtime (the launch, matched in time order), a column per counter (HTA's parser makes
one of each arg of the counter events: Int, -1 when absent), op_stack (the
launch's cpu_op ancestors, outermost first), top_level_op and
bottom_level_op; and the SASS instruction counters a notebook sums into FLOPs.

The ancestors come from the call graph's parent column, a level at a time
for every launch at once (HTA asks the graph for one launch's stack at a
time)."""
import numpy as np
import pandas as pd

from ..common import _args
from ..common.trace_call_graph import CallGraph
from ..configs.parser_config import AttributeSpec, ValueType

CUPTI_CATEGORY = "cuda_profiler_range"

CUDA_SASS_INSTRUCTION_COUNTER_FLOPS = {
    f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": 2 if "fma" in op else 1
    for op in ("ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd")
}


def get_counter_data_with_operators(t, ranks=None):
    """A frame per rank (HTA's default: rank 0) of the counter events with
    their operators; [] when the trace has no counter events; a rank whose
    launches and counter events do not pair up is left out, as HTA does."""
    ranks = list(ranks) if ranks else [0]
    if CUPTI_CATEGORY not in t.symbol_table.get_sym_id_map():
        return []
    CallGraph(t, ranks=ranks)
    t.decode_symbol_ids(use_shorten_name=False)
    frames = [_with_operators(t.get_trace(rank), t._kt, rank) for rank in ranks]
    return [f for f in frames if f is not None]


def _counters(kt, rank, kernels):
    """The counter columns of the kernel rows, inserted where HTA's parser puts them (before index_correlation)."""
    names = [c for c in kt.run("cupti", ranks=[rank])["counters"].columns if "__" in c]
    texts = _args.arg_texts(kt, kt.ranks.index(rank), names, kernels["index"].to_numpy())
    at = kernels.columns.get_loc("index_correlation")
    for i, name in enumerate(names):
        kernels.insert(at + i, name, _args.arg_column(texts[:, i], AttributeSpec(name, name, ValueType.Int, -1)))


def _with_operators(df, kt, rank):
    kernels = df.loc[df["s_cat"].eq(CUPTI_CATEGORY)].sort_values("ts", kind="stable").reset_index(drop=True)
    launches = df.loc[df["s_cat"].str.match("cuda_runtime") & df["s_name"].str.match("cudaLaunchKernel")]
    launches = launches.sort_values("ts", kind="stable").reset_index(drop=True)
    if len(launches) != len(kernels):
        return None
    _counters(kt, rank, kernels)
    kernels["index_runtime"] = launches["index"]
    stacks = _cpu_op_stacks(df, launches["index"].to_numpy())
    kernels["op_stack"] = stacks
    kernels["top_level_op"] = [s[0] if s else "" for s in stacks]
    kernels["bottom_level_op"] = [s[-1] if s else "" for s in stacks]
    kernels["name"], kernels["cat"] = kernels["s_name"], kernels["s_cat"]
    return kernels.drop(columns=["s_cat", "s_name"])


def _cpu_op_stacks(df, launches):
    """For each launch, the names of its cpu_op ancestors from the outermost in."""
    where = pd.Index(df["index"].to_numpy())
    parent = df["parent"].to_numpy().astype(np.int64)
    owner, found = [], []
    current, of = launches.astype(np.int64), np.arange(len(launches))
    while len(current):
        up = parent[where.get_indexer(current)]
        keep = (up >= 0) & (where.get_indexer(up) >= 0) & (up != current)
        current, of = up[keep], of[keep]
        owner.append(of)
        found.append(current)
    owner = np.concatenate(owner) if owner else np.empty(0, np.int64)
    rows = where.get_indexer(np.concatenate(found)) if found else np.empty(0, np.int64)
    ops = pd.DataFrame({"launch": owner, "ts": df["ts"].to_numpy()[rows], "depth": df["depth"].to_numpy()[rows],
                        "name": df["s_name"].to_numpy()[rows], "cat": df["s_cat"].to_numpy()[rows]})
    ops = ops.loc[ops["cat"].eq("cpu_op")].sort_values(["launch", "ts", "depth"], kind="stable")
    named = ops.groupby("launch")["name"].agg(list)
    return [named.get(i, []) for i in range(len(launches))]
