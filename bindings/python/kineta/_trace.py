"""Trace: a loaded set of rank files, and every kineta command as a method.

Methods are made from the CLI's own command list (kt_cli_ncommands), so
`t.kernels(sort="total", top=20)` runs `kineta kernels --sort total --top 20`
on the loaded trace and returns its tables: one DataFrame when the command
prints one table, else a dict of DataFrames by table name.  Each method's
docstring lists the command's options from the same table `--help` prints.
"""
import ctypes as C
import json
import os
import warnings

import numpy as np
import pandas as pd

from . import _frames
from ._native import (EventColumns, KinetaError, LoadOptions, PerfCompareOptions, RankSel, diags_list, lib,
                      status_text)


def _as_paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


def _option_pairs(options):
    """Python keywords → CLI option names and values (True = flag)."""
    names, values = [], []
    for key, value in options.items():
        if value is None or value is False:
            continue
        for one in value if isinstance(value, (list, tuple)) else [value]:  # repeatable options
            names.append(key.replace("_", "-").encode())
            values.append(None if one is True else str(one).encode())
    return names, values


def _ranges(ranks):
    """"0-3, 5, 7-9", as the CLI names the ranks there are."""
    ranks, parts = sorted(ranks), []
    for r in ranks:
        if parts and r == parts[-1][1] + 1:
            parts[-1][1] = r
        else:
            parts.append([r, r])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in parts) or "none"


def _check_ranks(command, wanted, there):
    """KinetaError (status 1, as the CLI's exit 1) for a rank not in there."""
    for r in wanted:
        if r not in there:
            raise KinetaError(1, f"kineta {command}: no rank {r} in these traces; ranks: {_ranges(there)}")


