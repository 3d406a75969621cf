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


if __name__ == "__main__":
    unittest.main()
