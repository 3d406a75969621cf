#!/bin/sh
# install_check.sh — `make install` into a scratch prefix works for each
# kind of user: a C program builds against it with pkg-config and runs, the
# CLI and its man page are there, the Python package imports (when
# python3-pandas is present), and `make uninstall` removes it all.  Run by
# tests/test_install.c from the repository root; prints what failed.
set -eu
prefix=$(mktemp -d /tmp/kineta-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "$@" PREFIX="$prefix" >/dev/null; }
mk install

cat > "$prefix/use.c" <<'C'
#include <kineta.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    const char *path = argv[argc - 1];
    if (kt_load(&path, 1, NULL, &t, &fail) != KT_OK) return 1;
    kt_tables *ts = NULL;
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 5;
    if (kt_kernels(t, NULL, &o, &ts) != KT_OK) return 1;
    const kt_table *k = kt_tables_find(ts, "kernels");
    printf("%zu %s\n", kt_table_nrows(k), kt_table_str(k, 0, 1));
    kt_tables_free(ts);
    kt_trace_free(t);
    return 0;
}
C
cat > "$prefix/t.json" <<'J'
{"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 20, "args": {"stream": 7, "correlation": 7}}
]}
J
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -o "$prefix/use" "$prefix/use.c" $(pkg-config --cflags --libs kineta)
out=$(LD_LIBRARY_PATH="$prefix/lib" "$prefix/use" "$prefix/t.json")
[ "$out" = "1 gemm_kernel" ] || { echo "shared: got '$out'"; exit 1; }
# the program records the soname (docs/api.md), which names the installed library
soname=$(readelf -d "$prefix/lib/libkineta.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libkineta.so.1" ] || { echo "soname: got '$soname'"; exit 1; }
readelf -d "$prefix/use" | grep -q 'NEEDED.*\[libkineta\.so\.1\]' || { echo "use does not need libkineta.so.1"; exit 1; }
[ -e "$prefix/lib/$soname" ] || { echo "no $soname installed"; exit 1; }
# shellcheck disable=SC2046
cc -o "$prefix/use-static" "$prefix/use.c" -I"$prefix/include" "$prefix/lib/libkineta.a" \
    $(pkg-config --static --libs-only-l kineta | sed 's/-lkineta//')
[ "$("$prefix/use-static" "$prefix/t.json")" = "1 gemm_kernel" ] || { echo "static link failed"; exit 1; }

"$prefix/bin/kineta" --version | grep -q '^kineta ' || { echo "installed CLI"; exit 1; }
grep -q '^\.SS kernels' "$prefix/share/man/man1/kineta.1" || { echo "man page lacks the kernels command"; exit 1; }
grep -q 'complete -F _kineta kineta' "$prefix/share/bash-completion/completions/kineta" || { echo "completion"; exit 1; }

py=${KINETA_PYTHON:-/usr/bin/python3}
if "$py" -c 'import pandas' 2>/dev/null; then
    names=$(cd "$prefix" && PYTHONPATH="$prefix/lib/python3/dist-packages" "$py" -W ignore -c \
        "import kineta; print(list(kineta.load('t.json').kernels()['kernels']['name']))")
    [ "$names" = "['gemm_kernel']" ] || { echo "python: got $names"; exit 1; }
    version=$(cd "$prefix" && PYTHONPATH="$prefix/lib/python3/dist-packages" "$py" -m kineta --version)
    [ "$version" = "$("$prefix/bin/kineta" --version)" ] || { echo "python -m kineta: got $version"; exit 1; }
fi

mk uninstall
left=$(find "$prefix" -type f ! -name 'use*' ! -name 't.json' | head -5)
[ -z "$left" ] || { echo "left after uninstall: $left"; exit 1; }
echo ok
