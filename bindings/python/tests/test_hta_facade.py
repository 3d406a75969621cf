"""kineta.hta.TraceAnalysis returns HTA's frames: each method against the
CSV HTA wrote for every shared trace (../shared/oracle/hta), same columns
(HTA's leading pandas index column aside), same rows in the same order,
numbers equal to the digits HTA keeps."""
import collections
import math
import os
import unittest

from common import HTA_TRACES, SHARED, close, need_shared, shared

import pandas as pd

from kineta.hta import TraceAnalysis
from kineta.hta.utils.utils import flatten_column_names

ATOL = 0.011  # HTA rounds percentages and idle stats to 2 decimals


def oracle(directory, name):
    path = os.path.join(SHARED, "oracle", "hta", directory, name + ".csv")
    if not os.path.exists(path):
        return None
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    if frame.columns[0] in ("index", "level_0", "Unnamed: 0"):
        frame = frame.drop(columns=frame.columns[0])
    return frame


class HtaFacade(unittest.TestCase):
    def setUp(self):
        need_shared(self)
        self.compared = 0

    def assert_frame(self, what, got, want):
        if want is None:
            return
        self.compared += 1
        if got is None:
            got = pd.DataFrame(columns=want.columns)
        self.assertEqual(list(got.columns), list(want.columns), what)
        self.assertEqual(len(got), len(want), what)
        for c, column in enumerate(want.columns):
            # whole columns as Python scalars: per-cell iat is ~100x slower
            for r, (g, w) in enumerate(zip(got.iloc[:, c].tolist(), want.iloc[:, c].tolist())):
                if type(g) is type(w) and g == w:
                    continue  # what close() would accept, without its arithmetic
                self.assertTrue(close(g, w, ATOL), f"{what} row {r} {column}: kineta {g!r}, HTA {w!r}")

    def check(self, directory):
        ta = TraceAnalysis(trace_dir=shared(HTA_TRACES[directory]))
        self.assert_frame("temporal", ta.get_temporal_breakdown(visualize=False),
                          oracle(directory, "temporal_breakdown"))
        kernel_type, kernels = ta.get_gpu_kernel_breakdown(visualize=False)
        self.assert_frame("kernel_type", kernel_type, oracle(directory, "gpu_kernel_breakdown_kernel_type"))
        self.assert_frame("all_kernels", kernels, oracle(directory, "gpu_kernel_breakdown_all_kernels"))
        kernel_type, kernels = ta.get_gpu_kernel_breakdown(visualize=False, num_kernels=1000,
                                                           include_memory_kernels=False)
        self.assert_frame("kernel_type n1000", kernel_type,
                          oracle(directory, "gpu_kernel_breakdown_n1000_nomem_kernel_type"))
        self.assert_frame("all_kernels n1000", kernels,
                          oracle(directory, "gpu_kernel_breakdown_n1000_nomem_all_kernels"))
        idle, stats = ta.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=True)
        self.assert_frame("idle", idle, oracle(directory, "idle_time_breakdown"))
        self.assert_frame("idle stats", _flat(stats), oracle(directory, "idle_time_breakdown_interval_stats"))
        self.assert_frame("overlap", ta.get_comm_comp_overlap(visualize=False), oracle(directory, "comm_comp_overlap"))
        ranks = ta._kt.ranks  # the oracle's: every rank (HTA's default is rank 0)
        launches = ta.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
        self.assert_frame("launch stats", _with_ranks(launches), oracle(directory, "cuda_kernel_launch_stats"))
        self.assert_frame("queue summary", _flat(ta.get_queue_length_summary(ranks)),
                          oracle(directory, "queue_length_summary"))
        series = ta.get_queue_length_time_series(ranks)
        self.assert_frame("queue series", _with_ranks(series), oracle(directory, "queue_length_time_series"))
        self.assert_frame("blocked 4", ta.get_time_spent_blocked_on_full_queue(series, max_queue_length=4),
                          oracle(directory, "time_blocked_on_queue_ge_4"))
        self.assert_frame("memory bw", _flat(ta.get_memory_bw_summary(ranks)), oracle(directory, "memory_bw_summary"))
        self.assert_frame("memory bw series", _with_ranks(ta.get_memory_bw_time_series(ranks)),
                          oracle(directory, "memory_bw_time_series"))
        self.assertGreater(self.compared, 0, directory)


