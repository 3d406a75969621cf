"""kineta.load(cache_dir=...): the first load writes the cache file, the
second maps it, and both give the same frames as a load without cache."""
import json
import os
import tempfile
import unittest

from common import ROOT  # noqa: F401  (puts the package on sys.path)

import kineta

EVENTS = [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5,
     "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 20,
     "args": {"stream": 7, "correlation": 7}},
]


class CacheDir(unittest.TestCase):
    def test_cached_loads_give_the_same_frames(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rank-0.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": EVENTS}, f)
            cache = os.path.join(d, "cache")
            plain = kineta.load(path).kernels()["kernels"]
            written = kineta.load(path, cache_dir=cache).kernels()["kernels"]
            self.assertEqual(len([n for n in os.listdir(cache) if n.endswith(".ktc")]), 1)
            mapped = kineta.load(path, cache_dir=cache).kernels()["kernels"]
            self.assertEqual(list(plain["name"]), ["gemm"])
            self.assertTrue(plain.equals(written))
            self.assertTrue(plain.equals(mapped))


if __name__ == "__main__":
    unittest.main()
