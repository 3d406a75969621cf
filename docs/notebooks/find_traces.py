"""Where the example notebooks find kineta and the traces they run on.

The traces are the shared test traces (HTA's and TraceLens's own, with the
outputs HTA and TraceLens produced on them): $KINETA_SHARED, else the
`shared` directory beside the source tree.  kineta is the installed package
(pip install), else the source tree's (bindings/python, with `make python`
built).
"""
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("KINETA_SHARED") or REPO.parent / "shared")

try:
    import kineta  # noqa: F401
except ImportError:
    sys.path.insert(0, str(REPO / "bindings" / "python"))


def shared(rel):
    """The path of rel under the shared directory, which must exist."""
    path = SHARED / rel
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: set KINETA_SHARED to the directory holding traces/ and oracle/")
    return str(path)
