"""visualize=True draws HTA's figures: the same calls on HTA (in this process)
and on kineta.hta with plotly's Figure.show captured, compared figure by
figure (trace kinds, names and point counts, title, axis titles); with
visualize=False nothing is drawn; without plotly the ImportError names the
Debian package."""
import sys
import tempfile
import unittest
from unittest import mock

from common import analysis_pair, hta_peer, shared

TRACES = "traces/hta/trace_filter"  # two ranks, NCCL, memcpy/memset, a frequent mm pattern


def _summary(fig):
    layout = fig.layout
    return ([type(t).__name__ for t in fig.data], [t.name for t in fig.data],
            [len(t.x) if getattr(t, "x", None) is not None else None for t in fig.data],
            layout.title.text, layout.xaxis.title.text, layout.yaxis.title.text)


def _shown(call):
    """The summaries of the figures call() shows."""
    import plotly.basedatatypes
    figures = []
    with mock.patch.object(plotly.basedatatypes.BaseFigure, "show", lambda fig, *a, **k: figures.append(fig)):
        call()
    return [_summary(f) for f in figures]


class VisualizeAsHta(unittest.TestCase):
    def setUp(self):
        hta_peer(self)
        self.hta, self.kineta = analysis_pair(TRACES)

    def assert_same_figures(self, call, count):
        want, got = _shown(lambda: call(self.hta)), _shown(lambda: call(self.kineta))
        self.assertEqual(got, want)
        self.assertEqual(len(got), count)
        return got

    def test_temporal_breakdown(self):
        got = self.assert_same_figures(lambda a: a.get_temporal_breakdown(), 1)
        self.assertEqual(got[0][1], ["idle_time", "compute_time", "non_compute_time"])

    def test_idle_time_breakdown(self):
        self.assert_same_figures(lambda a: a.get_idle_time_breakdown(ranks=[0]), 1)
        got = self.assert_same_figures(lambda a: a.get_idle_time_breakdown(ranks=[1], visualize_pctg=False), 1)
        self.assertEqual(got[0][5], "Idle time (us)")

    def test_kernel_breakdown(self):
        """A pie of kernel types, then per type a pie per rank and a bar per kernel."""
        got = self.assert_same_figures(lambda a: a.get_gpu_kernel_breakdown(num_kernels=3), 11)
        self.assertEqual(got[1][0], ["Pie", "Pie"])

    def test_overlap_launches_aten_ops(self):
        self.assert_same_figures(lambda a: a.get_comm_comp_overlap(), 1)
        self.assert_same_figures(lambda a: a.get_cuda_kernel_launch_stats(ranks=[0]), 3)
        self.assert_same_figures(lambda a: a.get_aten_op_kernels_and_delay(ranks=[1]), 1)  # shown on every call

    def test_frequent_patterns(self):
        with tempfile.TemporaryDirectory() as out:
            got = self.assert_same_figures(lambda a: a.get_frequent_cuda_kernel_sequences(
                "aten::mm", out, min_pattern_len=2, visualize=True), 1)
        self.assertEqual(got[0][3], "Top 1 frequent patterns for rank 0")

    def test_annotation_breakdown(self):
        """On a trace with GPU annotations (trace_filter has none): a pie per rank, a bar per annotation."""
        want, got = (_shown(lambda: a.get_gpu_user_annotation_breakdown()) for a in analysis_pair("traces/hta/amd_trace"))
        self.assertEqual(got, want)
        self.assertEqual([f[3] for f in got], ["User annotation distribution on each rank",
                                               "User annotation = Optimizer.step#SGD.step",
                                               "User annotation = ProfilerStep#1"])

    def test_stragglers(self):
        """Timelines of the long NCCL kernels and of the candidate kernel, then the metric per rank."""
        got = self.assert_same_figures(lambda a: a.get_potential_stragglers(visualize=True), 3)
        self.assertEqual(got[2][1], ["Yes"])  # both ranks flagged (2 candidates)
        got = self.assert_same_figures(lambda a: a.get_potential_stragglers(profiler_steps=[551], num_candidates=1,
                                                                            visualize=True), 3)
        self.assertEqual(got[2][1], ["No", "Yes"])

    def test_nothing_drawn_without_visualize(self):
        k = self.kineta
        self.assertEqual(_shown(lambda: (k.get_temporal_breakdown(visualize=False),
                                         k.get_gpu_kernel_breakdown(visualize=False),
                                         k.get_idle_time_breakdown(visualize=False),
                                         k.get_comm_comp_overlap(visualize=False),
                                         k.get_cuda_kernel_launch_stats(visualize=False),
                                         k.get_potential_stragglers())), [])

    def test_without_plotly(self):
        hidden = {m: None for m in ("plotly", "plotly.express", "plotly.graph_objects", "plotly.subplots")}
        with mock.patch.dict(sys.modules, hidden):
            self.assertEqual(len(self.kineta.get_temporal_breakdown(visualize=False)), 2)
            with self.assertRaisesRegex(ImportError, "python3-plotly"):
                self.kineta.get_temporal_breakdown()


class DiffFiguresAsHta(unittest.TestCase):
    def test_counts_and_durations(self):
        """compare_traces of rank 0 against rank 1, labelled; both figures."""
        hta_peer(self)
        from hta.trace_diff import LabeledTrace as HtaLabeled, TraceDiff as HtaDiff
        from kineta.hta.trace_diff import LabeledTrace, TraceDiff
        shown = []
        for diff, labeled in ((HtaDiff, HtaLabeled), (TraceDiff, LabeledTrace)):
            frame = diff.compare_traces(labeled("control", trace_dir=shared(TRACES)),
                                        labeled("test", trace_dir=shared(TRACES)), control_rank=0, test_rank=1)
            shown.append(_shown(lambda: (diff.visualize_counts_diff(frame), diff.visualize_duration_diff(frame))))
        want, got = shown
        self.assertEqual(got, want)
        self.assertEqual([s[1] for s in got], [["control", "test", "Difference"]] * 2)
        self.assertEqual(got[0][2], [398] * 3)  # ops in either run


if __name__ == "__main__":
    unittest.main()
