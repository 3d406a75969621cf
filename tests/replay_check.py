"""`kineta replay`'s batch scripts checked against TraceLens's roofline sheets.

usage: replay_check.py [--times] KINETA WORKDIR ORACLE_DIR DEVICE TRACE...

For each trace (its oracle sheets in ORACLE_DIR/<trace name>/): `kineta
replay TRACE -o WORKDIR/<name>`, then WORKDIR/<name>/replay_all.py --check
--device DEVICE (cpu, or meta: the shapes without the arithmetic) run in this one process (torch imported once).  Every row of every roofline
sheet TraceLens wrote must be one replayed op whose rebuilt tensors have
the row's recorded shapes, strides and dtypes, and every op must run or
say it is unsupported in this torch; the replay has as many ops as the
sheets have rows.  Exit status 0 when all holds, else 1 with the reasons.
Last, "N of M ops ran, K unsupported in torch X"; --times also prints each
op's time (one call, no warm-up), slowest first.
"""
import ast
import contextlib
import csv
import io
import json
import os
import runpy
import subprocess
import sys

SHEETS = ["GEMM", "SDPA_fwd", "CONV_fwd", "UnaryElementwise", "BinaryElementwise", "Normalization", "Reduce_fwd"]
# what torch calls the C++ element types a trace records (torch/csrc/profiler)
TORCH_DTYPE = {"float": "float32", "double": "float64", "c10::Half": "float16", "c10::BFloat16": "bfloat16",
               "long int": "int64", "int": "int32", "bool": "bool"}
NOT_TENSORS = ("", "Scalar", "ScalarList", "TensorList", "GenericList")


def oracle_rows(sheet_dir):
    rows = []
    for sheet in SHEETS:
        path = os.path.join(sheet_dir, sheet + ".csv")
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                rows.append((sheet, row["name"], ast.literal_eval(row["Input Dims_first"]),
                             ast.literal_eval(row["Input type_first"]), ast.literal_eval(row["Input Strides_first"])))
    return rows


def run_check(script, device):
    out = io.StringIO()
    argv = sys.argv
    sys.argv = [script, "--check", "--device", device]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv = argv
    return code, json.loads(out.getvalue())


def matches(op, dims, types, strides):
    """Whether op's rebuilt tensors are the recorded ones."""
    built = {t["index"]: t for t in op["inputs"]}
    for i, typ in enumerate(types):
        if typ in NOT_TENSORS:
            continue
        t = built.get(i)
        if not t or t.get("shape") != list(dims[i]) or t.get("stride") != list(strides[i]) \
                or t.get("dtype") != TORCH_DTYPE.get(typ):
            return False
    return len(built) == sum(1 for typ in types if typ not in NOT_TENSORS)


def check_trace(kineta, workdir, oracle_dir, device, trace, times):
    name = os.path.basename(trace).split(".json")[0]
    out = os.path.join(workdir, name)
    os.makedirs(out, exist_ok=True)
    subprocess.run([kineta, "replay", "-q", trace, "-o", out, "--format", "csv"], check=True,
                   stdout=subprocess.DEVNULL)
    code, report = run_check(os.path.join(out, "replay_all.py"), device)
    ops, problems = report["ops"], []
    if code != 0:
        problems.append(f"replay_all.py --check exited {code}")
    for op in ops:
        if op["status"] not in ("ok", "unsupported"):
            problems.append(f"op {op['id']} {op['op']}: {op['status']}: {op.get('message')}")
    rows = oracle_rows(os.path.join(oracle_dir, name))
    free = list(ops)
    for sheet, opname, dims, types, strides in rows:
        hit = next((op for op in free if op["op"] == opname and matches(op, dims, types, strides)), None)
        if hit is None:
            problems.append(f"{sheet} row {opname} {dims} {strides} {types}: no replayed op with those inputs")
        else:
            free.remove(hit)
    if len(ops) != len(rows):
        problems.append(f"{len(ops)} ops replayed, {len(rows)} roofline rows")
    unsupported = sorted({op["op"] for op in ops if op["status"] == "unsupported"})
    ran = [op for op in ops if op["status"] == "ok"]
    print(f"{name}: {len(ops)} ops, {len(ran)} ran on {report['device']} in "
          f"{sum(op['measured_us'] for op in ran) / 1e6:.3f} s, "
          f"unsupported in torch {report['torch']}: {', '.join(unsupported) or 'none'}", file=sys.stderr)
    for op in sorted(ran, key=lambda op: -op["measured_us"]) if times else []:
        print(f"  {op['id']:>3}  {op['op']:<40} {op['measured_us'] / 1e6:9.3f} s", file=sys.stderr)
    return problems, ops, report["torch"]


def main():
    times = sys.argv[1:2] == ["--times"]
    args = sys.argv[1 + times:]
    kineta, workdir, oracle_dir, device, traces = args[0], args[1], args[2], args[3], args[4:]
    problems, ops, version = [], [], ""
    for trace in traces:
        p, o, version = check_trace(kineta, workdir, oracle_dir, device, trace, times)
        problems += p
        ops += o
    print(f"{sum(op['status'] == 'ok' for op in ops)} of {len(ops)} ops ran on {device}, "
          f"{sum(op['status'] == 'unsupported' for op in ops)} unsupported in torch {version}", file=sys.stderr)
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
