"""kineta.hta.common.trace_call_graph.CallGraph against HTA's CallGraph run in
this process on the same parsed traces: the columns it adds to each rank's
frame (values and dtypes), its mapping of stacks, and its queries on every
node kind (annotation, op, launch, kernel, a backward op moved under the
main thread)."""
import unittest

import numpy as np

from common import hta_peer, shared

COLUMNS = ["end", "depth", "height", "parent", "num_kernels", "kernel_dur_sum", "kernel_span", "first_kernel_start",
           "last_kernel_end"]
_GRAPHS = {}


def _graphs(trace_dir):
    """(HTA's CallGraph, kineta's) of trace_dir's parsed traces, made once."""
    if trace_dir not in _GRAPHS:
        from hta.common.trace import Trace as HtaTrace
        from hta.common.trace_call_graph import CallGraph as HtaCallGraph
        from kineta.hta.common.trace import Trace
        from kineta.hta.common.trace_call_graph import CallGraph
        h = HtaTrace(trace_dir=trace_dir)
        h.parse_traces(use_multiprocessing=False)
        k = Trace(trace_dir=trace_dir)
        k.parse_traces()
        _GRAPHS[trace_dir] = HtaCallGraph(h), CallGraph(k)
    return _GRAPHS[trace_dir]


class CallGraphFrames(unittest.TestCase):
    def assert_same_graph(self, trace_dir):
        hta_peer(self)
        want, got = _graphs(shared(trace_dir))
        self.assertEqual(got.ranks, want.ranks)
        self.assertEqual(got.mapping.to_dict("list"), want.mapping.to_dict("list"))
        self.assertEqual(list(got.mapping.dtypes), list(want.mapping.dtypes))
        for rank in want.ranks:
            a, b = want.trace_data.get_trace(rank), got.trace_data.get_trace(rank)
            self.assertEqual(list(b.columns[-len(COLUMNS) + 1:]), COLUMNS[1:])
            for col in COLUMNS:
                self.assertEqual(b[col].dtype, a[col].dtype, col)
                same = a[col].to_numpy() == b[col].to_numpy()
                self.assertTrue(same.all(), f"rank {rank} {col}: rows {np.flatnonzero(~same)[:5]}")
        return want, got

    def test_backward_thread(self):
        """HTA's own call-stack test trace: the bwd thread's ops hang under "## backward ##"."""
        want, got = self.assert_same_graph("traces/hta/call_stack")
        df = got.trace_data.get_trace(0)
        self.assertEqual(list(df["parent"]), [-3914, 0, 1, 2, 3, 6, 4])  # hand-checked: 2 is bwd's first op
        self.assertEqual(list(df["height"]), [6, 5, 4, 3, 2, 0, 1])
        self.assertEqual(list(df["num_kernels"]), [1] * 7)

    def test_two_ranks(self):
        want, got = self.assert_same_graph("traces/hta/trace_filter")
        df = got.trace_data.get_trace(1)
        kernels = df["stream"].gt(0) & df["index_correlation"].gt(0)
        self.assertEqual(int(df.loc[kernels, "num_kernels"].sum()), int(kernels.sum()))

    def test_annotation_made_its_own_parent(self):
        """HTA's [BUG]: once the bwd root has no children left, the next
        ProfilerStep is re-parented under itself (kept, as HTA's frame)."""
        want, got = self.assert_same_graph("traces/hta/amd_trace")
        df = got.trace_data.get_trace(0)
        self.assertEqual(int(df.loc[80, "parent"]), 80)
        self.assertEqual(int(df.loc[80, "height"]), -1)

    def test_queries(self):
        hta_peer(self)
        want, got = _graphs(shared("traces/hta/call_stack"))
        for idx in range(7):
            self.assertEqual(got.get_csg_of_node(idx).identity, want.get_csg_of_node(idx).identity)
            self.assertEqual(list(got.get_stack_of_node(idx)["index"]), list(want.get_stack_of_node(idx)["index"]))
            self.assertEqual(list(got.get_stack_of_node(idx, skip_ancestors=True)["index"]),
                             list(want.get_stack_of_node(idx, skip_ancestors=True)["index"]))
            h, k = want.get_csg_of_node(idx), got.get_csg_of_node(idx)
            self.assertEqual(k.get_path_to_root(idx), h.get_path_to_root(idx))
            self.assertEqual(k.get_leaf_nodes(idx), h.get_leaf_nodes(idx))
            self.assertEqual(sorted(k.get_descendants(idx)), sorted(h.get_descendants(idx)))
            self.assertEqual(k.get_children(idx), h.get_children(idx))
            self.assertEqual((k.get_parent(idx), k.get_root(idx)), (h.get_parent(idx), h.get_root(idx)))
            a, b = h.nodes[idx], k.nodes[idx]
            self.assertEqual((b.parent, b.depth, b.height, b.device.name, b.children),
                             (a.parent, a.depth, a.height, a.device.name, a.children))
        self.assertEqual([s.root_index for s in got.call_stacks], [s.root_index for s in want.call_stacks])
        self.assertEqual(sorted(got.rank_to_nodes[0]), sorted(want.rank_to_nodes[0]))
        self.assertEqual(len(got.get_gpu_kernels(0)), len(want.get_gpu_kernels(0)))
        with self.assertRaises(ValueError):
            got.get_node_attributes(99)

    def test_zero_length_event_between_intervals(self):
        """A zero-length event where one interval ends and the next begins:
        HTA's comparator is no order there and its sort decides; here its
        sort puts the opening first and the closing pops it, so the second
        interval ends up under the root.  kineta gives HTA's answer."""
        hta_peer(self)
        import pandas as pd
        from hta.common.trace_call_graph import CallGraph as HtaCallGraph
        from hta.common.trace_symbol_table import TraceSymbolTable as HtaTable
        from kineta.hta.common.trace_call_graph import CallGraph
        from kineta.hta.common.trace_symbol_table import TraceSymbolTable
        spans = [(0, 30), (5, 5), (10, 0), (10, 10), (20, 0), (20, 5)]  # (ts, dur) of events 0..5 on one thread
        df = pd.DataFrame({"index": range(6), "cat": 0, "name": 1, "pid": 7, "tid": 7, "ts": [s[0] for s in spans],
                           "dur": [s[1] for s in spans], "stream": -1, "correlation": -1, "index_correlation": -1,
                           "iteration": -1})
        frames = []
        for graph, table in ((HtaCallGraph, HtaTable()), (CallGraph, TraceSymbolTable())):
            table.add_symbols(["cpu_op", "aten::op"])
            frames.append(graph.from_dataframe(df, table, rank=0).trace_data.get_trace(0))
        want, got = frames
        for col in ("parent", "depth", "height"):
            self.assertEqual(list(got[col]), list(want[col]), col)
        self.assertEqual(list(got["parent"]), [-7, 0, 3, -7, 5, 3])

    def test_from_dataframe(self):
        hta_peer(self)
        from kineta.hta.common.trace_call_graph import CallGraph
        _, got = _graphs(shared("traces/hta/call_stack"))
        df = got.trace_data.get_trace(0)
        cg = CallGraph.from_dataframe(df[df.columns[:-len(COLUMNS)]], got.trace_data.symbol_table, rank=3)
        self.assertEqual(cg.ranks, [3])
        self.assertEqual(list(cg.trace_data.get_trace(3)["parent"]), list(df["parent"]))


if __name__ == "__main__":
    unittest.main()
