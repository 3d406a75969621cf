"""ctypes declarations of libkineta's public API (lib/kineta.h).

ctypes rather than a CPython extension: nothing to compile against Python's
headers (any python3 with the shared library works, no python3-dev), and
the calls that matter for speed move whole columns at once
(kt_table_floats, kt_trace_events), so the per-call cost of ctypes is paid
per column, not per value.
"""
import ctypes as C
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _library_path():
    candidates = [
        os.environ.get("KINETA_LIBRARY"),
        os.path.join(_HERE, "_kineta.so"),  # installed package (make install, pip install)
        os.path.join(_HERE, "..", "..", "..", "build", "libkineta-py.so"),  # the source tree
    ]
    for path in candidates:
        if path and os.path.exists(path):
            return os.path.abspath(path)
    raise ImportError("kineta: libkineta-py.so not found; run `make python` in the source tree, "
                      "`pip install .` there, or set KINETA_LIBRARY")


lib = C.CDLL(_library_path())

STATUS = {0: "ok", 1: "analysis error", 2: "usage error", 3: "input unreadable", 4: "out of memory"}
DIAG_LEVELS = ("info", "warning", "error")
COL_INT, COL_FLOAT, COL_STR = 0, 1, 2


class Diag(C.Structure):
    _fields_ = [("level", C.c_int), ("file", C.c_char_p), ("offset", C.c_int64), ("message", C.c_char_p)]


class _Sized(C.Structure):
    """A struct the library reads that starts with its own size, which it
    trusts to know which fields the caller has (docs/api.md)."""

    def __init__(self, **fields):
        super().__init__(size=C.sizeof(type(self)), **fields)


class LoadOptions(_Sized):
    _fields_ = [("size", C.c_size_t), ("jobs", C.c_int), ("hta_compat", C.c_int), ("ranks", C.POINTER(C.c_int)),
                ("progress", C.c_void_p), ("progress_user", C.c_void_p), ("cache_dir", C.c_char_p),
                ("nranks", C.c_size_t), ("exclude", C.c_void_p), ("nexclude", C.c_size_t)]


class EventColumns(_Sized):
    _fields_ = [("size", C.c_size_t), ("ts", C.c_void_p), ("dur", C.c_void_p), ("name", C.c_void_p), ("cat", C.c_void_p),
                ("ph", C.c_void_p), ("kind", C.c_void_p), ("pid", C.c_void_p), ("tid", C.c_void_p),
                ("stream", C.c_void_p), ("correlation", C.c_void_p), ("external_id", C.c_void_p)]


class PerfCompareOptions(_Sized):
    _fields_ = [("size", C.c_size_t), ("base_name", C.c_char_p), ("test_name", C.c_char_p),
                ("device_spec", C.c_char_p)]


class RankSel(C.Structure):
    _fields_ = [("ranks", C.POINTER(C.c_int)), ("nranks", C.c_size_t)]


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


P = C.c_void_p
_proto("kt_status_str", C.c_char_p, C.c_int)
_proto("kt_load", C.c_int, C.POINTER(C.c_char_p), C.c_size_t, C.POINTER(LoadOptions), C.POINTER(P), C.POINTER(P))
_proto("kt_trace_free", None, P)
_proto("kt_trace_diags", P, P)
_proto("kt_diags_count", C.c_size_t, P)
_proto("kt_diags_get", C.POINTER(Diag), P, C.c_size_t)
_proto("kt_diags_free", None, P)
_proto("kt_tables_count", C.c_size_t, P)
_proto("kt_tables_get", P, P, C.c_size_t)
_proto("kt_tables_free", None, P)
_proto("kt_table_name", C.c_char_p, P)
_proto("kt_table_ncols", C.c_size_t, P)
_proto("kt_table_nrows", C.c_size_t, P)
_proto("kt_table_col_name", C.c_char_p, P, C.c_size_t)
_proto("kt_table_col_type", C.c_int, P, C.c_size_t)
_proto("kt_table_col_precision", C.c_int, P, C.c_size_t)
_proto("kt_table_is_null", C.c_int, P, C.c_size_t, C.c_size_t)
_proto("kt_table_str", C.c_char_p, P, C.c_size_t, C.c_size_t)
_proto("kt_table_ints", C.c_int, P, C.c_size_t, P, P)
_proto("kt_table_floats", C.c_int, P, C.c_size_t, P, P)
_proto("kt_table_nnotes", C.c_size_t, P)
_proto("kt_table_note", C.c_char_p, P, C.c_size_t)
_proto("kt_trace_nranks", C.c_size_t, P)
_proto("kt_trace_rank", C.c_int, P, C.c_size_t)
_proto("kt_trace_rank_file", C.c_char_p, P, C.c_size_t)
_proto("kt_trace_hta_compat", C.c_int, P)
_proto("kt_trace_nevents", C.c_size_t, P, C.c_size_t)
_proto("kt_trace_nstrings", C.c_size_t, P)
_proto("kt_trace_string", C.c_char_p, P, C.c_uint32)
_proto("kt_trace_events", C.c_int, P, C.c_size_t, C.POINTER(EventColumns))
_proto("kt_event_kind_name", C.c_char_p, C.c_uint)
_proto("kt_perf_compare", C.c_int, P, P, C.POINTER(RankSel), C.POINTER(PerfCompareOptions), C.POINTER(P),
       C.POINTER(P))
_proto("kt_perf_compare_workbook", C.c_int, P, P, C.POINTER(RankSel), C.POINTER(PerfCompareOptions), C.c_char_p,
       C.POINTER(P), C.POINTER(P))
_proto("kt_cli_ncommands", C.c_size_t)
_proto("kt_cli_command_name", C.c_char_p, C.c_size_t)
_proto("kt_cli_command_summary", C.c_char_p, C.c_size_t)
_proto("kt_cli_command_is_pair", C.c_int, C.c_size_t)
_proto("kt_cli_command_description", C.c_char_p, C.c_size_t)
_proto("kt_cli_command_option", C.c_char_p, C.c_size_t, C.c_size_t, C.POINTER(C.c_char_p), C.POINTER(C.c_char_p))
_proto("kt_cli_main", C.c_int, C.c_int, C.POINTER(C.c_char_p))
_proto("kt_cli_run", C.c_int, P, P, C.c_char_p, C.POINTER(C.c_char_p), C.POINTER(C.c_char_p), C.c_size_t,
       C.POINTER(C.c_int), C.c_size_t, C.c_char_p, C.c_int, C.c_int, C.POINTER(P), C.c_char_p, C.c_size_t)


class KinetaError(Exception):
    """A libkineta call failed: .status is the kt_status code, .diagnostics
    the loader's messages (list of (level, file, offset, message))."""

    def __init__(self, status, message, diagnostics=()):
        super().__init__(message)
        self.status = status
        self.diagnostics = list(diagnostics)


def diags_list(d):
    """kt_diags → [(level, file, offset, message)]."""
    out = []
    for i in range(lib.kt_diags_count(d)):
        g = lib.kt_diags_get(d, i).contents
        out.append((DIAG_LEVELS[g.level], g.file.decode() if g.file else None, g.offset,
                    g.message.decode(errors="replace")))
    return out


def status_text(status):
    return lib.kt_status_str(status).decode()
