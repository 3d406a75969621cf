/*
 * test_read_xla_trace_fast.c — JAX's trace.json read in place
 * (xla_trace_json.c: records written "key":value, as jax.profiler writes
 * them) gives exactly what the general member walk gives.
 *
 * Each input is loaded as written and again with a blank before every
 * key's ':' — then no record is read in place and the walk reads them all;
 * both models must agree column by column (tests/model_compare.c): on
 * hand-made edge cases and on both shared JAX profiles written out as
 * their trace.json.  And the names the reader remembers (its memo of the
 * last text per slot) are the names written, however many share a slot.
 */
#include "model_compare.h"
#include "read_check.h"
#include "test.h"
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* text with a blank inserted between every key's closing quote and its
 * ':' (a small JSON walk: strings and escapes).                       */
static char *spaced_keys(const char *text, size_t len, size_t *outlen)
{
    char *out = malloc(2 * len + 1);
    size_t n = 0;
    bool in_string = false;
    for (size_t i = 0; out && i < len; i++) {
        char c = text[i];
        out[n++] = c;
        if (!in_string) {
            in_string = c == '"';
        } else if (c == '\\' && i + 1 < len) {
            out[n++] = text[++i];
        } else if (c == '"') {
            in_string = false;
            if (i + 1 < len && text[i + 1] == ':') out[n++] = ' ';
        }
    }
    *outlen = n;
    return out;
}

