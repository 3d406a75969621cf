#!/bin/sh
# pip_install_check.sh — `pip install --no-build-isolation .` from a fresh
# clone of this repository into a venv (Debian's python3-venv, python3-pip,
# python3-setuptools), as the README's Python section says: the package
# imports outside the source tree with the library it built, and
# `python -m kineta` is the CLI.  Run by tests/test_pip_install.c from the
# repository root; prints what failed, or "ok".
set -eu
py=${KINETA_PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d /tmp/kineta-pip.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git clone -q . "$tmp/src"
"$py" -m venv --system-site-packages "$tmp/venv"
# make's own variables are the test run's, not the clone's build
(cd "$tmp/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL KINETA_JOBS="$(nproc)" \
    "$tmp/venv/bin/pip" install -q --no-build-isolation --no-index . >"$tmp/pip.log" 2>&1) ||
    { tail -20 "$tmp/pip.log"; exit 1; }
rm -rf "$tmp/src"  # the installed package stands alone

cat > "$tmp/t.json" <<'J'
{"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 20, "args": {"stream": 7, "correlation": 7}}
]}
J
cd "$tmp"
where=$(env -u KINETA_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" -W ignore -c \
    "import kineta, kineta._native as n; print(n._library_path()); print(list(kineta.load('t.json').kernels()['kernels']['name']))")
case "$where" in
"$tmp/venv/lib/python3"*"/site-packages/kineta/_kineta.so
['gemm_kernel']") ;;
*) echo "import kineta: got '$where'"; exit 1 ;;
esac
out=$(env -u KINETA_LIBRARY "$tmp/venv/bin/python" -m kineta kernels --format csv t.json 2>/dev/null)
echo "$out" | grep -q '^1,gemm_kernel,1,' || { echo "python -m kineta kernels: got '$out'"; exit 1; }
rc=0
env -u KINETA_LIBRARY "$tmp/venv/bin/python" -m kineta kernels --sort time t.json 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "python -m kineta: usage error exit $rc, not 2"; exit 1; }
echo ok
