"""kineta.hta mirrors HTA's module paths: a notebook's `hta.` imports,
rewritten to `kineta.hta.`, import the same names, and the helpers there
give HTA's values (hand-computed below)."""
import importlib
import unittest

from common import need_shared, shared

import pandas as pd

# HTA's module → names its example notebooks import from it.
MODULES = {
    "kineta.hta": ["TraceAnalysis", "TraceDiff"],
    "kineta.hta.trace_analysis": ["TraceAnalysis", "TimeSeriesTypes"],
    "kineta.hta.trace_diff": ["TraceDiff", "LabeledTrace", "DeviceType"],
    "kineta.hta.analyzers.critical_path_analysis": ["CPGraph", "restore_cpgraph"],
    "kineta.hta.analyzers.cupti_counter_analysis": ["CUDA_SASS_INSTRUCTION_COUNTER_FLOPS"],
    "kineta.hta.utils.utils": ["shorten_name", "flatten_column_names"],
    "kineta.hta.common.trace": ["Trace", "TraceSymbolTable"],
    "kineta.hta.common.trace_symbol_table": ["TraceSymbolTable", "decode_symbol_id_to_symbol_name"],
    "kineta.hta.common.trace_filter": ["Filter", "NameFilter", "TimeRangeFilter", "GPUKernelFilter",
                                       "CPUOperatorFilter", "IterationFilter", "IterationIndexFilter",
                                       "FirstIterationFilter", "RankFilter", "CompositeFilter", "QueryFilter",
                                       "ZeroDurationFilter", "MemCopyEventFilter"],
    "kineta.hta.common.timeline": ["Timeline", "PlotFormat", "TimelinePlotSetting", "align_module_with_kernels",
                                   "prepare_timeline_events", "plot_events_timeline"],
    "kineta.hta.common.execution_trace": ["load_execution_trace", "correlate_execution_trace", "add_et_column"],
    "kineta.hta.analyzers.timeline": ["plot_timeline_gpu_kernels", "prepare_timeline_gpu_events"],
    "kineta.hta.configs.parser_config": ["ParserConfig", "AttributeSpec", "ValueType", "AVAILABLE_ARGS"],
    "kineta.hta.configs.config": ["HtaConfig", "logger"],
}


class HtaModulePaths(unittest.TestCase):
    def test_every_notebook_import_resolves(self):
        for module, names in MODULES.items():
            loaded = importlib.import_module(module)
            for name in names:
                self.assertTrue(hasattr(loaded, name), f"{module}.{name}")

    def test_import_as_hta(self):
        import kineta.hta as hta
        from kineta.hta.trace_analysis import TraceAnalysis
        self.assertIs(hta.TraceAnalysis, TraceAnalysis)

    def test_enums_have_htas_members(self):
        from kineta.hta.trace_analysis import TimeSeriesTypes
        from kineta.hta.trace_diff import DeviceType
        self.assertEqual([d.name for d in DeviceType], ["UNKNOWN", "CPU", "GPU", "ALL"])  # hta.common.types'
        both = TimeSeriesTypes.QUEUE_LENGTH | TimeSeriesTypes.MEMCPY_BANDWIDTH
        self.assertIn(TimeSeriesTypes.MEMCPY_BANDWIDTH, both)

    def test_figures_without_plotly(self):
        """A figure asked for without plotly installed: ImportError naming the package."""
        import sys
        from kineta.hta.common.timeline import plot_events_timeline
        saved = {k: v for k, v in sys.modules.items() if k == "plotly" or k.startswith("plotly.")}
        try:
            for k in saved:
                del sys.modules[k]
            sys.modules["plotly"] = None  # import plotly fails
            events = pd.DataFrame({"calibrated_start_global": [0], "calibrated_end_global": [1000], "task": ["t"],
                                   "name": ["k"], "dur": [1]})
            with self.assertRaisesRegex(ImportError, "python3-plotly"):
                plot_events_timeline("x", events)
        finally:
            del sys.modules["plotly"]
            sys.modules.update(saved)

    def test_shorten_name(self):
        from kineta.hta.utils.utils import shorten_name
        cases = {
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, float)":
                "at::native::vectorized_elementwise_kernel",
            "aten::add": "aten::add",
            "Memcpy HtoD (Pageable -> Device)": "Memcpy HtoD (Pageable -> Device)",
            "std::vector<int> foo(int)->bar": "foobar",
        }
        for name, want in cases.items():
            self.assertEqual(shorten_name(name), want, name)

    def test_flatten_column_names(self):
        from kineta.hta.utils.utils import flatten_column_names
        frame = pd.DataFrame([[1, 2, 3]], columns=pd.MultiIndex.from_tuples([("dur", "sum"), ("dur", "mean"),
                                                                                ("name", "")]))
        flatten_column_names(frame)
        self.assertEqual(list(frame.columns), ["dur_sum", "dur_mean", "name"])

    def test_sass_flops(self):
        from kineta.hta.analyzers.cupti_counter_analysis import CUDA_SASS_INSTRUCTION_COUNTER_FLOPS as flops
        self.assertEqual(len(flops), 9)
        self.assertEqual(flops["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"], 2)
        self.assertEqual(flops["smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"], 1)
        self.assertEqual(sum(flops.values()), 12)


