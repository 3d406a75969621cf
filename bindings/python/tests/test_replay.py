"""Trace.replay_ir(): the replay IR from the C library, equal to the
replay_ir.json `kineta replay -o` writes, on the shared bert h100 trace."""
import json
import os
import subprocess
import tempfile
import unittest

from common import CLI, need_shared, shared

import kineta

BERT = "traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"


class ReplayIr(unittest.TestCase):
    def test_replay_ir_equals_cli_json(self):
        need_shared(self)
        with kineta.load(shared(BERT)) as t:
            ir = t.replay_ir(top=3)
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([CLI, "replay", "-q", shared(BERT), "--top", "3", "-o", out], check=True,
                           stdout=subprocess.DEVNULL)
            with open(os.path.join(out, "replay_ir.json")) as f:
                written = json.load(f)["ops"]
        self.assertEqual(ir, written)
        self.assertEqual([op["op"] for op in ir],
                         ["aten::addmm", "aten::_scaled_dot_product_flash_attention", "aten::layer_norm"])
        self.assertEqual(ir[0]["args"][2]["dims"], [512, 512])
        self.assertEqual(ir[0]["args"][2]["strides"], [1, 512])
        self.assertEqual(ir[0]["lost_us"], 94.58686533931902)

    def test_replay_ir_top_follows_device_spec(self):
        """device_spec= (the file `kineta replay --device-spec` takes): with
        matrix units a million times slower than the H100's, no GEMM loses
        time against its roofline and --top's first op is layer_norm."""
        need_shared(self)
        spec = {"name": "slow matrix units", "mem_bw_gbps": 3350,
                "max_achievable_tflops": {"matrix_fp16": 0.001, "matrix_bf16": 0.001, "matrix_fp32": 0.001,
                                          "matrix_fp64": 0.001, "vector_fp16": 134, "vector_bf16": 134,
                                          "vector_fp32": 67, "vector_fp64": 34}}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "spec.json")
            with open(path, "w") as f:
                json.dump(spec, f)
            with kineta.load(shared(BERT)) as t:
                h100, slow = t.replay_ir(top=1), t.replay_ir(top=1, device_spec=path)
        self.assertEqual([op["op"] for op in h100], ["aten::addmm"])
        self.assertEqual([(op["op"], op["first_event"]) for op in slow], [("aten::layer_norm", 28)])


if __name__ == "__main__":
    unittest.main()
