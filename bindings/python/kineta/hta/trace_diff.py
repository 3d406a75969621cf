"""HTA's hta.trace_diff: TraceDiff, LabeledTrace and DeviceType, on
kineta's `diff` (HTA's rules and columns)."""
from enum import Enum

from .._trace import Trace, load


class DeviceType(Enum):
    CPU = 1
    GPU = 2
    ALL = 3


class LabeledTrace:
    """HTA's LabeledTrace: a loaded trace (a kineta Trace `t`, or the
    directory `trace_dir`) with a label."""

    def __init__(self, label=None, t=None, trace_dir=None):
        if t is None and trace_dir is None:
            raise ValueError("either a trace object or a valid trace dir must be provided in LabeledTrace")
        self.label = label if label else "t"
        self.t = t if t is not None else load(trace_dir)

    def ranks(self):
        return list(self.t.ranks)

    def iterations(self):
        steps = self.t.run("info")["steps"]
        return sorted(int(s) for s in steps[steps["side"] == "cpu"]["step"].unique())


def _opened(run):
    """(Trace, whether this call opened it) for a path, a Trace or a LabeledTrace."""
    if isinstance(run, LabeledTrace):
        return run.t, False
    if isinstance(run, Trace):
        return run, False
    return load(run), True


class TraceDiff:
    """HTA's hta.trace_diff.TraceDiff: compare_traces and ops_diff on two
    runs (trace directories or files, kineta Traces or LabeledTraces), with
HTA's rules and columns."""

    @staticmethod
    def _frames(control, test, control_rank, test_rank, control_iteration, test_iteration, device_type,
                use_short_name):
        (a, close_a), (b, close_b) = _opened(control), _opened(test)
        device = str(getattr(device_type, "name", device_type) or "ALL").lower()
        frames = a.run("diff", test=b, hta_compat=True, rounded=False, rank=control_rank, test_rank=test_rank,
                       iteration=control_iteration, test_iteration=test_iteration, device=device,
                       short_names=use_short_name)
        for trace, opened in ((a, close_a), (b, close_b)):
            if opened:
                trace.close()
        return frames

    @staticmethod
    def compare_traces(control, test, control_rank=None, test_rank=None, control_iteration=None,
                       test_iteration=None, device_type=DeviceType.ALL, use_short_name=False):
        ops = TraceDiff._frames(control, test, control_rank, test_rank, control_iteration, test_iteration,
                                device_type, use_short_name)["ops"]
        return ops.set_index(ops.columns[0])

    @staticmethod
    def ops_diff(control, test, control_rank=None, test_rank=None, control_iteration=None, test_iteration=None,
                 device_type=DeviceType.ALL):
        changes = TraceDiff._frames(control, test, control_rank, test_rank, control_iteration, test_iteration,
                                    device_type, False)["ops_diff"]
        return {kind: list(changes[changes["change"] == kind]["name"])
                for kind in ("added", "deleted", "increased", "decreased", "unchanged")}