class Trace:
    """Traces loaded by kineta.load(); free with close() or a with-block.
    When load() selected ranks, every method sees those ranks only."""

    def __init__(self, handle, diagnostics):
        self._t = C.c_void_p(handle)
        self.diagnostics = diagnostics
        self._strings = None
        self._selected = None

    def _select(self, ranks):
        """Keep these ranks only (load's ranks=); closes the trace and raises
        when one is not there."""
        try:
            _check_ranks("load", ranks, self._loaded_ranks())
        except KinetaError:
            self.close()
            raise
        self._selected = sorted(set(ranks))

    def close(self):
        if self._t:
            lib.kt_trace_free(self._t)
            self._t = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._t:
            raise ValueError("kineta: the trace was closed")
        return self._t

    def _loaded_ranks(self):
        t = self._handle()
        return [lib.kt_trace_rank(t, i) for i in range(lib.kt_trace_nranks(t))]

    @property
    def ranks(self):
        """The loaded (or, with load(ranks=...), the selected) ranks, in order."""
        loaded = self._loaded_ranks()
        return loaded if self._selected is None else [r for r in loaded if r in self._selected]

    @property
    def files(self):
        t, ranks = self._handle(), self.ranks
        return {r: lib.kt_trace_rank_file(t, i).decode() for i, r in enumerate(self._loaded_ranks()) if r in ranks}

    def _run_ranks(self, command, ranks):
        """The ranks a command runs on: those asked for, within the selection."""
        if isinstance(ranks, int):
            ranks = [ranks]
        ranks = list(ranks or [])
        if self._selected is None:
            return ranks
        _check_ranks(command, ranks, self._selected)
        return ranks or list(self._selected)

    def run(self, command, ranks=None, out=None, verbose=True, rounded=False, test=None, hta_compat=None,
            **options):
        """Run `kineta COMMAND` with options as keywords; returns {table: DataFrame}.

        ranks: a rank or list of ranks (default all); out: the output
        directory of commands that write files; verbose: full kernel names;
        rounded: floats rounded to the digits the CLI prints; test: the
        second run of a command that compares two (diff): a Trace or a path
        to load (as this trace was, for this call); hta_compat:
        HTA's rules (default: as the trace was loaded)."""
        if test is not None and not isinstance(test, Trace):
            with load(test, hta_compat=bool(lib.kt_trace_hta_compat(self._handle()))) as other:
                return self.run(command, ranks, out, verbose, rounded, other, hta_compat, **options)
        names, values = _option_pairs(options)
        n = len(names)
        name_arr = (C.c_char_p * max(n, 1))(*names)
        value_arr = (C.c_char_p * max(n, 1))(*values)
        ranks = self._run_ranks(command, ranks)
        rank_arr = (C.c_int * max(len(ranks), 1))(*ranks)
        tables = C.c_void_p()
        other = test._handle() if test is not None else None
        message = C.create_string_buffer(1 << 16)
        status = lib.kt_cli_run(self._handle(), other, command.encode(), name_arr, value_arr, n, rank_arr, len(ranks),
                                os.fsencode(out) if out is not None else None, int(bool(verbose)),
                                -1 if hta_compat is None else int(bool(hta_compat)), C.byref(tables),
                                message, len(message))
        if status != 0:
            said = message.value.decode(errors="replace").strip()
            raise KinetaError(status, said or f"kineta {command}: {status_text(status)}")
        try:
            return _frames.tables_frames(tables, rounded)
        finally:
            lib.kt_tables_free(tables)

    def replay_ir(self, ranks=None, **options):
        """`kineta replay`'s IR (keywords op=, top=, group=, device_spec= (a
        TraceLens arch JSON file, for top=) as its options):
        a list with one dict per op, its replay_ops columns plus "args"
        (the recorded ATen arguments: kind, type, dims, strides, value) and
        "kernels" (the GPU work it launched, mean µs per call), as
        replay_ir.json holds them."""
        frames = self.run("replay", ranks=ranks, **options)
        ops = [{k: _plain(v) for k, v in row.items()} for row in frames["replay_ops"].to_dict("records")]
        by_id = {op["id"]: op for op in ops}
        for op in ops:
            op["args"], op["kernels"] = [], []
        for row in frames["replay_args"].to_dict("records"):
            arg = {k: _plain(v) for k, v in row.items() if k != "id"}
            arg["dims"] = json.loads(arg["dims"]) if arg["dims"] else None
            arg["strides"] = json.loads(arg["strides"]) if arg["strides"] else None
            by_id[row["id"]]["args"].append(arg)
        for row in frames["replay_kernels"].to_dict("records"):
            by_id[row["id"]]["kernels"].append({k: _plain(v) for k, v in row.items() if k != "id"})
        return ops

    def compare_perf(self, test, names=("base", "test"), ranks=None, xlsx=None, device_spec=None, rounded=False):
        """`kineta perf --compare`: self's perf sheets (TraceLens's, with
        gpu_timeline) matched row by row with test's; returns {sheet:
        DataFrame} with the keys, status (matched / removed / added) and per
        number "<a>::col", "<b>::col", "col__diff", "col__ratio" (names =
        (a, b)).  xlsx: also write them as a workbook there; device_spec:
        TraceLens's arch JSON text.  docs/perf.md."""
        if isinstance(ranks, int):
            ranks = [ranks]
        ranks = list(ranks or [])
        sel = RankSel((C.c_int * max(len(ranks), 1))(*ranks), len(ranks))
        opt = PerfCompareOptions(base_name=names[0].encode(), test_name=names[1].encode(),
                                 device_spec=device_spec.encode() if device_spec else None)
        tables, diags = C.c_void_p(), C.c_void_p()
        args = (self._handle(), test._handle(), C.byref(sel), C.byref(opt))
        if xlsx is not None:
            status = lib.kt_perf_compare_workbook(*args, os.fspath(xlsx).encode(), C.byref(tables), C.byref(diags))
        else:
            status = lib.kt_perf_compare(*args, C.byref(tables), C.byref(diags))
        reasons = diags_list(diags)
        lib.kt_diags_free(diags)
        if status != 0:
            why = "; ".join(d[3] for d in reasons) or status_text(status)
            raise KinetaError(status, f"kineta perf --compare: {why}", reasons)
        try:
            return _frames.tables_frames(tables, rounded)
        finally:
            lib.kt_tables_free(tables)

    def strings(self):
        """Every string of the trace (names, categories) by id."""
        if self._strings is None:
            t = self._handle()
            self._strings = [lib.kt_trace_string(t, i).decode(errors="replace") for i in range(lib.kt_trace_nstrings(t))]
        return self._strings

    def _position(self, rank):
        ranks = self.ranks
        if rank is None:
            if len(ranks) != 1:
                raise ValueError(f"kineta: several ranks loaded ({ranks}); say which")
            return 0
        if rank not in ranks:
            raise ValueError(f"kineta: rank {rank} is not loaded (ranks: {ranks})")
        return ranks.index(rank)

    def events(self, rank=None):
        """One rank's events as a DataFrame of the model's columns: ts and dur
        in ns (dur -1: none), name/cat/kind/ph categorical, pid, tid, stream,
        correlation, external_id (-1: none)."""
        pos = self._loaded_ranks().index(self.ranks[self._position(rank)])
        n = lib.kt_trace_nevents(self._handle(), pos)
        cols = {"ts": np.int64, "dur": np.int64, "name": np.uint32, "cat": np.uint32, "ph": np.uint8,
                "kind": np.uint8, "pid": np.int64, "tid": np.int64, "stream": np.int32,
                "correlation": np.int64, "external_id": np.int64}
        arrays = {k: np.empty(n, dtype=d) for k, d in cols.items()}
        dst = EventColumns(**{k: a.ctypes.data_as(C.c_void_p) for k, a in arrays.items()})
        status = lib.kt_trace_events(self._handle(), pos, C.byref(dst))
        if status != 0:
            raise KinetaError(status, f"kineta: events: {status_text(status)}")
        strings = self.strings()
        for key in ("name", "cat"):
            codes = arrays[key].astype(np.int64)
            codes[arrays[key] == np.uint32(0xFFFFFFFF)] = -1
            arrays[key] = pd.Categorical.from_codes(codes, categories=strings)
        kinds, k = [], 0
        while lib.kt_event_kind_name(k):
            kinds.append(lib.kt_event_kind_name(k).decode())
            k += 1
        arrays["kind"] = pd.Categorical.from_codes(arrays["kind"].astype(np.int16), categories=kinds)
        phs = np.unique(arrays["ph"])
        arrays["ph"] = pd.Categorical.from_codes(np.searchsorted(phs, arrays["ph"]).astype(np.int16),
                                                 categories=[chr(c) for c in phs])
        return pd.DataFrame(arrays, columns=list(cols))


