"""HTA's example notebooks, call for call, on kineta.hta and on HTA itself.

Each test makes the calls one of HTA's notebooks (examples/*.ipynb in
facebookresearch/HolisticTraceAnalysis) makes, on the same traces
(../shared/traces/hta), through `kineta.hta.` where the notebook says
`hta.`, and through HTA (../shared/peers/hta) beside it; every frame a cell
shows must have HTA's shape, and the values the notebook prints are
asserted where it prints them.  Figures are drawn (plotly) but not shown.
Notebooks whose cells call TraceAnalysis analyses (trace_analysis_demo,
kernel_breakdown_demo, critical_path_analysis, trace_diff_demo,
identify_stragglers, cupti_flops_analysis) are covered frame by frame
against HTA's outputs in test_hta_facade.py.
"""
import os
import unittest

import pandas as pd

from common import hta_peer, shared

COLUMNS = ["iteration", "index", "ts", "dur", "stream", "s_cat", "s_name"]  # what the filter cells show
_TRACES = {}


def _no_show():
    """Figures built but not shown (a test has no browser)."""
    import plotly.basedatatypes
    plotly.basedatatypes.BaseFigure.show = lambda *a, **k: None


def _decoded_traces():
    """The first cell of trace_filter_demo and timeline_demo, on both: Trace,
    parse_traces, decode_symbol_ids, and timeline_demo's CallGraph of both
    ranks (its depth column gives the CPU rows' timeline levels); made once."""
    if not _TRACES:
        from hta.common.trace import Trace as HtaTrace
        from hta.common.trace_call_graph import CallGraph as HtaCallGraph
        from kineta.hta.common.trace import Trace
        from kineta.hta.common.trace_call_graph import CallGraph
        for key, cls, graph, kw in (("hta", HtaTrace, HtaCallGraph, {"use_multiprocessing": False}),
                                    ("kineta", Trace, CallGraph, {})):
            t = cls(trace_dir=shared("traces/hta/trace_filter"))
            t.parse_traces(**kw)
            t.decode_symbol_ids()
            graph(t, ranks=[0, 1])
            _TRACES[key] = t
    return _TRACES["hta"], _TRACES["kineta"]


class TraceFilterDemo(unittest.TestCase):
    """examples/trace_filter_demo.ipynb"""

    def setUp(self):
        hta_peer(self)
        self.h, self.k = _decoded_traces()

    def both(self, make_filter, with_table):
        """The cell's filter applied to rank 0 on both, with HTA's and kineta's own classes."""
        import hta.common.trace_filter as hf
        import kineta.hta.common.trace_filter as kf
        out = []
        for t, module in ((self.h, hf), (self.k, kf)):
            f = make_filter(module, t.symbol_table)
            out.append(f(t.get_trace(0), t.symbol_table) if with_table else f(t.get_trace(0)))
        return out

    def assert_shown(self, want, got, rows, head_index):
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(len(got), rows)  # "Found N matching events."
        self.assertEqual(list(got.head()[COLUMNS].index), head_index)
        pd.testing.assert_frame_equal(got.head()[COLUMNS], want.head()[COLUMNS])

    def test_name_filter(self):
        want, got = self.both(lambda m, _: m.NameFilter("aten::.*mm"), with_table=True)
        self.assert_shown(want, got, 378, [13, 14, 74, 77, 78])

    def test_time_range_filter(self):
        want, got = self.both(lambda m, _: m.TimeRangeFilter((1682725898237042, 1682725898240570)), False)
        self.assert_shown(want, got, 93, [13, 14, 15, 16, 17])

    def test_composite_filter(self):
        def nccl_in_first_iteration(m, table):
            return m.CompositeFilter([m.IterationIndexFilter(0), m.GPUKernelFilter(),
                                      m.NameFilter("^nccl", symbol_table=table)])
        want, got = self.both(nccl_in_first_iteration, with_table=False)
        self.assert_shown(want, got, 5, [2512, 2570, 2962, 4554, 4794])
        self.assertEqual(list(got["s_name"].unique()), ["ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"])


