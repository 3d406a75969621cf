/*
 * test_read_xplane.c — JAX/XLA XSpace protobufs into the model: a small
 * hand-encoded profile (exact names, devices, streams, ps→ns times,
 * correlation), the legacy shared profile against TraceLens's report of
 * it, and damaged bytes (cut short, huge varints, bad lengths).
 */
#include "test.h"
#include "fixture.h"
#include "read_check.h"
#include "model/index.h"
#include "model/model_build.h"

#include <stdio.h>
#include <stdlib.h>

/* fuzz/seeds/small.xplane.pb: GPU 1's "Stream #17(Kernel)" with gemm_fusion
 * (line at 5000 ns, offset 1500 ps, 2000 ps, correlation 42) and MemcpyD2D
 * (4000 ps, 999 ps, 43); an "XLA Ops" line; the host's thread 321 with
 * hipModuleLaunchKernel (correlation 42) and PjitFunction(f).              */
static const char SMALL_HEX[] =
    "0aa6010801120d2f6465766963653a4750553a311a390811121253747265616d20233137284b65726e656c29188827220e080110dc0b18d00f"
    "22040807182a220e080210a01f18e70722040807182b1a1808631207584c41204f70731888272208080110dc0b18d00f22130801120f0801"
    "120b67656d6d5f667573696f6e22110802120d080212094d656d6370794432442a16080712120807120e636f7272656c6174696f6e5f6964"
    "0a8501080212092f686f73743a4350551a2608c1021206707974686f6e18a01f220d0805106418f40322040807182a22070806100018b817"
    "221d08051219080512156869704d6f64756c654c61756e63684b65726e656c2217080612130806120f506a697446756e6374696f6e286629"
    "2a16080712120807120e636f7272656c6174696f6e5f69642205686f737431";

static unsigned char *unhex(const char *h, size_t *n)
{
    *n = strlen(h) / 2;
    unsigned char *b = malloc(*n);
    for (size_t i = 0; b && i < *n; i++) sscanf(h + 2 * i, "%2hhx", &b[i]);
    return b;
}

static kt_trace *load_bytes(const void *b, size_t n, kt_status *st, kt_diags **fail)
{
    kt_trace *t = NULL;
    *st = kt_load_buffer("small.xplane.pb", b, n, NULL, &t, fail);
    return t;
}

TEST(xplane_small_profile_exact)
{
    size_t n;
    unsigned char *b = unhex(SMALL_HEX, &n);
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_bytes(b, n, &st, &fail);
    CHECK_INT(st, KT_OK);
    kt_diags_free(fail);
    if (t) {
        const kt_rank *r = t->ranks[0];
        int64_t total;
        CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 1); /* the XLA Ops line is derived: not read */
        CHECK_INT(total, 2); /* 5001.5 .. 5003.5 ns floored at both ends */
        CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &total), 1);
        CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 1);
        CHECK_INT(rd_count_kind(r, KT_K_USER_ANNOTATION, &total), 1);
        CHECK_INT(total, 3);
        for (uint32_t i = 0; i < r->ev.n; i++)
            if (r->ev.kind[i] == KT_K_KERNEL) {
                CHECK_STR(kt_strtab_get(t->strs, r->ev.name[i]), "gemm_fusion");
                CHECK_INT(r->ev.ts[i], 5001);
                CHECK_INT(kt_event_pid(r, i), 1);
                CHECK_INT(kt_ev_stream(&r->ev, i), 17);
                CHECK_INT(kt_event_corr(r, i), 42);
            }
        CHECK_INT(r->by_ph['s'], 1); /* the launch reaches its kernel */
        char buf[32];
        CHECK_STR(kt_rank_source(r, "kineta_format", buf, sizeof buf), "XLA XSpace protobuf");
        kt_trace_free(t);
    }
    free(b);
}

/* Every prefix, and bytes with a huge varint or a length past the end
 * spliced in: a status, never a crash; a prefix says it is cut short. */
