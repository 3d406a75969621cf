"""Runs each notebook of docs/notebooks/ end to end in a Jupyter kernel
(nbclient + ipykernel), as a reader would, from the notebook's directory.
The notebooks assert on the frames they produce (against HTA's and
TraceLens's outputs in ../shared/oracle), so a wrong frame fails here.
Prints "SKIP: reason" when a package or ../shared is missing, else one line
per notebook and "ok"; exit 1 on a failed cell.  Run by tests/test_python.c
from the repository root with KINETA_LIBRARY set."""
import glob
import os
import sys
import time

NEEDED = {"nbclient": "python3-nbclient", "nbformat": "python3-nbformat", "ipykernel": "python3-ipykernel",
          "plotly": "python3-plotly", "pandas": "python3-pandas"}


def main():
    missing = [deb for mod, deb in NEEDED.items() if not _importable(mod)]
    if missing:
        print(f"SKIP: the notebooks need {' '.join(missing)} (apt-get install {' '.join(missing)})")
        return 0
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    shared = os.environ.get("KINETA_SHARED") or os.path.join(root, "..", "shared")
    if not os.path.isdir(os.path.join(shared, "traces")):
        print("SKIP: ../shared not present: the notebooks run on its traces")
        return 0
    import nbclient
    import nbformat

    os.environ["PYTHONPATH"] = os.path.join(root, "bindings", "python")  # the kernel's
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger note on every start
    failed = 0
    for path in sorted(glob.glob(os.path.join(root, "docs", "notebooks", "*.ipynb"))):
        book = nbformat.read(path, as_version=4)
        start = time.monotonic()
        try:
            nbclient.NotebookClient(book, timeout=120, kernel_name="python3",
                                    resources={"metadata": {"path": os.path.dirname(path)}}).execute()
            print(f"{os.path.basename(path)}: {len(book.cells)} cells in {time.monotonic() - start:.1f} s")
        except nbclient.exceptions.CellExecutionError as e:
            print(f"{os.path.basename(path)}: {e}")
            failed += 1
    if not failed:
        print("ok")
    return 1 if failed else 0


def _importable(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