class TimelineDemo(unittest.TestCase):
    """examples/timeline_demo.ipynb (its CallGraph's columns: test_hta_call_graph.py)."""

    def setUp(self):
        hta_peer(self)
        _no_show()
        self.h, self.k = _decoded_traces()

    def timelines(self, make_filter=None):
        """Timeline(df, symbol_table[, filter_func]).plot(title) on both; their prepared events."""
        import hta.common.timeline as ht
        import hta.common.trace_filter as hf
        import kineta.hta.common.timeline as kt
        import kineta.hta.common.trace_filter as kf
        out = []
        for t, timeline, filters in ((self.h, ht, hf), (self.k, kt, kf)):
            setting = timeline.TimelinePlotSetting()
            tl = timeline.Timeline(t.get_trace(0), t.symbol_table, setting=setting,
                                   filter_func=make_filter(filters) if make_filter else None)
            self.assertIsNone(tl.plot("a simple timeline"))  # shown inline, as HTA's
            out.append(tl.timeline_events)
        return out

    def assert_same_events(self, want, got):
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(sorted(got.columns), sorted(want.columns))
        for col in ("task", "name", "calibrated_start_global", "calibrated_end_global"):
            self.assertEqual(list(got[col]), list(want[col]), col)

    def test_simple_timeline(self):
        want, got = self.timelines()
        self.assert_same_events(want, got)
        self.assertIn("gpu stream 007", set(got["task"]))

    def test_gpu_kernel_timeline(self):
        want, got = self.timelines(lambda m: m.GPUKernelFilter())
        self.assert_same_events(want, got)

    def test_custom_filter(self):
        def my_kernel_filter(m):
            class MyKernelFilter(m.Filter):
                def __call__(self, df, symbol_table):
                    df = m.IterationIndexFilter(1)(df, symbol_table)
                    df = m.GPUKernelFilter()(df, symbol_table)
                    return m.NameFilter(r"(.+embedding)|(^nccl)|(Memcpy)")(df, symbol_table)
            return MyKernelFilter()
        want, got = self.timelines(my_kernel_filter)
        self.assert_same_events(want, got)

    def test_modules_aligned_with_kernels(self):
        """The last cell: forward, backward and optimizer annotations moved onto their kernels."""
        import hta.common.timeline as ht
        import kineta.hta.common.timeline as kt
        modules = ["## forward ##", "## backward ##", "## optimizer ##"]
        out = []
        for t, timeline in ((self.h, ht), (self.k, kt)):
            aligned = timeline.align_module_with_kernels(t.get_trace(0), module_list=modules, sym_table=t.symbol_table)
            tl = timeline.Timeline(aligned, t.symbol_table)
            self.assertIsNone(tl.plot("operator highlight"))
            out.append((aligned, tl.timeline_events))
        (want, want_events), (got, got_events) = out
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(sorted(got.loc[got["stream"].eq(0), "ts"]), sorted(want.loc[want["stream"].eq(0), "ts"]))
        self.assertEqual(int(got["stream"].eq(0).sum()), 6)  # one of each in both steps (parsed: the last kept)
        self.assert_same_events(want_events, got_events)

    def test_html_figure(self):
        from kineta.hta.common.timeline import PlotFormat, Timeline, TimelinePlotSetting
        from kineta.hta.common.trace_filter import GPUKernelFilter
        t = self.k
        html = Timeline(t.get_trace(0), t.symbol_table, filter_func=GPUKernelFilter(),
                        setting=TimelinePlotSetting(plot_format=PlotFormat.HTML)).plot("as html")
        self.assertIn("plotly", html)


