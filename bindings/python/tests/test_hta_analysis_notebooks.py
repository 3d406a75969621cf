"""HTA's TraceAnalysis and TraceDiff example notebooks (examples/*.ipynb in
facebookresearch/HolisticTraceAnalysis: trace_analysis_demo,
kernel_breakdown_demo, experimental/critical_path_analysis, trace_diff_demo,
identify_stragglers, cupti_flops_analysis), call for call, through
`kineta.hta.` where a notebook says `hta.` and through HTA itself in this
process, on the smallest shared traces each notebook's calls fit (most
notebooks use HTA's vision_transformer set, which ../shared does not hold:
the two-rank trace_filter set stands in).  Every frame a cell shows must
have HTA's shape and columns, and HTA's values where both compute them the
same way.  Figures are captured, not shown.  Each trace is parsed once per
module on each side."""
import tempfile
import unittest
from unittest import mock

import numpy as np
import pandas as pd

from common import analysis_pair, hta_peer, shared


def _quiet():
    """Figure.show captured (a test has no browser)."""
    import plotly.basedatatypes
    return mock.patch.object(plotly.basedatatypes.BaseFigure, "show", lambda *a, **k: None)


class NotebookCase(unittest.TestCase):
    TRACES = None

    def setUp(self):
        hta_peer(self)
        self.hta, self.kineta = analysis_pair(self.TRACES)
        self.enterContext(_quiet())

    def both(self, cell):
        """The cell's result on HTA and on kineta.hta."""
        return cell(self.hta), cell(self.kineta)

    def assert_shown(self, want, got, values=True, atol=0.0):
        """A frame as a cell shows it: shape and columns as HTA's; values too unless told."""
        self.assertIsInstance(got, pd.DataFrame)
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(list(got.columns), list(want.columns))
        if not values:
            return
        for col in want.columns:
            a, b = want[col].to_numpy(), got[col].to_numpy()
            if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
                self.assertTrue(np.allclose(a.astype(float), b.astype(float), atol=atol, equal_nan=True), col)
            else:
                self.assertEqual(list(map(str, a)), list(map(str, b)), col)


class TraceAnalysisDemo(NotebookCase):
    """examples/trace_analysis_demo.ipynb"""
    TRACES = "traces/hta/trace_filter"

    def test_temporal_breakdown(self):
        want, got = self.both(lambda a: a.get_temporal_breakdown(visualize=False))
        self.assert_shown(want, got)

    def test_kernel_breakdown(self):
        want, got = self.both(lambda a: a.get_gpu_kernel_breakdown(visualize=False, duration_ratio=0.8, num_kernels=5,
                                                                   include_memory_kernels=True))
        self.assert_shown(want[0], got[0])  # kernel_type_metrics_df
        self.assert_shown(want[1], got[1], atol=1e-6)  # kernel_metrics_df

    def test_comm_comp_overlap(self):
        want, got = self.both(lambda a: a.get_comm_comp_overlap(visualize=False))
        self.assert_shown(want, got)

    def test_idle_time_with_interval_stats(self):
        want, got = self.both(lambda a: a.get_idle_time_breakdown(ranks=[1], visualize=False, visualize_pctg=1,
                                                                  show_idle_interval_stats=True))
        self.assert_shown(want[0], got[0])  # idle_time_df
        self.assert_shown(want[1], got[1], atol=0.01)  # interval_stats_df

    def test_queue_length(self):
        want, got = self.both(lambda a: a.get_queue_length_summary(ranks=[0]))
        self.assert_shown(want, got, atol=1e-6)
        want, got = self.both(lambda a: a.get_queue_length_time_series())
        self.assertEqual(sorted(got), sorted(want))
        for rank in want:
            self.assert_shown(want[rank], got[rank], values=False)

    def test_trace_with_counters(self):
        """generate_trace_with_counters(): HTA writes beside the traces, which
        ../shared keeps read-only, so only kineta's call runs (into a temporary dir)."""
        with tempfile.TemporaryDirectory() as out:
            written = self.kineta.generate_trace_with_counters(output_dir=out)
            self.assertEqual(len(written), 1)  # rank 0, HTA's default

    def test_launch_stats(self):
        want, got = self.both(lambda a: a.get_cuda_kernel_launch_stats(visualize=False))
        self.assertEqual(sorted(got), sorted(want))
        self.assert_shown(want[0], got[0])  # kernel_stats[0]

    def test_frequent_sequences(self):
        """aten::linear is not in this trace: both give HTA's empty frame."""
        with tempfile.TemporaryDirectory() as out:
            want, got = self.both(lambda a: a.get_frequent_cuda_kernel_sequences(
                operator_name="aten::linear", output_dir=out, min_pattern_len=3, rank=0, top_k=5, visualize=False))
        self.assert_shown(want, got)


class KernelBreakdownDemo(NotebookCase):
    """examples/kernel_breakdown_demo.ipynb: the top kernels of each type,
    drawn (image_renderer="png"), with and without memory kernels."""
    TRACES = "traces/hta/trace_filter"

    def test_top_kernels(self):
        for include_memory in (True, False):
            want, got = self.both(lambda a: a.get_gpu_kernel_breakdown(
                num_kernels=5, include_memory_kernels=include_memory, image_renderer="png"))
            self.assert_shown(want[0], got[0])
            self.assert_shown(want[1], got[1], atol=1e-6)