static kt_trace *load_text(const char *text, size_t len)
{
    kt_load_options one = { .size = sizeof one, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_status st = kt_load_buffer("host.trace.json", text, len, &one, &t, &fail);
    if (st != KT_OK) kt_test_fail(__FILE__, __LINE__, "load failed (%d)", (int)st);
    kt_diags_free(fail);
    return t;
}

/* Loads text as written and with spaced keys; both models agree.  The
 * events loaded (0 when the load failed).                             */
static size_t check_in_place_equals_walk(const char *text, size_t len)
{
    size_t walk_len = 0;
    char *walk = spaced_keys(text, len, &walk_len);
    CHECK(walk != NULL && walk_len > len);
    kt_trace *fast = load_text(text, len), *general = walk ? load_text(walk, walk_len) : NULL;
    size_t n = fast ? fast->ranks[0]->ev.n : 0;
    if (fast && general) {
        kt_check_same_model(fast, general, false);
        CHECK_INT(kt_diags_count(kt_trace_diags(fast)), kt_diags_count(kt_trace_diags(general)));
    }
    kt_trace_free(fast);
    kt_trace_free(general);
    free(walk);
    return n;
}

/* Every way a record of jax.profiler's layout can vary: texts with
 * escapes, non-ASCII and past 16 bytes; numbers as strings, with a
 * leading zero, an exponent, 14 to 16 whole digits, 7 decimals, a lone
 * '.'; tids past int64 and past uint64; args repeated, out of order,
 * nested, not an object; a record laid out over lines, and a thread
 * named after its events.  Then one record with a member's comma
 * missing: both reads stop there.                                     */
static const char EDGES[] =
    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:3\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":17,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #17(Kernel)\"}},"
    "{\"ph\":\"M\",\"pid\":\"701\",\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\",\"name\":\"other\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1000.0015,\"dur\":2.5,\"name\":\"a kernel name longer than sixteen\","
    "\"args\":{\"correlation_id\":\"42\",\"hlo_module\":\"jit_f\",\"hlo_op\":\"fusion.1\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":\"1003\",\"dur\":\"0.5\",\"name\":\"say \\\"hi\\\" \\u00e9\","
    "\"args\":{\"correlation_id\":43,\"hlo_op\":\"a\",\"hlo_op\":\"b\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1004.1234567,\"dur\":1e0,\"name\":\"caf\xc3\xa9\","
    "\"args\":{\"correlation_id\":\"007\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":12345678901234.5,\"dur\":1.,\"name\":\"k14\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":123456789012345,\"dur\":1,\"name\":\"k15\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1234567890123456.25,\"dur\":1,\"name\":\"k16\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":-1,\"dur\":1,\"name\":\"negative\"},"
    "{\"ph\":\"X\",\"pid\":04,\"tid\":17,\"ts\":1009,\"dur\":1,\"name\":\"pid 04\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":18,\"ts\":1010,\"name\":\"no dur\",\"args\":[1,2]},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":18,\"ts\":1011,\"dur\":1,\"name\":\"two args\","
    "\"args\":{\"correlation_id\":\"44\"},\"args\":{\"hlo_op\":\"c\"}},"
    "{\n  \"ph\":\"X\",\n  \"pid\":4, \"tid\":18,\t\"ts\": 1012, \"dur\": 2,\n  \"name\":\"over lines\" ,\n"
    "  \"args\":{ \"correlation_id\": \"45\" , \"hlo_op\":\"d\" }\n},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":18446744073709551615,\"ts\":1000,\"dur\":3,\"name\":\"hipModuleLaunchKernel\","
    "\"args\":{\"correlation_id\":\"42\"}},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":\"7125790917438677240\",\"ts\":1001,\"dur\":1,\"name\":\"hipLaunchKernel\","
    "\"args\":{\"correlation_id\":\"43\"}},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":123456789012345678901,\"ts\":1002,\"dur\":1,\"name\":\"annotation\"},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":5,\"ts\":1003,\"dur\":1,\"name\":\"nested\","
    "\"args\":{\"x\":{\"y\":[1,{\"z\":\"}\"}]},\"correlation_id\":\"44\"}},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":5,\"ts\":1013,\"dur\":1,\"name\":\"hipMemcpy\",\"args\":{\"correlation_id\":\"45\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":18,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #18(MemcpyD2H)\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1020 \"dur\":1,\"name\":\"broken\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1030,\"dur\":1,\"name\":\"after the break\"},"
    "{}]}";

TEST(xla_trace_in_place_equals_walk_edges)
{
    CHECK(check_in_place_equals_walk(EDGES, sizeof EDGES - 1) > 10);
}

/* A shared JAX profile's trace.json, inflated into memory. */
static char *inflated(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    size_t cap = 1 << 20, n = 0;
    char *buf = g ? malloc(cap) : NULL;
    int k;
    while (buf && (k = gzread(g, buf + n, (unsigned)(cap - n))) > 0)
        if ((n += (size_t)k) == cap) buf = realloc(buf, cap *= 2);
    if (g) gzclose(g);
    *len = n;
    return buf;
}

static void check_profile(const char *rel)
{
    char pb[1024], json[64];
    if (!rd_xplane_as_trace_json(rel, pb, sizeof pb, json, sizeof json)) return;
    size_t len;
    char *text = inflated(json, &len);
    CHECK(text && len > 0);
    if (text) CHECK(check_in_place_equals_walk(text, len) > 100);
    free(text);
    unlink(json);
}

TEST(xla_trace_in_place_equals_walk_profiles)
{
    check_profile("traces/other/jax/jax_conv_minimal_08/tw003.xplane.pb");
    check_profile("traces/other/jax/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
}

/* 3000 kernels named k0000 .. k1499 twice over, names of one length that
 * share the memo's slots: each event keeps its own name.            */
TEST(xla_trace_names_through_the_memo)
{
    size_t cap = 200000, n = 0;
    char *text = malloc(cap);
    if (!text) return;
    n += (size_t)snprintf(text + n, cap - n,
                          "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},");
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(text + n, cap - n, "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":%d,\"dur\":1,\"name\":\"k%04d\"},", i,
                              i % 1500);
    n += (size_t)snprintf(text + n, cap - n, "{}]}");
    kt_trace *t = load_text(text, n);
    if (t) {
        const kt_rank *r = t->ranks[0];
        int seen = 0;
        for (uint32_t i = 0; i < r->ev.n; i++) {
            if (r->ev.kind[i] != KT_K_KERNEL) continue;
            char want[16];
            snprintf(want, sizeof want, "k%04d", (int)(r->ev.ts[i] / 1000 % 1500));
            CHECK_STR(kt_strtab_get(t->strs, r->ev.name[i]), want);
            seen++;
        }
        CHECK_INT(seen, 3000);
    }
    kt_trace_free(t);
    free(text);
}
