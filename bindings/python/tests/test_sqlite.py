"""`kineta export --sqlite` round-trips: counts and sums read back through
the sqlite3 command line equal the CLI's own tables, and every example
query of docs/sqlite.md runs.  On a synthesized trace (always) and on a
shared one (when ../shared is present)."""
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from common import CLI, ROOT, SHARED, shared

import kineta

SYNTH = os.environ.get("KINETA_SYNTH_BIN", os.path.join(ROOT, "build", "kineta-synth"))
SQLITE = shutil.which("sqlite3")


def sql(db, query):
    done = subprocess.run([SQLITE, "-batch", "-separator", "|", db, query], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"sqlite3: {done.stderr.strip()} in: {query}")
    return [line.split("|") for line in done.stdout.splitlines()]


def doc_queries():
    with open(os.path.join(ROOT, "docs", "sqlite.md")) as f:
        return re.findall(r"```sql\n(.*?)```", f.read(), re.S)


class SqliteExport(unittest.TestCase):
    def setUp(self):
        if not SQLITE:
            self.skipTest("sqlite3 command line not installed")
        if not os.access(CLI, os.X_OK):
            self.skipTest(f"no CLI at {CLI}")
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def export(self, path):
        db = os.path.join(self.dir.name, "trace.db")
        done = subprocess.run([CLI, "export", "--sqlite", db, path, "-q", "--format", "csv"], capture_output=True,
                              text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return db

    def check_round_trip(self, path):
        db = self.export(path)
        t = kineta.load(path)
        info = t.info()
        events = info["events"]
        ranks = info["ranks"]
        # every event, by rank
        for _, row in ranks.iterrows():
            got = sql(db, f"SELECT COUNT(*) FROM events WHERE rank = {row['rank']}")[0][0]
            self.assertEqual(int(got), int(row["events_loaded"]))
        # events by ph, as info counts them
        for _, row in events[events["group"] == "ph"].iterrows():
            got = sql(db, f"SELECT COUNT(*) FROM events WHERE rank = {row['rank']} AND ph = '{row['key']}'")[0][0]
            self.assertEqual(int(got), int(row["count"]), f"ph {row['key']}")
        # kernel count and time, as kernels' summary
        summary = t.kernels()["summary"]
        kernels, time_us = sql(db, "SELECT COUNT(*), SUM(dur_ns) / 1000.0 FROM gpu_events WHERE kind = 'kernel'")[0]
        self.assertEqual(int(kernels), int(summary.iloc[:, 2].sum()))
        self.assertAlmostEqual(float(time_us), float(summary.iloc[:, 3].sum()), places=3)
        # per-kernel totals, as kernels --sort total --top 0
        by_name = t.kernels(sort="total", top=0)["kernels"]
        rows = sql(db, "SELECT name, SUM(count), SUM(total_ns) FROM kernel_time_by_name GROUP BY name")
        totals = {name: (int(c), int(ns)) for name, c, ns in rows}
        for _, row in by_name.iterrows():
            count, ns = totals[row["name"]]
            self.assertEqual(count, row["count"])
            self.assertAlmostEqual(ns / 1000.0, row[by_name.columns[3]], places=3)
        # launches: every linked GPU event, as the launch command counts them
        launches = t.launch()["launches"]
        self.assertEqual(int(sql(db, "SELECT COUNT(*) FROM launches")[0][0]), len(launches))
        # the analysis tables as the CLI prints them
        temporal = t.temporal()
        got = sql(db, "SELECT COUNT(*) FROM temporal_temporal_breakdown")[0][0]
        self.assertEqual(int(got), len(temporal))
        # steps as info lists them
        steps = info["steps"]
        self.assertEqual(int(sql(db, "SELECT COUNT(*) FROM steps")[0][0]), len(steps))
        # every documented example runs and returns rows
        for query in doc_queries():
            self.assertTrue(sql(db, query), query)
        t.close()

    def test_synthesized_trace(self):
        if not os.access(SYNTH, os.X_OK):
            self.skipTest(f"no synthesizer at {SYNTH}")
        out = os.path.join(self.dir.name, "synth")
        subprocess.run([SYNTH, "--ranks", "2", "--size", "2M", "--graphs", "-o", out], check=True,
                       capture_output=True)
        self.check_round_trip(out)

    def test_shared_trace(self):
        if not os.path.isdir(os.path.join(SHARED, "traces")):
            self.skipTest("../shared not present")
        self.check_round_trip(shared("traces/hta/df_index_resolver"))

    def test_a_failed_export_leaves_no_file(self):
        db = os.path.join(self.dir.name, "missing-dir", "x.db")
        src = os.path.join(self.dir.name, "t.json")
        with open(src, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, '
                    '"dur": 2, "args": {"stream": 7}}]}')
        done = subprocess.run([CLI, "export", "--sqlite", db, src, "-q"], capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("x.db", done.stderr)
        self.assertFalse(os.path.exists(db))

    def test_ph_reads_back_in_python(self):
        # one byte of "é", or NUL for "", is no text: NULL, so Python's sqlite3 reads the column
        src = os.path.join(self.dir.name, "t.json")
        with open(src, "w", encoding="utf-8") as f:
            f.write('{"traceEvents": [' + ",".join(
                f'{{"ph": "{ph}", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": {ts}, "dur": 1}}'
                for ts, ph in enumerate(["X", "é", ""])) + "]}")
        db = self.export(src)
        with sqlite3.connect(db) as con:
            self.assertEqual(con.execute("SELECT ph FROM events ORDER BY key").fetchall(),
                             [("X",), (None,), (None,)])


if __name__ == "__main__":
    unittest.main()
