"""HTA's hta.trace_diff: TraceDiff, LabeledTrace and DeviceType, on
kineta's `diff` (HTA's rules and columns)."""
from . import _figures
from .._trace import Trace, load
from .common.types import DeviceType


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


def _labels(control, test):
    """The runs' names in compare_traces's columns, as HTA names them: a
    LabeledTrace's label, else Control and Test; a test label equal to the
    control's gets "_control_test" appended."""
    names = [run.label if isinstance(run, LabeledTrace) else default
             for run, default in ((control, "Control"), (test, "Test"))]
    if names[0] == names[1]:
        names[1] += "_control_test"
    return names


class TraceDiff:
    """HTA's hta.trace_diff.TraceDiff: compare_traces and ops_diff on two
    runs (trace directories or files, kineta Traces or LabeledTraces), with
HTA's rules and columns."""

    @staticmethod
    def _frames(control, test, control_rank, test_rank, control_iteration, test_iteration, device_type,
                use_short_name):
        (a, close_a), (b, close_b) = _opened(control), _opened(test)
        device = str(getattr(device_type, "name", device_type) or "ALL").lower()
        frames = a.run("diff", test=b, hta_compat=True, rounded=False,
                       ranks=None if control_rank is None else [control_rank], test_rank=test_rank,
                       iteration=control_iteration, test_iteration=test_iteration, device=device,
                       short_names=use_short_name, labels=",".join(_labels(control, test)))
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

    @classmethod
    def visualize_counts_diff(cls, df, show_image=True, export_image_path=None):
        """Grouped bars of each op's counts in both runs and their difference (compare_traces's frame)."""
        _figures.diff_bars(df, "counts", show_image, export_image_path)

    @classmethod
    def visualize_duration_diff(cls, df, show_image=True, export_image_path=None):
        """Grouped bars of each op's total duration in both runs and their difference."""
        _figures.diff_bars(df, "total_duration", show_image, export_image_path)