def _options_doc(i):
    """The command's options as keywords, with the help text `--help` prints."""
    lines, j = [], 0
    arg, text = C.c_char_p(), C.c_char_p()
    while (name := lib.kt_cli_command_option(i, j, C.byref(arg), C.byref(text))) is not None:
        key = name.decode().replace("-", "_") + (f"={arg.value.decode()!r}" if arg.value else "=True")
        lines.append(f"    {key:<24} {text.value.decode() if text.value else ''}")
        j += 1
    return "\n".join(lines) or "    (none)"


def _plain(v):
    """A frame cell as JSON would hold it: Python numbers, NaN as None."""
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if np.isnan(v) else float(v)
    return v


def _command_method(i):
    command = lib.kt_cli_command_name(i).decode()
    pair = lib.kt_cli_command_is_pair(i)

    def method(self, ranks=None, out=None, verbose=True, rounded=False, **options):
        frames = self.run(command, ranks=ranks, out=out, verbose=verbose, rounded=rounded, **options)
        return next(iter(frames.values())) if len(frames) == 1 else frames

    def pair_method(self, test, ranks=None, out=None, verbose=True, rounded=False, **options):
        frames = self.run(command, ranks=ranks, out=out, verbose=verbose, rounded=rounded, test=test, **options)
        return next(iter(frames.values())) if len(frames) == 1 else frames

    if pair:
        method = pair_method
    description = lib.kt_cli_command_description(i)
    method.__name__ = command.replace("-", "_")
    method.__doc__ = (f"`kineta {command}`: {lib.kt_cli_command_summary(i).decode()}.\n\n"
                      + (f"{description.decode()}\n\n" if description else "")
                      + ("self is the control run; test the other: a Trace or a path to load.\n\n" if pair else "")
                      + "Keywords (the command's options, underscores for dashes, True for a flag):\n"
                      + _options_doc(i)
                      + "\n\nAnd ranks (a rank or a list; default all), out (the output file or directory),"
                      " verbose, rounded (see Trace.run).  Returns a DataFrame, or a dict of DataFrames by"
                      " table name when the command has several tables.")
    return method


for _i in range(lib.kt_cli_ncommands()):
    setattr(Trace, lib.kt_cli_command_name(_i).decode().replace("-", "_"), _command_method(_i))


def load(paths, jobs=0, hta_compat=False, ranks=None, file_ranks=None, cache_dir=None):
    """Load trace files or directories (every *.json / *.json.gz in them).

    ranks: the ranks to keep (default all; KinetaError naming the ranks
    there are when one is not); every file is still read to learn its rank.
    file_ranks: the rank of each path, for files that do not say.  cache_dir:
    keep each file's parsed model there and map it on later loads
    (docs/cache.md; the CLI's --cache=DIR).  Loader
    diagnostics become Python warnings; a failed load raises KinetaError
    carrying kt_status and the diagnostics."""
    paths = _as_paths(paths)
    arr = (C.c_char_p * len(paths))(*[p.encode() for p in paths])
    rank_arr = (C.c_int * len(paths))(*file_ranks) if file_ranks is not None else None
    opt = LoadOptions(jobs=jobs, hta_compat=int(bool(hta_compat)),
                      ranks=C.cast(rank_arr, C.POINTER(C.c_int)) if rank_arr is not None else None,
                      cache_dir=os.fsencode(cache_dir) if cache_dir is not None else None)
    handle, failure = C.c_void_p(), C.c_void_p()
    status = lib.kt_load(arr, len(paths), C.byref(opt), C.byref(handle), C.byref(failure))
    if status != 0:
        diags = diags_list(failure) if failure else []
        lib.kt_diags_free(failure)
        detail = "; ".join(m for _, _, _, m in diags)
        raise KinetaError(status, f"kineta: cannot load {', '.join(paths)}: {status_text(status)}"
                          + (f" ({detail})" if detail else ""), diags)
    diags = diags_list(lib.kt_trace_diags(handle))
    for level, file, offset, message in diags:
        if level != "info":
            where = f"{file}: byte {offset}: " if file and offset >= 0 else f"{file}: " if file else ""
            warnings.warn(f"kineta: {where}{message}", stacklevel=2)
    trace = Trace(handle.value, diags)
    if ranks is not None:
        trace._select([ranks] if isinstance(ranks, int) else ranks)
    return trace
