"""The package's own behaviour: loading, errors and warnings, options,
dtypes, events as columns — on traces written here (no ../shared needed)."""
import json
import os
import tempfile
import unittest
import warnings

from common import ROOT  # noqa: F401  (puts the package on sys.path)

import numpy as np

import kineta

EVENTS = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 90, "dur": 30,
     "args": {"External id": 5}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5,
     "args": {"correlation": 7, "External id": 5}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 20,
     "args": {"stream": 7, "correlation": 7, "External id": 5}},
    {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 140, "dur": 10,
     "args": {"stream": 7, "correlation": 9}},
]


def write_trace(directory, rank=0, events=EVENTS, name=None):
    path = os.path.join(directory, name or f"rank-{rank}.json")
    with open(path, "w") as f:
        json.dump({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": events}, f)
    return path


class LoadTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_ranks_files_and_events(self):
        write_trace(self.dir.name, 0)
        write_trace(self.dir.name, 1)
        with kineta.load(self.dir.name) as t:
            self.assertEqual(t.ranks, [0, 1])
            e = t.events(rank=1)
            self.assertEqual(len(e), 4)
            self.assertEqual(list(e["name"]), ["aten::mm", "cudaLaunchKernel", "gemm", "relu"])
            self.assertEqual(list(e["kind"]), ["cpu_op", "runtime", "kernel", "kernel"])
            self.assertEqual(e["ts"].dtype, np.int64)
            self.assertEqual(list(e["ts"]), [90000, 100000, 110000, 140000])  # ns
            self.assertEqual(list(e["dur"]), [30000, 5000, 20000, 10000])
            self.assertEqual(list(e["stream"]), [-1, -1, 7, 7])
            self.assertEqual(list(e["correlation"]), [-1, 7, 7, 9])
            self.assertEqual(list(e["external_id"]), [5, 5, 5, -1])
            with self.assertRaises(ValueError):
                t.events()  # two ranks: which?
            with self.assertRaises(ValueError):
                t.events(rank=5)

    def test_analysis_frames_have_the_tables_types(self):
        write_trace(self.dir.name)
        t = kineta.load(self.dir.name)
        k = t.kernels(sort="total")
        self.assertEqual(set(k), {"kernels", "summary"})
        kernels = k["kernels"]
        self.assertEqual(list(kernels["name"]), ["gemm", "relu"])
        self.assertEqual(kernels["count"].dtype, np.int64)
        total = [c for c in kernels.columns if c.startswith("total")][0]
        self.assertEqual(kernels[total].dtype, np.float64)
        self.assertEqual(list(kernels[total]), [20.0, 10.0])
        # one table → one DataFrame
        temporal = t.temporal()
        self.assertEqual(len(temporal), 1)
        self.assertEqual(temporal.iloc[0]["rank"], 0)
        self.assertEqual(len(t.kernels(top=1)["kernels"]), 1)

    def test_null_numbers_become_nan(self):
        write_trace(self.dir.name)
        overlap = kineta.load(self.dir.name).overlap()  # no communication: null
        self.assertTrue(np.isnan(overlap["comp_comm_overlap_pctg"].iloc[0]))

    def test_bad_option_and_unknown_command(self):
        write_trace(self.dir.name)
        t = kineta.load(self.dir.name)
        with self.assertRaises(kineta.KinetaError) as e:
            t.kernels(sort="sideways")
        self.assertEqual(e.exception.status, 2)
        with self.assertRaises(kineta.KinetaError):
            t.kernels(no_such_option=3)
        with self.assertRaises(kineta.KinetaError):
            t.run("no-such-command")

    def test_missing_and_garbage_files_raise_with_status_and_diagnostics(self):
        with self.assertRaises(kineta.KinetaError) as e:
            kineta.load(os.path.join(self.dir.name, "nope.json"))
        self.assertEqual(e.exception.status, 3)
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            f.write("this is not json")
        with self.assertRaises(kineta.KinetaError) as e:
            kineta.load(bad)
        self.assertEqual(e.exception.status, 3)
        self.assertTrue(e.exception.diagnostics)
        self.assertIn("bad.json", str(e.exception.diagnostics[0][1]))

    def test_damage_is_a_warning(self):
        path = write_trace(self.dir.name)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text[: text.rindex("relu") - 40])  # cut inside the last event
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = kineta.load(path)
        self.assertTrue(any("rank-0.json" in str(w.message) for w in caught))
        self.assertEqual(len(t.events()), 3)  # what was recovered

    def test_error_reason_is_in_the_exception(self):
        write_trace(self.dir.name)
        t = kineta.load(self.dir.name)
        with self.assertRaises(kineta.KinetaError) as e:
            t.kernels(sort="time")
        self.assertEqual(e.exception.status, 2)
        self.assertIn("--sort must be one of: count duration total", str(e.exception))
        with self.assertRaises(kineta.KinetaError) as e:
            t.kernels(no_such_option=3)
        self.assertIn("unknown option 'no-such-option'", str(e.exception))

    def test_a_rank_not_there_raises_naming_the_ranks(self):
        write_trace(self.dir.name, 0)
        write_trace(self.dir.name, 1)
        t = kineta.load(self.dir.name)
        with self.assertRaises(kineta.KinetaError) as e:
            t.temporal(ranks=[9])
        self.assertEqual(e.exception.status, 1)
        self.assertIn("no rank 9 in these traces; ranks: 0-1", str(e.exception))
        self.assertEqual(list(t.temporal(ranks=[1])["rank"]), [1])

    def test_load_selects_ranks_of_a_directory(self):
        for r in range(3):
            write_trace(self.dir.name, r)
        t = kineta.load(self.dir.name, ranks=[2, 0])
        self.assertEqual(t.ranks, [0, 2])
        self.assertEqual(sorted(t.files), [0, 2])
        self.assertEqual(list(t.temporal()["rank"]), [0, 2])
        self.assertEqual(len(t.events(rank=2)), 4)
        with self.assertRaises(ValueError):
            t.events(rank=1)  # loaded, not selected
        with self.assertRaises(kineta.KinetaError) as e:
            t.temporal(ranks=[1])
        self.assertIn("no rank 1 in these traces; ranks: 0, 2", str(e.exception))
        with self.assertRaises(kineta.KinetaError) as e:
            kineta.load(self.dir.name, ranks=[4])
        self.assertEqual(e.exception.status, 1)
        self.assertIn("no rank 4 in these traces; ranks: 0-2", str(e.exception))

    def test_report_writes_the_file_named(self):
        write_trace(self.dir.name)
        out = os.path.join(self.dir.name, "x.html")
        kineta.load(self.dir.name).report(out=out)
        self.assertTrue(os.path.isfile(out))
        with open(out) as f:
            self.assertIn("<html", f.read(4096).lower())
        with self.assertRaises(kineta.KinetaError) as e:
            kineta.load(self.dir.name).report(out=os.path.join(self.dir.name, "nodir", "x.html"))
        self.assertEqual(e.exception.status, 3)
        self.assertIn("directory", str(e.exception))

    def test_diff_takes_a_path_or_a_trace(self):
        a = write_trace(self.dir.name, 0, name="a.json")
        b = write_trace(self.dir.name, 0, EVENTS[:3], name="b.json")
        control = kineta.load(a)
        by_path = control.diff(b)
        with kineta.load(b) as test:
            by_trace = control.diff(test)
        self.assertEqual(set(by_path), set(by_trace))
        for name in by_path:
            self.assertTrue(by_path[name].equals(by_trace[name]), name)
        self.assertTrue(len(by_path["ops"]) > 0)

    def test_docstrings_list_the_commands_options(self):
        doc = kineta.Trace.kernels.__doc__
        self.assertIn("sort='KEY'", doc)
        self.assertIn("count|duration|total|percentage|duration-percentage (default total)", doc)
        self.assertIn("memory=True", doc)
        self.assertNotIn("--help", doc)
        self.assertIn("test", kineta.Trace.diff.__doc__)

    def test_explicit_ranks_and_file_outputs(self):
        a = write_trace(self.dir.name, 0, name="a.json")
        b = write_trace(self.dir.name, 0, name="b.json")
        t = kineta.load([a, b], file_ranks=[3, 4])
        self.assertEqual(t.ranks, [3, 4])
        out = os.path.join(self.dir.name, "out")
        files = t.counters(out=out)
        self.assertEqual(len(files), 2)
        self.assertTrue(all(os.path.exists(p) for p in files["output"]))
        t.close()
        with self.assertRaises(ValueError):
            t.ranks


if __name__ == "__main__":
    unittest.main()


class ComparePerfTest(unittest.TestCase):
    """t.compare_perf(other): the gemm kernel under aten::mm takes 20 µs in
    the base run and 30 in the test run; relu (unlinked) is the same."""

    def test_compare_perf(self):
        with tempfile.TemporaryDirectory() as d:
            slower = [dict(e, dur=30) if e["name"] == "gemm" else e for e in EVENTS]
            base_path = write_trace(d, 0, name="base.json")
            test_path = write_trace(d, 0, events=slower, name="test.json")
            base, test = kineta.load(base_path), kineta.load(test_path)
            frames = base.compare_perf(test, names=("a", "b"))
            ops = frames["ops_summary"].set_index("name")
            row = ops.loc["aten::mm"]
            self.assertEqual(row["status"], "matched")
            self.assertEqual(row["a::total_direct_kernel_time_sum"], 20.0)
            self.assertEqual(row["b::total_direct_kernel_time_sum"], 30.0)
            self.assertEqual(row["total_direct_kernel_time_sum__diff"], 10.0)
            self.assertEqual(row["total_direct_kernel_time_sum__ratio"], 1.5)
            kernels = frames["kernel_summary"].set_index("Kernel name")
            self.assertEqual(kernels.loc["relu", "Kernel duration (µs)_sum__ratio"], 1.0)
            cli = test.perf(compare=base_path, names="a,b")["ops_summary"]
            self.assertTrue(cli.equals(frames["ops_summary"]))
            base.close()
            test.close()