class HtaLabeledTraceDiff(unittest.TestCase):
    """TraceDiff.compare_traces on LabeledTraces and kineta Traces equals
    the same call on the directories (which test_hta_facade checks against
    HTA's CSV)."""

    def test_trace_objects_as_htas(self):
        need_shared(self)
        import kineta
        from kineta.hta.trace_diff import DeviceType, LabeledTrace, TraceDiff
        control, test = shared("traces/hta/trace_diff/control"), shared("traces/hta/trace_diff/test")
        want = TraceDiff.compare_traces(control, test, device_type=DeviceType.GPU)
        self.assertGreater(len(want), 0)
        a, b = LabeledTrace("control", trace_dir=control), LabeledTrace("test", t=kineta.load(test))
        self.assertEqual((a.ranks(), b.ranks()), ([3], [1]))  # the pair's one rank each
        labelled = want.rename(columns=lambda c: c.replace("Control_", "control_").replace("Test_", "test_"))
        pd.testing.assert_frame_equal(TraceDiff.compare_traces(a, b, device_type=DeviceType.GPU), labelled)  # as HTA's
        pd.testing.assert_frame_equal(TraceDiff.compare_traces(a.t, b.t, device_type=DeviceType.GPU), want)
        self.assertEqual(len(a.t.ranks), len(a.ranks()))  # still open: the caller's traces are not closed


if __name__ == "__main__":
    unittest.main()


class HtaCriticalPathSaved(unittest.TestCase):
    """CPGraph.save and restore_cpgraph give back the same graph."""

    def test_save_restore(self):
        need_shared(self)
        import os
        import tempfile
        from kineta.hta.analyzers.critical_path_analysis import restore_cpgraph
        from kineta.hta.trace_analysis import TraceAnalysis
        ta = TraceAnalysis(trace_dir=shared("traces/hta/critical_path/cuda_event_sync"))
        graph, ok = ta.critical_path_analysis(rank=0, annotation="ProfilerStep", instance_id=0)
        with tempfile.TemporaryDirectory() as tmp:
            path = graph.save(os.path.join(tmp, "cp_graph"))
            self.assertEqual(path, os.path.join(tmp, "cp_graph.zip"))
            restored = restore_cpgraph(path, ta, 0)
            with self.assertRaises(ValueError):
                restore_cpgraph(path, ta, 1)
        pd.testing.assert_series_equal(restored.summary(), graph.summary())
        pd.testing.assert_frame_equal(restored.get_critical_path_breakdown(), graph.get_critical_path_breakdown())
        pd.testing.assert_frame_equal(restored.critical_path_edges_in_order(), graph.critical_path_edges_in_order())
        pd.testing.assert_frame_equal(restored.graph, graph.graph)
        self.assertGreater(len(graph.critical_path_edges_in_order()), 0)
