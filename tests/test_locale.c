/*
 * test_locale.c — the library in a host program that called
 * setlocale(LC_ALL, "de_DE.UTF-8"), whose radix is ',': numbers in
 * machine text are still read and written with '.' (device specs, shape
 * args written back as Python floats, what-if factors).  Skipped where no
 * comma-radix locale is installed (CI generates de_DE.UTF-8).
 */
#include "test.h"
#include "fixture.h"
#include "oracle.h"
#include "analysis/perf/op_args.h"
#include "analysis/structure/critical_path_what_if.h"
#include "model/json_number.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host program's whole locale switched to a comma radix (SKIP when
 * none is installed).                                                     */
static bool comma_locale(void)
{
    if (fx_comma_locale(LC_ALL)) return true;
    kt_test_skip("no locale with a comma radix installed (localedef -i de_DE -f UTF-8 de_DE.UTF-8)");
    return false;
}

/* One GEMM, 1024³ bf16 + bias (2 148 532 224 FLOPs) in 10 µs, against a
 * spec whose rates have decimals: roofline time 2.148532224e9 / 708.5e6 µs. */
TEST(perf_device_spec_reads_decimals_under_a_comma_locale)
{
    static const char *const spec =
        "{\"name\": \"MI300X-ish\", \"mem_bw_gbps\": 5300.5, \"memory_gb\": 192, \"max_achievable_tflops\": "
        "{\"matrix_fp16\": 654.5, \"matrix_bf16\": 708.5, \"matrix_fp32\": 163.5, \"matrix_fp64\": 81.5, "
        "\"vector_fp16\": 163.5, \"vector_bf16\": 163.5, \"vector_fp32\": 81.5, \"vector_fp64\": 40.5}}";
    static const char *const trace =
        "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Some GPU\", \"numSms\": 132}],\n"
        "\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, "
        "\"dur\": 30, \"args\": {\"External id\": 1, "
        "\"Input Dims\": [[1024], [1024, 1024], [1024, 1024], [], []], "
        "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], "
        "\"Input Strides\": [[1], [1024, 1], [1, 1024], [], []], \"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 1005, \"dur\": 5, \"args\": {\"External id\": 1, \"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm_bf16\", \"pid\": 0, \"tid\": 7, \"ts\": 1010, "
        "\"dur\": 10, \"args\": {\"External id\": 1, \"correlation\": 1, \"device\": 0, \"stream\": 7}}\n"
        "]}\n";
    if (!comma_locale()) return;
    char path[] = "/tmp/kineta-test-locale-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, trace, strlen(trace)) == (ssize_t)strlen(trace));
    if (fd >= 0) close(fd);
    kt_trace *t = fx_load_path(path, false);
    CHECK(t != NULL);
    if (!t) return;
    kt_perf_options o = kt_perf_defaults();
    o.device_spec = spec;
    o.tracelens = 1;
    kt_tables *ts = NULL;
    kt_diags *why;
    CHECK_INT(kt_perf(t, NULL, &o, &ts, &why), KT_OK);
    CHECK_STR(fx_why(why), "");
    const kt_table *g = ts ? fx_table(ts, "GEMM") : NULL;
    if (g) CHECK_NEAR(fx_num(g, 0, "Roofline Time (µs)"), 2.148532224e9 / 708.5e6, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
    setlocale(LC_ALL, "C");
}

/* Shape args written back as Python's repr writes floats; numbers read as
 * JSON reads them; what-if factors as written.                            */
TEST(number_text_ignores_a_comma_locale)
{
    if (!comma_locale()) return;
    char b[40];
    kt_py_float(0.1, b, sizeof b);
    CHECK_STR(b, "0.1");
    kt_py_float(2.5e-05, b, sizeof b);
    CHECK_STR(b, "2.5e-05");
    CHECK(kt_c_snprintf(b, sizeof b, "%.3f", 1.5) == 5 && !strcmp(b, "1.500"));
    kt_num v;
    const char *s = "0.125,";
    CHECK(kt_parse_number(s, s + 6, &v) == s + 5 && v.f == 0.125);
    cp_scenario sc[CP_MAX_SCENARIOS];
    size_t n = 0;
    char err[256] = "";
    CHECK_INT(cp_parse_what_if("cpu=0.5", sc, &n, err, sizeof err), KT_OK);
    CHECK_INT(n, 1);
    if (n == 1) CHECK(sc[0].scale[CP_CLASS_CPU] == 0.5);
    setlocale(LC_ALL, "C");
}
