"""TraceDiff.compare_traces on a pair of different models (ResNet-50 against
the trace_diff control run): totals never negative, and AddBackward0's row
as HTA computes it (HTA 0.2's compare_traces on the same files, run once:
12 calls / 6 µs against 16 calls / 52 µs)."""
import shutil
import tempfile
import unittest

from common import need_shared, shared

from kineta.hta.trace_diff import TraceDiff


class CompareTracesTotals(unittest.TestCase):
    def test_resnet_against_the_control_run(self):
        need_shared(self)
        with tempfile.TemporaryDirectory() as test:
            shutil.copy(shared("traces/legacy_tbplugin_resnet50.pt.trace.json.gz"), test)
            d = TraceDiff.compare_traces(shared("traces/hta/trace_diff/control"), test)
        self.assertEqual(len(d), 503)  # HTA's row count
        for col in ("Control_total_duration", "Test_total_duration", "Control_counts", "Test_counts"):
            self.assertGreaterEqual(d[col].min(), 0, col)
        row = d.loc["AddBackward0"]
        self.assertEqual([row["Control_counts"], row["Control_total_duration"], row["Test_counts"],
                          row["Test_total_duration"], row["diff_counts"], row["diff_duration"]],
                         [12, 6.0, 16, 52.0, 4, 46.0])
        self.assertEqual(row["counts_change_categories"], "+")


if __name__ == "__main__":
    unittest.main()
