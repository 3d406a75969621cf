"""HTA's hta.common.trace_call_graph: CallGraph, the call stacks of a Trace's
ranks (one CallStackGraph per CPU thread, the backward thread hung under
the main thread's backward annotations, kernels under their launches).

    from kineta.hta.common.trace_call_graph import CallGraph   # was: hta.common.trace_call_graph
    cg = CallGraph(t, ranks=[0, 1])
    t.get_trace(0)[["parent", "depth", "height", "num_kernels", "kernel_span"]]
    cg.get_stack_of_node(idx, rank=0)

As HTA's, building it adds HTA's columns (depth, height, parent,
num_kernels, kernel_dur_sum, kernel_span, first_kernel_start,
last_kernel_end, and end) to each rank's frame, with HTA's values and
dtypes; they are computed on whole columns (common/_call_tree.py).
"""
import pandas as pd

from . import _call_tree
from .trace import Trace
from .trace_call_stack import CallStackGraph, CallStackIdentity
from .trace_symbol_table import TraceSymbolTable


class CallGraph:
    """trace_data, ranks, call_stacks, rank_to_stacks {rank: {CallStackIdentity:
    CallStackGraph}}, rank_to_nodes {rank: nodes}, mapping (rank, pid, tid,
    label, stack_index, stack_root, count), as HTA's."""

    stack_columns = ["parent", "depth", "height", "first_kernel_start", "last_kernel_end", "num_kernels",
                     "kernel_dur_sum", "kernel_span"]

    def __init__(self, trace, ranks=None):
        self.trace_data = trace
        there = trace.get_ranks()
        self.ranks = [r for r in ranks if r in there] if ranks else there
        if not self.ranks:
            raise ValueError("No rank was found for the trace.")
        self.rank_to_nodes = {}
        self.rank_to_stacks = {}
        self.call_stacks = []
        rows = []
        for rank in self.ranks:
            rows.extend(self._build_rank(rank))
        self.mapping = pd.DataFrame(rows, columns=["rank", "pid", "tid", "label", "stack_index", "stack_root",
                                                   "count"])
        if len(self.mapping):
            self.mapping["count"] = self.mapping.groupby(["rank", "stack_root"]).cumcount() + 1
        self._cached_rank = None
        self._update_cached_data(self.ranks[0])

    @staticmethod
    def from_dataframe(df, symbol_table=None, rank=-1):
        """A CallGraph of one frame (a copy of df, as rank `rank`)."""
        t = Trace.__new__(Trace)
        t.traces, t.trace_files, t.is_parsed = {rank: df.copy()}, {}, True
        t.symbol_table = symbol_table if symbol_table else TraceSymbolTable.create_from_df(df)
        return CallGraph(t)

    def _build_rank(self, rank):
        """Builds the rank's tree, writes its columns into the rank's frame,
        makes its stacks; returns their mapping rows."""
        df = self.trace_data.get_trace(rank)
        if "end" not in df.columns:
            df["end"] = df["ts"] + df["dur"]
        tree = _call_tree.build(df, self.trace_data.symbol_table)
        for col, values in _call_tree.frame_columns(tree, df).items():
            df[col] = values
        for col in ("depth", "height", "parent", "num_kernels"):
            df[col] = pd.to_numeric(df[col], errors="coerce", downcast="integer")
        stacks, rows = {}, []
        for thread in tree.threads:
            identity = CallStackIdentity(rank, thread.pid, thread.tid)
            stack = CallStackGraph(tree, thread, identity, df, self.trace_data.symbol_table)
            stacks[identity] = stack
            self.call_stacks.append(stack)
            rows.append([rank, thread.pid, thread.tid, thread.label, len(self.call_stacks) - 1, stack.root_index, 1])
        self.rank_to_stacks[rank] = stacks
        self.rank_to_nodes[rank] = stacks[next(iter(stacks))].nodes if stacks else {}
        return rows

    def get_call_stacks(self, rank=None, pid=None, tid=None, stack_index=None):
        """The CallStackGraphs matching every given key (a generator)."""
        df = self.mapping
        for col, value in (("rank", rank), ("pid", pid), ("tid", tid), ("stack_index", stack_index)):
            if value is not None:
                df = df.loc[df[col].eq(value)]
        for i in df["stack_index"].to_list():
            yield self.call_stacks[i]

    def _update_cached_data(self, rank):
        if rank in self.ranks and rank != self._cached_rank:
            self._cached_rank = rank
            self._cached_nodes = self.rank_to_nodes[rank]
            self._cached_df = self.trace_data.get_trace(rank)
            self._cached_gpu_kernels = self._cached_df.loc[self._cached_df["stream"].ne(-1)]

    def get_node_attributes(self, index, rank=None):
        """The event's row (a Series); ValueError when there is none."""
        if rank:
            self._update_cached_data(rank)
        if index in self._cached_df.index:
            return self._cached_df.loc[self._cached_df["index"].eq(index)].squeeze()
        raise ValueError(f"invalid node index - {index}")

    def _cpu_node(self, index, rank):
        """(the event's row, or its launch's for a kernel; whether it is a CPU event)."""
        node = self.get_node_attributes(index, rank)
        if node["stream"] > 0:  # a kernel: its launch's stack
            return self.get_node_attributes(node["parent"], rank), False
        return node, True

    def get_csg_of_node(self, index, rank=None):
        """The CallStackGraph holding the event (a kernel: its launch's)."""
        node, _ = self._cpu_node(index, rank)
        for stack in self.get_call_stacks(rank=self._cached_rank, pid=node["pid"], tid=node["tid"]):
            return stack
        raise ValueError(f"CallGraph::get_csg_of_node:: invalid node {index}")

    def get_stack_of_node(self, index, rank=None, skip_ancestors=False):
        """The event, its descendants and (unless skip_ancestors) its
        ancestors, as rows of the rank's frame sorted by ts."""
        node, is_cpu = self._cpu_node(index, rank)
        stack = self.get_csg_of_node(index, rank)
        descendants = stack.get_descendants(node["index"]) if is_cpu else [index]
        indices = set(descendants) if skip_ancestors else set(descendants).union(stack.get_path_to_root(node["index"]))
        return stack.full_df.loc[[i for i in indices if i >= 0]].copy().sort_values("ts")

    def get_gpu_kernels(self, rank=None):
        if rank:
            self._update_cached_data(rank)
        return self._cached_gpu_kernels
