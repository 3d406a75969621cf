"""HTA's hta.utils.utils helpers a notebook calls.  shorten_name is the C
library's (the one every command's short names use), not a second copy."""
import ctypes as C

import pandas as pd

from ..._native import lib

lib.kt_shorten_name.restype = C.c_char_p
lib.kt_shorten_name.argtypes = [C.c_char_p, C.c_char_p, C.c_size_t]


def shorten_name(name):
    """HTA's short name: template and argument groups removed, the last
    space-separated word kept; memory kernels' names unchanged."""
    raw = name.encode()
    buf = C.create_string_buffer(len(raw) + 1)
    return lib.kt_shorten_name(raw, buf, len(buf)).decode()


def flatten_column_names(df: pd.DataFrame) -> None:
    """Joins a frame's MultiIndex column names with "_" in place, as HTA does."""
    if isinstance(df.columns, pd.MultiIndex):
        df.columns = ["_".join(col).rstrip("_") for col in df.columns]
