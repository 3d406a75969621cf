"""HTA's args columns of a trace frame (ParserConfig's args: "bytes",
"Input Dims", "Collective name", ...), from the JSON text of each value
(kt_trace_arg_texts: one C call for every row and key), converted a
column at a time: numbers by numpy, other values decoded once per distinct
text.  A row without the arg takes the spec's default, and the column gets
the dtype pandas infers for HTA's values (ints downcast as HTA does)."""
import ctypes as C
import json

import numpy as np
import pandas as pd

from ..._native import KinetaError, diags_list, lib, status_text
from ..configs.parser_config import ValueType

lib.kt_trace_arg_texts.restype = C.c_int
lib.kt_trace_arg_texts.argtypes = [C.c_void_p, C.c_size_t, C.POINTER(C.c_char_p), C.c_size_t, C.c_void_p,
                                   C.c_size_t, C.POINTER(C.c_void_p), C.POINTER(C.c_size_t), C.POINTER(C.c_void_p)]
lib.kt_arg_texts_free.restype = None
lib.kt_arg_texts_free.argtypes = [C.c_void_p]
lib.kt_diags_free.argtypes = [C.c_void_p]


def arg_texts(kt, pos, keys, rows):
    """[len(rows), len(keys)] object array of each value's JSON text (b"" when absent)."""
    key_arr = (C.c_char_p * max(len(keys), 1))(*[k.encode() for k in keys])
    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    out, size, diags = C.c_void_p(), C.c_size_t(), C.c_void_p()
    status = lib.kt_trace_arg_texts(kt._handle(), pos, key_arr, len(keys), rows.ctypes.data_as(C.c_void_p),
                                    len(rows), C.byref(out), C.byref(size), C.byref(diags))
    if status != 0:
        found = diags_list(diags) if diags else []
        lib.kt_diags_free(diags)
        raise KinetaError(status, f"kineta: args: {status_text(status)}: " + "; ".join(m for *_, m in found), found)
    try:
        text = C.string_at(out, size.value) if size.value else b""
    finally:
        lib.kt_arg_texts_free(out)
    fields = text.split(b"\0")[:-1] if text else []
    return np.array(fields, dtype=object).reshape(len(rows), len(keys))


def _filled(n, default):
    """n objects, each the default (which may be a list: not spread out)."""
    values = np.empty(n, dtype=object)
    values.fill(default)
    return values


def _as_hta_column(values):
    """pandas' inference over object values, then HTA's integer downcast."""
    column = pd.Series(values).infer_objects().to_numpy()
    return pd.to_numeric(column, downcast="integer") if column.dtype.kind == "i" else column


def _decoded(texts, present, default):
    """Each distinct text decoded once, the column typed as HTA's."""
    if len(texts) and not present.any():  # all default (most args of most rows): typed once
        return np.repeat(_as_hta_column(_filled(1, default)), len(texts))
    values = _filled(len(texts), default)
    if present.any():
        codes, uniques = pd.factorize(texts[present])
        decoded = np.empty(len(uniques), dtype=object)
        decoded[:] = [json.loads(u) for u in uniques]
        values[present] = decoded[codes]
    return _as_hta_column(values)


def arg_column(texts, spec):
    """One arg's column from its texts, as HTA's frame holds it."""
    present = texts != b""
    if spec.value_type is ValueType.Int and present.any():
        try:
            values = np.full(len(texts), spec.default_value, dtype=np.int64)
            values[present] = texts[present].astype(bytes).astype(np.int64)
            return pd.to_numeric(values, downcast="integer")
        except (ValueError, OverflowError):
            pass  # not all whole numbers: decoded below, as HTA's values are
    if spec.value_type is ValueType.Float and not present.all():
        try:
            values = np.full(len(texts), spec.default_value, dtype=np.float64)
            values[present] = texts[present].astype(bytes).astype(np.float64)
            return values
        except ValueError:
            pass
    return _decoded(texts, present, spec.default_value)
