"""kineta — PyTorch-profiler (Kineto) GPU trace analysis at memory speed,
with results as pandas DataFrames.

    import kineta
    t = kineta.load("traces/")            # a file, a directory, or a list
    t.temporal()                           # DataFrame
    t.kernels(sort="total", top=20)        # {"kernels": ..., "summary": ...}
    t.events(rank=0)                       # every event, as columns

Every `kineta` command is a method with the command's options as keywords.
HTA's API: `from kineta.hta import TraceAnalysis`.
"""
from ._native import KinetaError
from ._trace import Trace, load

__all__ = ["KinetaError", "Trace", "load"]
__version__ = "0.1.0"
