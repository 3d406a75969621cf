"""What the Python tests share: where the repository, the shared traces and
the CLI are, and how frames are compared with numbers printed elsewhere."""
import math
import os
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
SHARED = os.environ.get("KINETA_SHARED", os.path.join(ROOT, "..", "shared"))
CLI = os.environ.get("KINETA_CLI", os.path.join(ROOT, "build", "kineta"))

# oracle/hta/<dir> → the trace HTA ran on (as tests/oracle.c's fx_hta_trace).
HTA_TRACES = {
    "amd_trace": "traces/hta/amd_trace",
    "cp_alexnet": "traces/hta/critical_path/alexnet",
    "cp_cuda_event_sync": "traces/hta/critical_path/cuda_event_sync",
    "cp_cuda_event_sync_multi_stream": "traces/hta/critical_path/cuda_event_sync_multi_stream",
    "cp_simple_add": "traces/hta/critical_path/simple_add",
    "cupti_profiler": "traces/hta/cupti_profiler",
    "df_index_resolver": "traces/hta/df_index_resolver",
    "execution_trace": "traces/hta/execution_trace/benchmark_simple_add_trace.json.gz",
    "mtia_trace_single_rank": "traces/hta/mtia_trace_single_rank",
    "nccl_parser_config": "traces/hta/nccl_parser_config",
    "negative_queue_length_values_check": "traces/hta/negative_queue_length_values_check",
    "ns_resolution_trace": "traces/hta/ns_resolution_trace",
    "timeline_analysis": "traces/hta/timeline_analysis",
    "trace_diff_control": "traces/hta/trace_diff/control",
    "trace_diff_test": "traces/hta/trace_diff/test",
    "trace_filter_2ranks": "traces/hta/trace_filter",
    "triton_example": "traces/hta/triton_example",
}


def shared(rel):
    return os.path.join(SHARED, rel)


def need_shared(test):
    if not os.path.isdir(os.path.join(SHARED, "traces")):
        raise unittest.SkipTest("../shared not present (a fresh clone): oracle tests skipped")


def close(a, b, atol):
    """Cells equal: both missing (None, NaN or ""), equal strings, or
    numbers within atol (and a relative 1e-9 for large values)."""
    # a CSV cell cannot tell "" from a missing value
    a_missing = a is None or a == "" or (isinstance(a, float) and math.isnan(a))
    b_missing = b is None or b == "" or (isinstance(b, float) and math.isnan(b))
    if a_missing or b_missing:
        return a_missing and b_missing
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return abs(float(a) - float(b)) <= atol + 1e-9 * max(abs(float(a)), abs(float(b)))


_HTA = {}


def hta_peer(test):
    """HTA's own package (../shared/peers/hta) imported beside kineta, or SkipTest naming why."""
    need_shared(test)
    if "error" in _HTA:
        raise unittest.SkipTest(_HTA["error"])
    if "module" not in _HTA:
        path = os.path.join(SHARED, "peers", "hta")
        if not os.path.isdir(os.path.join(path, "hta")):
            _HTA["error"] = "../shared/peers/hta not present"
            raise unittest.SkipTest(_HTA["error"])
        sys.path.insert(0, path)
        try:
            import logging
            import hta
            import hta.common.trace  # noqa: F401 (its dependencies: python3-networkx, -yaml, -ijson, -plotly)
            logging.getLogger("hta").setLevel(logging.ERROR)
            _HTA["module"] = hta
        except ImportError as e:
            _HTA["error"] = f"HTA's dependencies missing ({e})"
            raise unittest.SkipTest(_HTA["error"])
    return _HTA["module"]


_ANALYSES = {}


def analysis_pair(trace_dir):
    """(HTA's TraceAnalysis, kineta.hta's) of a shared trace dir, made once
    for all the test modules (HTA takes seconds to parse)."""
    if trace_dir not in _ANALYSES:
        from hta.trace_analysis import TraceAnalysis as HtaAnalysis
        from kineta.hta.trace_analysis import TraceAnalysis
        _ANALYSES[trace_dir] = HtaAnalysis(trace_dir=shared(trace_dir)), TraceAnalysis(trace_dir=shared(trace_dir))
    return _ANALYSES[trace_dir]
