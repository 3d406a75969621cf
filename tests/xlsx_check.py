"""xlsx_check.py KINETA XLSX [RANKS] -- TRACE... — every sheet of the workbook
`kineta perf --xlsx` wrote equals, cell for cell, what kineta prints on its
own for that sheet: `kineta temporal --tracelens` for gpu_timeline, `kineta
perf --tracelens --table SHEET` for the others.  RANKS (e.g. 0,1): the
workbook stacks those ranks' tables under a leading "rank" column, so each
sheet is checked against the per-rank output (`--rank R`), matched by
column name, ranks in order.  Strings as text, empty cells as nulls,
numbers as doubles: the CSV carries every digit, libxlsxwriter writes 16
significant digits ("%.16G"), so the CSV's double is compared after the
same rounding.  Prints each difference; exit 1 when any (run by
tests/test_perf_xlsx.c)."""
import csv
import io
import subprocess
import sys

import openpyxl


def same(want, got):
    if want == "":
        return got is None or got == ""
    if isinstance(got, str):
        return got == want
    if isinstance(got, bool) or got is None:
        return False
    return float("%.16G" % float(want)) == got


def printed(kineta, sheet, extra, traces):
    """kineta's own CSV of sheet: header and rows ([], [] when absent)."""
    cmd = ["temporal", "--tracelens"] if sheet == "gpu_timeline" else ["perf", "--tracelens", "--table", sheet]
    run = subprocess.run([kineta, cmd[0], "-q", "--format", "csv"] + cmd[1:] + extra + traces,
                         capture_output=True, text=True)
    rows = list(csv.reader(io.StringIO(run.stdout))) if run.returncode == 0 else []
    return (rows[0], rows[1:]) if rows else ([], [])


def expected(kineta, sheet, ranks, traces):
    """Rows of dicts (column name -> CSV text) the sheet should hold."""
    if not ranks:
        head, rows = printed(kineta, sheet, [], traces)
        return head, [dict(zip(head, r)) for r in rows]
    out = []
    for r in ranks.split(","):
        head, rows = printed(kineta, sheet, ["--file-ranks", ranks, "--rank", r], traces)
        out += [dict(zip(head, row), rank=r) for row in rows]
    return None, out


def check_sheet(book, sheet, kineta, ranks, traces):
    got = [list(r) for r in book[sheet].iter_rows(values_only=True)]
    head, want = expected(kineta, sheet, ranks, traces)
    bad = 0
    if head is not None and list(got[0]) != head:
        print(f"{sheet}: header {got[0]}, CSV {head}")
        return 1
    if ranks and got[0][0] != "rank":
        print(f"{sheet}: no leading rank column")
        return 1
    if len(want) != len(got) - 1:
        print(f"{sheet}: {len(got) - 1} rows in the workbook, {len(want)} in the CSV")
        return 1
    for i, (w, g) in enumerate(zip(want, got[1:])):
        for name, gc in zip(got[0], g):
            if not same(w.get(name, ""), gc):
                print(f"{sheet} row {i} {name}: workbook {gc!r}, CSV {w.get(name, '')!r}")
                bad += 1
    return bad


def main(kineta, path, ranks, traces):
    book = openpyxl.load_workbook(path, read_only=True)
    names = book.sheetnames
    bad = 0 if names[0] == "gpu_timeline" and "kernel_summary" in names else 1
    if bad:
        print(f"sheets {names}: gpu_timeline first and kernel_summary expected")
    for sheet in names:
        bad += check_sheet(book, sheet, kineta, ranks, traces)
    return 1 if bad else 0


if __name__ == "__main__":
    sep = sys.argv.index("--")
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3] if sep > 3 else "", sys.argv[sep + 1:]))
