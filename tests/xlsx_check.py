"""xlsx_check.py KINETA TRACE XLSX — every sheet of the workbook `kineta perf
--xlsx` wrote equals `kineta perf --tracelens --format csv --table SHEET`
cell for cell: the header, strings as text, empty cells as nulls, numbers
as doubles.  The CSV carries every digit; libxlsxwriter writes a number
with 16 significant digits ("%.16G"), so the CSV's double is compared
after the same rounding: equal to the last digit the workbook can hold.  Prints
each difference; exit 1 when any (run by tests/test_perf_xlsx.c)."""
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


def main(kineta, trace, path):
    book = openpyxl.load_workbook(path, read_only=True)
    bad = 0
    for sheet in book.sheetnames:
        out = subprocess.run([kineta, "perf", "-q", "--tracelens", "--format", "csv", "--table", sheet, trace],
                             check=True, capture_output=True, text=True).stdout
        want = list(csv.reader(io.StringIO(out)))
        got = [list(r) for r in book[sheet].iter_rows(values_only=True)]
        if len(want) != len(got):
            print(f"{sheet}: {len(got)} rows in the workbook, {len(want)} in the CSV")
            bad += 1
            continue
        for i, (w, g) in enumerate(zip(want, got)):
            if len(w) != len(g):
                print(f"{sheet} row {i}: {len(g)} cells, CSV {len(w)}")
                bad += 1
                continue
            for j, (wc, gc) in enumerate(zip(w, g)):
                if not same(wc, gc):
                    print(f"{sheet} row {i} col {j}: workbook {gc!r}, CSV {wc!r}")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
