"""kineta.hta.common.trace.Trace gives HTA's per-rank frames: HTA itself
(../shared/peers/hta) parses the same files in this process and the frames
are compared whole: rows and their labels, columns and their order,
dtypes, every value (name/cat compared as symbols: both tables number
their symbols in their own order)."""
import os
import unittest

import numpy as np

from common import hta_peer, shared


_PARSED = {}


def _both(trace_dir, loaded, config=None):
    """(HTA's Trace, kineta's Trace) of trace_dir, parsed, or loaded (aligned
    and step-filtered); each pair made once (HTA takes a second a trace)."""
    if config is not None:
        return _parse_both(trace_dir, loaded, config)
    if (trace_dir, loaded) not in _PARSED:
        _PARSED[trace_dir, loaded] = _parse_both(trace_dir, loaded, None)
    return _PARSED[trace_dir, loaded]


def _parse_both(trace_dir, loaded, config):
    from hta.common.trace import Trace as HtaTrace
    from kineta.hta.common.trace import Trace
    h = HtaTrace(trace_dir=trace_dir, parser_config=config and config[0])
    k = Trace(trace_dir=trace_dir, parser_config=config and config[1])
    if loaded:
        h.load_traces(use_multiprocessing=False)
        k.load_traces()
    else:
        h.parse_traces(use_multiprocessing=False)
        k.parse_traces()
    return h, k


def _symbols(frame, table):
    out = frame.copy()
    for col in ("name", "cat"):
        out[col] = np.asarray(table.get_sym_table(), dtype=object)[out[col].to_numpy()]
    return out


class HtaTraceFrames(unittest.TestCase):
    def assert_same_frames(self, h, k):
        self.assertEqual(k.get_ranks(), h.get_ranks())
        for rank in h.get_ranks():
            want, got = h.get_trace(rank), k.get_trace(rank)
            self.assertEqual(list(got.columns), list(want.columns))
            self.assertEqual(len(got), len(want))
            self.assertTrue((got.index == want.index).all())
            for col in got.columns:
                self.assertEqual(got[col].dtype, want[col].dtype, col)
            want, got = _symbols(want, h.symbol_table), _symbols(got, k.symbol_table)
            for col in got.columns:
                a, b = want[col].to_numpy(), got[col].to_numpy()
                if a.dtype == object:  # lists (Input Dims, split sizes) compare as text
                    a, b = want[col].map(repr).to_numpy(), got[col].map(repr).to_numpy()
                same = (a == b) | (want[col].isna().to_numpy() & got[col].isna().to_numpy())
                self.assertTrue(same.all(), f"rank {rank} {col}: {a[~same][:3]} vs {b[~same][:3]}")

    def test_parsed_two_ranks(self):
        hta_peer(self)
        h, k = _both(shared("traces/hta/trace_filter"), loaded=False)
        self.assert_same_frames(h, k)
        self.assertEqual(len(k.get_trace(0)), 4810)  # 4855 entries less 44 metadata and the Trace span

    def test_loaded_two_ranks(self):
        hta_peer(self)
        h, k = _both(shared("traces/hta/trace_filter"), loaded=True)
        self.assert_same_frames(h, k)
        self.assertEqual(k.min_ts, h.min_ts)
        self.assertEqual(k.get_iterations(0), [551])  # the last step (552) dropped

    def test_ns_resolution_rounded(self):
        """An ns-float trace (ROCm): HTA's µs rounding, and "end" right after dur."""
        hta_peer(self)
        h, k = _both(shared("traces/hta/amd_trace"), loaded=True)
        self.assert_same_frames(h, k)
        self.assertEqual(list(k.get_trace(0).columns[5:8]), ["ts", "dur", "end"])

    def test_device_wide_sync_stream(self):
        """CUDA writes stream 4294967295 on a device-wide sync: HTA keeps the number."""
        hta_peer(self)
        h, k = _both(shared("traces/hta/critical_path/alexnet"), loaded=True)
        self.assert_same_frames(h, k)
        self.assertEqual(int((k.get_trace(0)["stream"] == 4294967295).sum()), 5)

    def test_parser_config_selects_columns(self):
        hta_peer(self)
        from hta.configs.parser_config import ParserConfig as HtaConfig
        from kineta.hta.configs.parser_config import ParserConfig
        args = lambda cfg: cfg.ARGS_MINIMUM + cfg.ARGS_BANDWIDTH + cfg.ARGS_INPUT_SHAPE + cfg.ARGS_COMMUNICATION[:2]
        h, k = _both(shared("traces/hta/amd_trace"), loaded=False,
                     config=(HtaConfig(args(HtaConfig)), ParserConfig(args(ParserConfig))))
        self.assert_same_frames(h, k)
        self.assertEqual(list(k.get_trace(0).columns[7:]),  # a rounded trace: "end" after dur
                         ["end", "stream", "correlation", "bytes", "memory_bw_gbps", "input_dims", "input_type",
                          "input_strides", "collective_name", "in_msg_nelems", "index_correlation", "iteration"])

    def test_args_of_a_changed_file(self):
        """The args are re-read from the file: one changed since the load is an error that says so."""
        import shutil
        import tempfile
        from kineta import KinetaError
        from kineta.hta.common.trace import Trace
        need = shared("traces/hta/amd_trace")
        hta_peer(self)
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(need, tmp, dirs_exist_ok=True)
            t = Trace(trace_dir=tmp)
            for name in os.listdir(tmp):
                with open(os.path.join(tmp, name), "ab") as f:
                    f.write(b"\n")
            with self.assertRaisesRegex(KinetaError, "has changed since it was loaded"):
                t.parse_traces()

    def test_symbol_table_and_decode(self):
        hta_peer(self)
        h, k = _both(shared("traces/hta/trace_filter"), loaded=False)
        self.assertEqual(sorted(k.symbol_table.get_sym_table()), sorted(h.symbol_table.get_sym_table()))
        ids = k.symbol_table.get_sym_id_map()
        self.assertEqual([k.symbol_table.get_sym_table()[i] for i in ids.values()], list(ids))
        h.decode_symbol_ids()
        k.decode_symbol_ids()
        for col in ("s_name", "s_cat"):
            self.assertEqual(list(k.get_trace(1)[col]), list(h.get_trace(1)[col]))
        for t in (h, k):
            for frame in t.get_all_traces().values():
                frame.drop(columns=["s_name", "s_cat"], inplace=True)
        frame = k.get_trace(0)[["cat"]].copy()
        k.symbol_table.add_symbols_to_trace_df(frame, "cat")
        self.assertEqual(sorted(frame["cat"].unique()), ["cpu_op", "cuda_runtime", "gpu_memcpy", "gpu_memset",
                                                         "kernel", "user_annotation"])

    def test_unknown_rank_raises(self):
        hta_peer(self)
        from kineta.hta.common.trace import Trace
        t = Trace(trace_dir=shared("traces/hta/trace_filter"))
        t.parse_traces()
        with self.assertRaises(ValueError):
            t.get_trace(7)
        self.assertIn("<table>", t._repr_html_())


if __name__ == "__main__":
    unittest.main()
