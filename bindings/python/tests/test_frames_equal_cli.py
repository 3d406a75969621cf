"""The DataFrames equal the CLI's tables, on every shared trace: every
table of every analysis command, value for value (floats within the digits
the CLI prints), rows in the same order.  The CLI prints with --format
json, one run per command and trace; info (nested json) is read as csv."""
import csv
import io
import json
import os
import subprocess
import unittest

from common import CLI, HTA_TRACES, close, need_shared, shared

import kineta

COMMANDS = ["kernels", "breakdown", "categories", "temporal", "idle", "overlap", "gaps", "launch", "queue",
            "memcpy-bw", "annotations", "ops", "cupti", "memory"]
INFO_TABLES = ["ranks", "events", "streams", "steps", "launch_apis"]
TRACELENS = ["h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
             "h100/google_owlv2-large-patch14-ensemble__1016001.json.gz",
             "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
             "h100/gaunernst_bert-small-uncased__1016001.json.gz", "h100/Falconsai_nsfw_image_detection__1016002.json.gz",
             "mi210/gpu_only_trace/gpu_only_trace.json.gz", "perf_model/normalization/normalization_layer_test.json.gz",
             "torch_compile_triton/trace.json.gz"]
TRACES = (sorted(set(HTA_TRACES.values())) + ["traces/tracelens/" + t for t in TRACELENS]
          + ["traces/legacy_tbplugin_resnet50.pt.trace.json.gz"])


def cli(*args):
    done = subprocess.run([CLI, *args, "-q"], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"kineta {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def tolerance(frame, column):
    digits = frame.attrs["precision"].get(column, -1)
    return 0.0 if digits < 0 else 0.5 * 10.0 ** -digits


class FramesEqualCli(unittest.TestCase):
    def setUp(self):
        need_shared(self)
        if not os.access(CLI, os.X_OK):
            self.skipTest(f"no CLI at {CLI}")

    def assert_rows(self, what, frame, rows):
        """rows: lists of cells in column order."""
        self.assertEqual(len(frame), len(rows), what)
        columns = list(frame.columns)
        # a column's values as Python scalars at once: per-cell iat is ~100x slower
        values = [frame.iloc[:, c].tolist() for c in range(len(columns))]
        for r, row in enumerate(rows):
            self.assertEqual(len(row), len(columns), what)
            for c, want in enumerate(row):
                got = values[c][r]
                if type(got) is type(want) and got == want:
                    continue  # what close() would accept, without its arithmetic
                self.assertTrue(close(got, want, tolerance(frame, columns[c])),
                                f"{what} row {r} {columns[c]}: python {got!r}, cli {want!r}")

    def check_command(self, t, path, command):
        frames = t.run(command)
        printed = json.loads(cli(command, "--format", "json", "--verbose", path))
        notes = printed.pop("footnotes", {})
        self.assertEqual(list(printed), list(frames), f"{command} {path}: tables")
        for name, frame in frames.items():
            self.assertEqual(notes.get(name, []), frame.attrs["notes"], f"{command} {name} {path}: footnotes")
            self.assert_rows(f"{command} {name} {path}", frame, [list(row.values()) for row in printed[name]])

    def check_info(self, t, path):
        frames = t.run("info")
        for name in INFO_TABLES:
            text = cli("info", "--format", "csv", "--table", name, path)
            rows = list(csv.reader(io.StringIO(text)))
            self.assertEqual(rows[0], list(frames[name].columns), f"info {name} {path}")
            frame = frames[name]
            # csv writes null and "" alike: compare string columns with "" for null
            frame = frame.apply(lambda col: col.fillna("") if col.dtype == object else col)
            parsed = [[cell if frame.dtypes.iloc[c] == object else None if cell == "" else float(cell)
                       for c, cell in enumerate(row)] for row in rows[1:]]
            self.assert_rows(f"info {name} {path}", frame, parsed)

    def test_every_command_on_every_shared_trace(self):
        for rel in TRACES:
            path = shared(rel)
            with self.subTest(trace=rel), kineta.load(path) as t:
                self.check_info(t, path)
                for command in COMMANDS:
                    self.check_command(t, path, command)


if __name__ == "__main__":
    unittest.main()