class CriticalPathAnalysis(NotebookCase):
    """examples/experimental/critical_path_analysis.ipynb on simple_add."""
    TRACES = "traces/hta/critical_path/simple_add"

    def test_summary_breakdown_overlay(self):
        annotation, instance_id = "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1
        want, got = self.both(lambda a: a.critical_path_analysis(rank=0, annotation=annotation,
                                                                 instance_id=instance_id))
        self.assertEqual((got[1], want[1]), (True, True))  # success
        a, b = want[0].summary(), got[0].summary()
        self.assertEqual(list(b.index), list(a.index))
        self.assertTrue(np.allclose(b.to_numpy(), a.to_numpy(), atol=1e-6))
        self.assert_shown(want[0].get_critical_path_breakdown(), got[0].get_critical_path_breakdown(), values=False)
        with tempfile.TemporaryDirectory() as out:
            paths = [a.overlay_critical_path_analysis(0, g, output_dir=out) for a, g in
                     ((self.hta, want[0]), (self.kineta, got[0]))]
        self.assertEqual(paths[1].rsplit("/", 1)[1], paths[0].rsplit("/", 1)[1])


class TraceDiffDemo(unittest.TestCase):
    """examples/trace_diff_demo.ipynb on HTA's trace_diff pair."""

    def setUp(self):
        hta_peer(self)
        self.enterContext(_quiet())

    def test_compare_and_ops_diff(self):
        import hta.trace_diff as h
        import kineta.hta.trace_diff as k
        out = []
        for m in (h, k):
            control = m.LabeledTrace(label="Control", trace_dir=shared("traces/hta/trace_diff/control"))
            test = m.LabeledTrace(label="Test", trace_dir=shared("traces/hta/trace_diff/test"))
            ranks = (control.ranks(), test.ranks(), control.iterations(), test.iterations())
            frames = [m.TraceDiff.compare_traces(control, test, device_type=d)
                      for d in (m.DeviceType.ALL, m.DeviceType.CPU, m.DeviceType.GPU)]
            ops = m.TraceDiff.ops_diff(control, test)
            m.TraceDiff.visualize_counts_diff(frames[2])
            m.TraceDiff.visualize_duration_diff(frames[2])
            out.append((ranks, frames, ops))
        (want_ranks, want, want_ops), (got_ranks, got, got_ops) = out
        self.assertEqual(got_ranks, want_ranks)
        for a, b in zip(want, got):
            self.assertEqual(b.shape, a.shape)
            self.assertEqual(list(b.columns), list(a.columns))
        self.assertEqual({kind: sorted(v) for kind, v in got_ops.items()},
                         {kind: sorted(v) for kind, v in want_ops.items()})


class IdentifyStragglers(NotebookCase):
    """examples/identify_stragglers.ipynb.  Its first cell imports
    hta.trace, a module HTA no longer has (that cell fails on HTA too and
    is left out); the figures its visualize=True draws: test_hta_figures."""
    TRACES = "traces/hta/trace_filter"

    def test_profiler_steps_and_stragglers(self):
        want, got = self.both(lambda a: a.get_profiler_steps())
        self.assertEqual(got, want)
        want, got = self.both(lambda a: a.get_potential_stragglers(profiler_steps=[want[-1]], num_candidates=1,
                                                                   visualize=True))
        self.assertEqual(got, want)
        want, got = self.both(lambda a: a.get_potential_stragglers(num_candidates=2))
        self.assertEqual(sorted(got), sorted(want))


class CuptiFlopsAnalysis(NotebookCase):
    """examples/cupti_flops_analysis.ipynb.  The notebook predates HTA's
    renames: hta.analyzers.counters_analysis and
    TraceAnalysis.get_counter_data_with_operators fail on HTA itself; their
    present names (cupti_counter_analysis, get_cupti_counter_data_with_operators)
    run the notebook's cells."""
    TRACES = "traces/hta/cupti_profiler"

    def test_flops_per_kernel(self):
        from hta.analyzers.cupti_counter_analysis import CUDA_SASS_INSTRUCTION_COUNTER_FLOPS as WANT_FLOPS
        from kineta.hta.analyzers.cupti_counter_analysis import CUDA_SASS_INSTRUCTION_COUNTER_FLOPS
        self.assertEqual(CUDA_SASS_INSTRUCTION_COUNTER_FLOPS, WANT_FLOPS)
        want, got = self.both(lambda a: a.get_cupti_counter_data_with_operators(ranks=[0])[0])
        columns = sorted(want.columns)  # HTA orders the counters' columns as a Python set iterates
        self.assert_shown(want[columns], got[columns])
        for frame in (want, got):
            frame["flops"] = 0
            for counter, flops in CUDA_SASS_INSTRUCTION_COUNTER_FLOPS.items():
                frame["flops"] += frame[counter] * flops
        shown = ["name", "bottom_level_op", "top_level_op", "flops"]
        self.assert_shown(want[shown].head(), got[shown].head())


if __name__ == "__main__":
    unittest.main()