def _flat(frame):
    """A frame as the oracle's CSV holds it: column levels joined, the index as columns."""
    if frame is None:
        return None
    frame = frame.copy()
    flatten_column_names(frame)
    return frame.reset_index()


def _with_ranks(frames):
    """{rank: frame} as one frame with a rank column (the oracle's)."""
    frames = [f.assign(rank=r) for r, f in frames.items() if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else None


def _make(directory):
    return lambda self: self.check(directory)


for _dir in HTA_TRACES:
    setattr(HtaFacade, f"test_{_dir}", _make(_dir))


class HtaTraceDiff(unittest.TestCase):
    """kineta.hta.TraceDiff against HTA's compare_traces / ops_diff outputs
    on both shared pairs."""

    PAIRS = {"diff_trace_diff": ("traces/hta/trace_diff/control", "traces/hta/trace_diff/test"),
             "diff_trace_compare": ("traces/hta/trace_compare/base", "traces/hta/trace_compare/test")}

    def setUp(self):
        need_shared(self)

    def check(self, directory):
        import json

        from kineta.hta import TraceDiff
        control, test = (shared(p) for p in self.PAIRS[directory])
        got = TraceDiff.compare_traces(control, test).reset_index()
        want = pd.read_csv(os.path.join(SHARED, "oracle", "hta", directory, "compare_traces.csv"))
        HtaFacade.assert_frame(self, "compare_traces", got, want)
        got = TraceDiff.compare_traces(control, test, device_type="GPU", use_short_name=True).reset_index()
        want = oracle(directory, "compare_traces_short_name_gpu")
        HtaFacade.assert_frame(self, "compare_traces short gpu", got, want)
        with open(os.path.join(SHARED, "oracle", "hta", directory, "ops_diff.json")) as f:
            want = json.load(f)
        got = TraceDiff.ops_diff(control, test)
        self.assertEqual({k: sorted(v) for k, v in got.items()}, {k: sorted(v) for k, v in want.items()})

    def test_trace_diff_pair(self):
        self.compared = 0
        self.check("diff_trace_diff")

    def test_trace_compare_pair(self):
        self.compared = 0
        self.check("diff_trace_compare")


class HtaAttribution(unittest.TestCase):
    """The façade's annotation, aten-op and CUPTI methods against HTA's CSVs
    on every oracle dir that has them (columns both sides have, in HTA's
    row order)."""

    def setUp(self):
        need_shared(self)

    def assert_common_columns(self, what, got, want, required):
        self.assertIsNotNone(got, what)
        common = [c for c in want.columns if c in got.columns]
        self.assertTrue(set(required) <= set(common), f"{what}: {common}")
        HtaFacade.assert_frame(self, what, got[common].reset_index(drop=True), want[common])

    def test_every_oracle_dir(self):
        self.compared = 0
        for directory, trace in HTA_TRACES.items():
            want = {name: oracle(directory, name) for name in
                    ("gpu_user_annotation_breakdown", "cpu_user_annotation_breakdown",
                     "gpu_kernels_with_user_annotations", "aten_op_kernels_and_delay",
                     "cupti_counter_data_with_operators")}
            if all(w is None for w in want.values()):
                continue
            with self.subTest(trace=directory):
                ta = TraceAnalysis(trace_dir=shared(trace))
                self.assert_frame_or_none("gpu annotations", ta.get_gpu_user_annotation_breakdown(visualize=False),
                                          want["gpu_user_annotation_breakdown"])
                self.assert_frame_or_none("cpu annotations", ta.get_gpu_user_annotation_breakdown(
                    use_gpu_annotation=False, visualize=False), want["cpu_user_annotation_breakdown"])
                if want["gpu_kernels_with_user_annotations"] is not None:
                    self.assert_common_columns("kernels with annotations",
                                               ta.get_gpu_kernels_with_user_annotations(ta.t.get_ranks()[0]),
                                               want["gpu_kernels_with_user_annotations"],
                                               ["ts", "dur", "stream", "correlation", "s_name", "s_user_annotation"])
                if want["aten_op_kernels_and_delay"] is not None:
                    w = want["aten_op_kernels_and_delay"]
                    got = ta.get_aten_op_kernels_and_delay(ranks=sorted(w["rank"].unique()))
                    frame = pd.concat([f.assign(rank=r) for r, f in got.items()], ignore_index=True)
                    HtaFacade.assert_frame(self, "aten ops", frame, w)
                if want["cupti_counter_data_with_operators"] is not None:
                    frames = ta.get_cupti_counter_data_with_operators()
                    # "end": HTA's frame keeps the parser's, in file time (test_hta_analysis_notebooks
                    # compares it with HTA run in-process); the oracle's run added it after the shift
                    self.assert_common_columns("cupti", frames[0].drop(columns=["end"]),
                                               want["cupti_counter_data_with_operators"],
                                               ["name", "ts", "dur", "top_level_op", "bottom_level_op"])

    def assert_frame_or_none(self, what, got, want):
        if want is None:
            self.assertIsNone(got, what)
        else:
            HtaFacade.assert_frame(self, what, got, want)


class HtaFrequentSequences(unittest.TestCase):
    """get_frequent_cuda_kernel_sequences against HTA's CSVs, with the
    operator HTA used (status.json), on every oracle dir that has rows."""

    def setUp(self):
        need_shared(self)

    def test_every_oracle_dir(self):
        import json
        import tempfile
        self.compared = 0
        for directory, trace in HTA_TRACES.items():
            want = oracle(directory, "frequent_cuda_kernel_sequences")
            if want is None or not len(want):
                continue
            with open(os.path.join(SHARED, "oracle", "hta", directory, "status.json")) as f:
                op = json.load(f)["frequent_cuda_kernel_sequences_operator"]
            with self.subTest(trace=directory), tempfile.TemporaryDirectory() as out:
                ta = TraceAnalysis(trace_dir=shared(trace))
                got = ta.get_frequent_cuda_kernel_sequences(op, out, rank=ta.t.get_ranks()[0])
                HtaFacade.assert_frame(self, "patterns", got, want)
        self.assertGreater(self.compared, 3)


# The region HTA's critical_path_analysis was run with (../shared/oracle/README.md).
FORWARD = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
CP_REGIONS = {"cp_alexnet": (FORWARD, 1), "cp_simple_add": (FORWARD, 1), "cp_cuda_event_sync": ("ProfilerStep", 0),
              "cp_cuda_event_sync_multi_stream": ("", 0), "timeline_analysis": ("ProfilerStep", 0),
              "trace_filter_2ranks": ("ProfilerStep", 0)}
CP_REGIONS.update((d, ("ProfilerStep", 1)) for d in (
    "amd_trace", "nccl_parser_config", "ns_resolution_trace", "negative_queue_length_values_check",
    "df_index_resolver", "trace_diff_control", "trace_diff_test"))


class HtaCriticalPath(unittest.TestCase):
    """critical_path_analysis against HTA's critical_path_*.csv on every
    oracle dir that has them: the summary row for row, the path edge by edge
    in order (times, start flags, type, weight), the breakdown as a multiset
    (HTA's rows come in set order).  Node and event ids are not compared:
    HTA numbers every traceEvents entry, kineta the events it keeps."""

    EDGE_COLUMNS = ["u_ts", "v_ts", "u_is_start", "v_is_start", "type", "weight"]
    BREAKDOWN_COLUMNS = ["duration", "type", "s_name", "stream", "bound_by"]

    def setUp(self):
        need_shared(self)

    def check(self, directory):
        annotation, instance = CP_REGIONS[directory]
        ta = TraceAnalysis(trace_dir=shared(HTA_TRACES[directory]))
        graph, ok = ta.critical_path_analysis(rank=ta.t.get_ranks()[0], annotation=annotation, instance_id=instance)
        self.assertTrue(ok)
        summary = graph.summary().rename("pct_of_critical_path_duration").reset_index()
        HtaFacade.assert_frame(self, "summary", summary, oracle(directory, "critical_path_summary"))
        want = oracle(directory, "critical_path_edges_in_order")[self.EDGE_COLUMNS]
        got = graph.critical_path_edges_in_order()[self.EDGE_COLUMNS]
        HtaFacade.assert_frame(self, "edges", got, want)
        want = oracle(directory, "critical_path_breakdown")
        got = graph.get_critical_path_breakdown()
        self.assertEqual(list(got.columns), [c for c in want.columns if c != "level_0"])
        got, want = self.multiset(got), self.multiset(want)
        # Counter differences, not assertEqual: unittest's diff of long lists takes minutes
        self.assertEqual((len(got - want), len(want - got)), (0, 0),
                         f"breakdown rows only kineta has: {list(got - want)[:3]}, only HTA: {list(want - got)[:3]}")

    def multiset(self, frame):
        """Rows as tuples of text: numbers to 3 decimals, missing as ""."""
        def cell(v):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return ""
            return v if isinstance(v, str) else f"{float(v):.3f}"
        return collections.Counter(tuple(cell(v) for v in row)
                                   for row in frame[self.BREAKDOWN_COLUMNS].itertuples(index=False))

    def test_every_oracle_dir(self):
        self.compared = 0
        for directory in sorted(CP_REGIONS):
            with self.subTest(trace=directory):
                self.check(directory)
        self.assertGreaterEqual(self.compared, 2 * len(CP_REGIONS))

    def test_overlay_and_missing_annotation(self):
        import tempfile
        ta = TraceAnalysis(trace_dir=shared(HTA_TRACES["cp_alexnet"]))
        self.assertIsNone(ta.critical_path_analysis(0, "no such annotation", 0))
        with self.assertRaises(ValueError):
            ta.critical_path_analysis(3, FORWARD, 1)
        graph, _ = ta.critical_path_analysis(0, FORWARD, 1)
        with tempfile.TemporaryDirectory() as out:
            path = ta.overlay_critical_path_analysis(0, graph, out, only_show_critical_events=False)
            self.assertEqual(os.path.dirname(path), out)
            self.assertTrue(os.path.basename(path).startswith("overlaid_critical_path_"))
            self.assertTrue(os.path.exists(path))


class HtaStragglers(unittest.TestCase):
    """get_potential_stragglers and get_profiler_steps on the 2-rank
    trace_filter.  HTA returned [1] (status.json): its num_candidates=1
    answer; with the default 2 HTA's code flags both ranks, [0, 1]
    (docs/collectives.md walks through why)."""

    def setUp(self):
        need_shared(self)
        self.ta = TraceAnalysis(trace_dir=shared(HTA_TRACES["trace_filter_2ranks"]))

    def test_against_oracle(self):
        import json
        with open(os.path.join(SHARED, "oracle", "hta", "trace_filter_2ranks", "status.json")) as f:
            want = json.load(f)["potential_stragglers_result"]
        self.assertEqual(self.ta.get_potential_stragglers(num_candidates=1), want)
        self.assertEqual(self.ta.get_potential_stragglers(), [0, 1])
        self.assertEqual(self.ta.get_potential_stragglers(profiler_steps=[551], num_candidates=0), want)

    def test_profiler_steps(self):
        want = oracle("trace_filter_2ranks", "profiler_steps")
        self.assertEqual(self.ta.get_profiler_steps(), [int(s) for s in want.iloc[:, -1]])
        with self.assertRaises(NotImplementedError):
            self.ta.get_potential_stragglers(straggler_identification_impl=print)


if __name__ == "__main__":
    unittest.main()