class PlotTimeline(unittest.TestCase):
    """examples/plot_timeline.ipynb's calls (its vision_transformer traces are not in
    HTA's test data: the two-rank trace_filter set stands in)."""

    def test_gpu_kernels_of_all_ranks(self):
        hta_peer(self)
        _no_show()
        import hta.analyzers.timeline as ht
        import kineta.hta.analyzers.timeline as kt
        h, k = _decoded_traces()
        shown = []
        for t, timeline in ((h, ht), (k, kt)):
            ranks = list(t.get_all_traces().keys())
            df = pd.concat([t.get_trace(r) for r in ranks], axis=0, keys=ranks, names=["rank", "idx"]).reset_index()
            timeline.plot_timeline_gpu_kernels("GPU kernels (iteration 551)", df, t.symbol_table, iterations=[551],
                                               duration_threshold=2000)
            s_map = pd.Series(t.symbol_table.get_sym_id_map())
            compute = df.loc[~df["name"].isin(s_map[s_map.index.str.startswith(("ncclKernel", "Memset", "Memcpy"))])]
            shown.append(timeline.prepare_timeline_gpu_events(compute, t.symbol_table, iterations=[551], streams=[7],
                                                              duration_threshold=2000))
        want, got = shown
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(list(got["task"]), list(want["task"]))
        self.assertEqual(list(got["label"]), list(want["label"]))
        self.assertEqual(set(got["task"]), {"rank 0 stream 7", "rank 1 stream 7"})


class ExecutionTraceDemo(unittest.TestCase):
    """examples/execution_trace_demo.ipynb: HTA needs PARAM's et_replay for
    its ExecutionTrace (not a Debian package), so its cells after the load
    do not run on HTA; the values asserted are the notebook's own output."""

    def test_correlate_and_add_columns(self):
        hta_peer(self)
        from kineta.hta.common import execution_trace
        from kineta.hta.trace_analysis import TraceAnalysis
        trace_dir = shared("traces/hta/execution_trace")
        analyzer = TraceAnalysis(trace_dir=trace_dir)
        et = execution_trace.load_execution_trace(os.path.join(trace_dir, "benchmark_simple_add_et.json.gz"))
        execution_trace.correlate_execution_trace(analyzer.t, 0, et)
        trace_df = analyzer.t.get_trace(0)
        self.assertEqual(list(trace_df.head()["et_node"]), [3.0, 4.0, 5.0, 8.0, 9.0])  # the notebook's head()
        self.assertEqual(list(trace_df.head()["ts"]), [0, 2006, 2047, 19585454, 19585799])
        for column in ("op_schema", "input_shapes", "input_types", "output_shapes", "output_types"):
            execution_trace.add_et_column(trace_df, et, column)
        row = trace_df.loc[trace_df["et_node"] == 4.0].iloc[0]
        self.assertTrue(row["op_schema"].startswith("aten::rand(SymInt[] size"))
        self.assertEqual(row["output_shapes"], [[256, 256]])


class CustomizeTraceParser(unittest.TestCase):
    """examples/customize_trace_parser.ipynb (its h100 trace is not in HTA's test
    data: trace_filter stands in): adding ARGS_INPUT_SHAPE to the default
    configuration adds its columns to the next parse, on both."""

    def test_add_input_shape_args(self):
        hta_peer(self)
        from hta.common.trace import Trace as HtaTrace
        from hta.configs.parser_config import ParserConfig as HtaParserConfig
        from kineta.hta.common.trace import Trace
        from kineta.hta.configs.parser_config import ParserConfig
        frames = []
        for trace, config in ((HtaTrace, HtaParserConfig), (Trace, ParserConfig)):
            saved = config.get_default_cfg()
            try:
                cfg = config(list(config.ARGS_MINIMUM))  # HTA keeps the list it is given: a copy
                cfg.add_args(config.ARGS_INPUT_SHAPE)
                config.set_default_cfg(cfg)
                t = trace(trace_dir=shared("traces/hta/amd_trace"))
                t.parse_traces(use_multiprocessing=False) if trace is HtaTrace else t.parse_traces()
                frames.append(t.get_trace(next(iter(t.traces))))
            finally:
                config.set_default_cfg(saved)
        want, got = frames
        self.assertEqual(list(got.columns), list(want.columns))
        self.assertEqual([str(d) for d in got.dtypes], [str(d) for d in want.dtypes])
        self.assertIn("input_dims", got.columns)


if __name__ == "__main__":
    unittest.main()