TEST(xplane_damaged_bytes)
{
    size_t n;
    unsigned char *b = unhex(SMALL_HEX, &n);
    for (size_t cut = 1; b && cut < n; cut++) {
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load_bytes(b, cut, &st, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    for (size_t at = 1; b && at + 11 < n; at += 5) {
        unsigned char *c = malloc(n);
        memcpy(c, b, n);
        memset(c + at, 0xff, 11); /* a varint of more than 10 bytes */
        if (at % 2) c[at + 10] = 0x7f;
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load_bytes(c, n, &st, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        kt_trace_free(t);
        kt_diags_free(fail);
        free(c);
    }
    free(b);
}

/* The legacy profile's path into pb, and from TraceLens's
 * kernel_launchers.csv of it (Python), the kernels whose row passes the
 * Python condition `where` (on row x): their count and summed time (ns;
 * TraceLens's µs have three decimals).  False: skip.                    */
static bool legacy_tracelens(char *pb, size_t cap, const char *where, long long v[2])
{
    const char *dir = kt_test_shared_path("traces/other/jax");
    if (!dir) {
        kt_test_skip("../shared/traces/other/jax absent");
        return false;
    }
    char cmd[2048];
    snprintf(pb, cap, "%s/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", dir);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import csv,sys; r=[x for x in csv.DictReader(open(sys.argv[1])) if %s]; "
             "print(sum(int(x['direct_kernel_count']) for x in r), round(sum(float(x['total_direct_kernel_time']) for x in r)*1000))\" "
             "'%s/jax_conv_minimal_perf_report_csvs/kernel_launchers.csv'",
             where, dir);
    if (rd_command_ints(cmd, v, 2)) return true;
    kt_test_skip("python3 could not read TraceLens's CSV");
    return false;
}

/* TraceLens's kernel_launchers.csv of the legacy profile: its kernels and
 * their summed time. */
TEST(xplane_legacy_sample_matches_tracelens)
{
    char pb[1024];
    long long v[2];
    if (!legacy_tracelens(pb, sizeof pb, "True", v)) return;
    CHECK_INT(v[0], 25);
    kt_status st;
    kt_trace *t = rd_load_path(pb, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (!t) return;
    int64_t total;
    CHECK_INT(rd_count_kind(t->ranks[0], KT_K_KERNEL, &total), v[0]);
    CHECK_INT(total, v[1]);
    kt_trace_free(t);
}

/* The XLA op that launched each kernel (hlo_op, on the GPU event in the
 * legacy profile, whose launches are named after the kernel): TraceLens
 * puts the kernels whose hlo_op is a convolution in its Conv category;
 * kineta's launcher op of the same kernels is that hlo_op.             */
TEST(xplane_legacy_kernels_have_their_hlo_op)
{
    char pb[1024];
    long long v[2];
    if (!legacy_tracelens(pb, sizeof pb, "x['op category']=='Conv'", v)) return;
    CHECK_INT(v[0], 10);
    kt_status st;
    kt_trace *t = rd_load_path(pb, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(kt_index_call_tree(r), KT_OK);
    size_t kernels = 0, with_op = 0, conv = 0;
    int64_t conv_ns = 0;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        if (r->ev.kind[i] != KT_K_KERNEL) continue;
        kernels++;
        uint32_t op = kt_launcher_op(r, i);
        if (op == KT_NONE) continue;
        with_op++;
        if (strstr(kt_strtab_get(t->strs, r->ev.name[op]), "conv")) conv++, conv_ns += r->ev.dur[i];
    }
    CHECK_INT(kernels, 25);
    CHECK_INT(with_op, 25);
    CHECK_INT(conv, v[0]);
    CHECK_INT(conv_ns, v[1]);
    /* the op sits inside its module */
    uint32_t op = KT_NONE;
    for (uint32_t i = 0; i < r->ev.n && op == KT_NONE; i++)
        if (r->ev.kind[i] == KT_K_KERNEL) op = kt_launcher_op(r, i);
    uint32_t mod = op != KT_NONE ? r->idx->parent[op] : KT_NONE;
    CHECK(mod != KT_NONE && r->ev.kind[mod] == KT_K_CPU_OP);
    if (mod != KT_NONE) CHECK_STR(kt_strtab_get(t->strs, r->ev.name[mod]), "jit_forward_3d_conv");
    kt_trace_free(t);
}
