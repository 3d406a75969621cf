"""kt_tables → pandas DataFrames, a column at a time.

Int and float columns come across as whole numpy arrays (one C call per
column); a column with nulls becomes float with NaN (int) or keeps NaN
(float), as pandas does for missing numbers.  String columns are read cell
by cell (tables of names are small next to event tables).
"""
import ctypes as C

import numpy as np
import pandas as pd

from ._native import COL_FLOAT, COL_INT, lib


def _numeric(t, col, n, kind):
    dtype, fn = (np.int64, lib.kt_table_ints) if kind == COL_INT else (np.float64, lib.kt_table_floats)
    values = np.empty(n, dtype=dtype)
    nulls = np.empty(n, dtype=np.uint8)
    if n:
        fn(t, col, values.ctypes.data_as(C.c_void_p), nulls.ctypes.data_as(C.c_void_p))
    if kind == COL_INT and nulls.any():
        values = values.astype(np.float64)
        values[nulls.astype(bool)] = np.nan
    return values


def _strings(t, col, n):
    out = np.empty(n, dtype=object)
    for r in range(n):
        out[r] = None if lib.kt_table_is_null(t, r, col) else lib.kt_table_str(t, r, col).decode(errors="replace")
    return out


def table_frame(t, rounded=False):
    """One kt_table → DataFrame with the table's column names and types.

    Float columns keep full precision unless rounded (to the digits the CLI
    prints, which is what HTA's own frames hold); frame.attrs["precision"]
    has each float column's display digits (-1: shortest round trip) and
    frame.attrs["notes"] the table's footnotes (docs/differences.md)."""
    n = lib.kt_table_nrows(t)
    data, precision = {}, {}
    for c in range(lib.kt_table_ncols(t)):
        name = lib.kt_table_col_name(t, c).decode()
        kind = lib.kt_table_col_type(t, c)
        if kind not in (COL_INT, COL_FLOAT):
            data[name] = _strings(t, c, n)
            continue
        data[name] = _numeric(t, c, n, kind)
        if kind == COL_FLOAT:
            precision[name] = lib.kt_table_col_precision(t, c)
            if rounded and precision[name] >= 0:
                data[name] = np.round(data[name], precision[name])
    frame = pd.DataFrame(data, columns=list(data))
    frame.attrs["precision"] = precision
    frame.attrs["notes"] = [lib.kt_table_note(t, i).decode() for i in range(lib.kt_table_nnotes(t))]
    return frame


def tables_frames(ts, rounded=False):
    """kt_tables → {name: DataFrame} in the tables' order."""
    return {lib.kt_table_name(lib.kt_tables_get(ts, i)).decode(): table_frame(lib.kt_tables_get(ts, i), rounded)
            for i in range(lib.kt_tables_count(ts))}
