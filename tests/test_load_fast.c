/*
 * test_load_fast.c — the loader's fast paths (parse_event.c: fast_members,
 * layout_args, fast_number_arg) give exactly what the general member loop
 * gives.
 *
 * Each input is loaded as written and again with a blank between every
 * key and its ':' inside traceEvents: then the fast paths read nothing and
 * the member loop reads every member.  Both models must agree column by column
 * (tests/model_compare.c), on hand-made edge cases and on every shared
 * trace.
 */
#include "model_compare.h"
#include "oracle.h"
#include "test.h"
#include "kineta.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* text with every "key": (colon, blank) inside traceEvents written
 * "key" : (blank, colon): the same length, so every byte offset stays, but
 * the loader's fast paths (Kineto's member order, plain numeric args)
 * expect '":' and step aside, and the general member loop reads the
 * member.  A small JSON walk (strings and escapes) finds the keys; an
 * unescaped quote (old Kineto) confuses it until the end of the line.    */
static char *without_fast_path(const char *text, size_t len, size_t *outlen)
{
    const char *key = memmem(text, len, "\"traceEvents\"", 13);
    const char *open = key ? memchr(key, '[', len - (size_t)(key - text)) : NULL;
    size_t from = open ? (size_t)(open - text) : len, n = 0;
    char *out = malloc(len + 1);
    bool in_string = false;
    int depth = 0; /* inside traceEvents while > 0 */
    for (size_t i = 0; out && i < len; i++) {
        char c = text[i];
        out[n++] = c;
        if (i < from) continue;
        if (c == '\n') { /* strings hold no raw newline: resync after damage */
            in_string = false;
        } else if (in_string) {
            if (c == '\\' && i + 1 < len) {
                out[n++] = text[++i];
            } else if (c == '"') {
                in_string = false;
                if (i + 2 < len && text[i + 1] == ':' && text[i + 2] == ' ') {
                    out[n++] = ' ';
                    out[n++] = ':';
                    i += 2;
                }
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if ((c == ']' || c == '}') && --depth == 0) {
            from = len; /* the end of traceEvents */
        }
    }
    *outlen = n;
    return out;
}

static kt_trace *load_text(const char *name, const char *text, size_t len)
{
    kt_load_options one = { .size = sizeof one, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_status st = kt_load_buffer(name, text, len, &one, &t, &fail);
    if (st != KT_OK) kt_test_fail(__FILE__, __LINE__, "%s: load failed (%d)", name, (int)st);
    kt_diags_free(fail);
    return t;
}

/* Loads text both ways and compares; returns the events of the fast load. */
static size_t check_fast_equals_general(const char *name, const char *text, size_t len)
{
    size_t slow_len = 0;
    char *slow = without_fast_path(text, len, &slow_len);
    CHECK(slow != NULL && slow_len == len && memcmp(slow, text, len) != 0);
    kt_trace *fast = load_text(name, text, len), *general = slow ? load_text(name, slow, slow_len) : NULL;
    size_t n = fast ? fast->ranks[0]->ev.n : 0;
    if (fast && general) kt_check_same_model(fast, general, true);
    kt_trace_free(fast);
    kt_trace_free(general);
    free(slow);
    return n;
}

/* Kineto's layout, and every way an event can leave it part way. */
static const char edge_cases[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm_kernel<float, 128>(float const*, float*)\", "
    "\"pid\": 0, \"tid\": 7,\n    \"ts\": 1700000002701.522, \"dur\": 10.420,\n    \"args\": {\n"
    "      \"External id\": 42,      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, "
    "\"correlation\": 4,      \"registers per thread\": 32, \"blocks per SM\": 18.962963, "
    "\"grid\": [2048, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 100\n    }\n  },\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/module.py(1501): _call_impl\", "
    "\"pid\": 1127087, \"tid\": 1127087, \"ts\": 1700000002702, \"dur\": 3, "
    "\"args\": {\"Python parent id\": 5, \"Python id\": 6, \"Ev Idx\": 7}},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/module.py(1501): _call_impl\", "
    "\"pid\": 1127087, \"tid\": 1127087, \"ts\": 1700000002703, \"dur\": 1, "
    "\"args\": {\"Python parent id\": 6, \"Python id\": 8, \"Ev Idx\": 9}},\n"
    /* escapes, non-ASCII, an unescaped quote: the name leaves the fast path */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"say \\\"hi\\\" \\u00e9\", \"pid\": 1, \"tid\": 2, \"ts\": 3.5, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"caf\xc3\xa9 \xff\", \"pid\": 1, \"tid\": 2, \"ts\": 4, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\"b\", \"pid\": 1, \"tid\": 2, \"ts\": 5, \"dur\": 1},\n"
    /* times: sub-ns digits, exponent, negative, missing dur, string ts */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"r\", \"pid\": 1, \"tid\": 2, \"ts\": 6.12345, \"dur\": 1.00001},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e\", \"pid\": 1, \"tid\": 2, \"ts\": 7e3, \"dur\": -1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nodur\", \"pid\": 1, \"tid\": 2, \"ts\": 8},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"strts\", \"pid\": 1, \"tid\": 2, \"ts\": \"9.5\", \"dur\": 1},\n"
    /* decimals around the 8-digit splice: 8 digits in all, 9, a lone '.', head + ".5" */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d1\", \"pid\": 1, \"tid\": 2, \"ts\": 12345.678, \"dur\": 1234567.89},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d2\", \"pid\": 1, \"tid\": 2, \"ts\": 12345678.5, \"dur\": 1.},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d3\", \"pid\": 1, \"tid\": 2, \"ts\": 1234567812345678, \"dur\": .5},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d4\", \"pid\": 1, \"tid\": 2, \"ts\": 123456781234567.1, \"dur\": 0.001},\n"
    /* a category's args keys change order, and one extends the key expected there */
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a1\", \"pid\": 1, \"tid\": 2, \"ts\": 30, \"dur\": 1, "
    "\"args\": {\"correlation\": 5, \"cbid\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a2\", \"pid\": 1, \"tid\": 2, \"ts\": 31, \"dur\": 1, "
    "\"args\": {\"correlations\": 6, \"cbid\": 2, \"correlation\": 7}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a3\", \"pid\": 1, \"tid\": 2, \"ts\": 32, \"dur\": 1, "
    "\"args\": {\"cbid\": 3, \"correlation\": 8}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a4\", \"pid\": 1, \"tid\": 2, \"ts\": 33, \"dur\": 1, "
    "\"args\": {\"cbid\": 4, \"correlation\": 9}},\n"
    /* grid/block arrays the fast path leaves to the member loop: two or four
     * numbers, a decimal, a leading zero, a sign; and one with inner blanks */
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g1\", \"pid\": 0, \"tid\": 7, \"ts\": 37, \"dur\": 1, "
    "\"args\": {\"grid\": [1, 2], \"block\": [1, 2, 3, 4]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g2\", \"pid\": 0, \"tid\": 7, \"ts\": 38, \"dur\": 1, "
    "\"args\": {\"grid\": [1.5, 1, 1], \"block\": [007, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g3\", \"pid\": 0, \"tid\": 7, \"ts\": 39, \"dur\": 1, "
    "\"args\": {\"grid\": [-1, 2, 3], \"block\": [ 4 , 5 ,6 ] }},\n"
    /* arrays seen before (fast_xyz_arg's memo), one with a longer last
     * number, one too long to remember, then the first again; then texts
     * of 8 and 16 bytes (the memo's word ends), twice                    */
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g4\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 1, "
    "\"args\": {\"grid\": [2048, 1, 1], \"block\": [128, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g5\", \"pid\": 0, \"tid\": 7, \"ts\": 41, \"dur\": 1, "
    "\"args\": {\"grid\": [2048, 1, 1], \"block\": [128, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g6\", \"pid\": 0, \"tid\": 7, \"ts\": 42, \"dur\": 1, "
    "\"args\": {\"grid\": [2048, 1, 12], \"block\": [1280000000000, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g7\", \"pid\": 0, \"tid\": 7, \"ts\": 43, \"dur\": 1, "
    "\"args\": {\"grid\": [2048, 1, 1], \"block\": [128, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g8\", \"pid\": 0, \"tid\": 7, \"ts\": 44, \"dur\": 1, "
    "\"args\": {\"grid\": [12,2,3], \"block\": [123456, 12, 11]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g9\", \"pid\": 0, \"tid\": 7, \"ts\": 45, \"dur\": 1, "
    "\"args\": {\"grid\": [12,2,3], \"block\": [123456, 12, 11]}},\n"
    /* the same keys with other blanks: the remembered bytes up to a value
     * differ, or match with a blank still before the value */
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a5\", \"pid\": 1, \"tid\": 2, \"ts\": 34, \"dur\": 1, "
    "\"args\": { \"cbid\":5,\"correlation\":  10}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a6\", \"pid\": 1, \"tid\": 2, \"ts\": 35, \"dur\": 1, "
    "\"args\": { \"cbid\":  6,\"correlation\":\t11 }},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"a7\", \"pid\": 1, \"tid\": 2, \"ts\": 36, \"dur\": 1, "
    "\"args\": {\n      \"cbid\": 7,\n      \"correlation\": 12\n    }},\n"
    /* pid/tid: negative, string, beyond 16 digits and beyond int64 */
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ids\", \"pid\": -3, \"tid\": \"stream 7\", \"ts\": 10, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"big\", \"pid\": 12345678901234567, "
    "\"tid\": 99999999999999999999, \"ts\": 11, \"dur\": 1},\n"
    /* args: bigint, trailing comma, non-object, members after args */
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2, \"ts\": 12, "
    "\"dur\": 1, \"args\": {\"correlation\": 18446744073709551616, \"cbid\": 211,}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"tid\": 7, \"ts\": 12, "
    "\"dur\": 1, \"args\": {\"memory bandwidth (GB/s)\": 12.5, \"bytes\": 1.0, \"stream\": 7.0, \"correlation\": -3.25, "
    "\"blocks per SM\": 0.0, \"warps per SM\": -0.5, \"queued\": 1.23456789012345678, \"device\": 2.5e1, \"context\": 1.}},\n"
    /* the longest numbers the fast path reads: 16 digits, 19 in a decimal
     * worth at most 2^53 (2^53 / 1000 itself); then one more past each   */
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH\", \"pid\": 0, \"tid\": 7, \"ts\": 12, "
    "\"dur\": 1, \"args\": {\"memory bandwidth (GB/s)\": 1.590370801786061, \"bytes\": 1234567890123456, "
    "\"blocks per SM\": 0.000000000000012345, \"warps per SM\": 0.0000000000000123456, "
    "\"queued\": 9007199254740.992, \"device\": 9007199254740.993, \"context\": 12345678901234567}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"notobj\", \"pid\": 1, \"tid\": 2, \"ts\": 13, \"dur\": 1, \"args\": 5},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"after\", \"pid\": 1, \"tid\": 2, \"ts\": 14, \"dur\": 1, "
    "\"args\": {\"External id\": 9}, \"extra\": [1, 2]},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"trailing\", \"pid\": 1, \"tid\": 2, \"ts\": 15, \"dur\": 1, },\n"
    /* other kinds and orders, compact and category-less events */
    "  {\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":0,\"tid\":7,\"ts\":16,\"dur\":9},\n"
    "  {\"ph\": \"X\", \"name\": \"nocat\", \"pid\": 1, \"tid\": 2, \"ts\": 17, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"r\", \"pid\": 0, \"tid\": 7, \"ts\": 18, \"dur\": 2, "
    "\"args\": {\"sm__cycles\": 1234, \"dram__bytes\": 5.5}},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"mark\", \"pid\": 1, \"tid\": 2, \"ts\": 19},\n"
    "  {\"ph\": \"s\", \"id\": 4, \"pid\": 1, \"tid\": 2, \"ts\": 20, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"f\", \"id\": 4, \"pid\": 0, \"tid\": 7, \"ts\": 21, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"main\"}},\n"
    "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 22, \"args\": {\"bytes\": 1024}},\n"
    "  {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"legacy\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 23, \"dur\": 1},\n"
    /* separators Kineto does not write: the one-compare separator + key
     * step declines and blanks are skipped one by one, or the loop reads on */
    "  {\"ph\": \"X\",  \"cat\": \"cpu_op\",\t\"name\": \"sp1\", \"pid\": 1 , \"tid\": 2,\n  \"ts\": 40, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"sp2\", \"pid\": 1, \"tid\": 2,\r\n    \"ts\": 41,\"dur\": 1 ,\n"
    "    \"args\": {\"External id\": 3}},\n"
    "  {\"ph\": \"s\", \"cat\": \"ac2g\", \"id\": 5, \"pid\": 1, \"tid\": 2, \"ts\": 42, \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"f\", \"id\": 5,  \"pid\": 0, \"tid\": 7,\n    \"cat\": \"ac2g\", \"ts\": 43, \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"sp3\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 44, \"dur\": 1,\n"
    "    \"extra\": 1},\n"
    /* "args" on its own line after dur, as Kineto writes it, but not an
     * object, or empty and followed by more members */
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"la1\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 50, \"dur\": 1,\n"
    "    \"args\": 5\n  },\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"la2\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 51, \"dur\": 1,\n"
    "    \"args\": {}, \"more\": 1\n  },\n"
    /* Kineto's args and event ends, and members after them */
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ae1\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 52, \"dur\": 1,\n"
    "    \"args\": {\n      \"External id\": 4\n    }, \"more\": 2\n  },\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ae2\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 53, \"dur\": 1,\n"
    "    \"args\": {\n      \"External id\": 5\n    }\n  ,\"x\": 1},\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ae3\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 54, \"dur\": 1,\n"
    "    \"args\": {\n      \"External id\": 6\n    }\n  }\n  ,  {\"ph\": \"i\", \"name\": \"after\", \"pid\": 1, \"tid\": 2, \"ts\": 55},\n"
    /* events that keep every arg ([memory] instants, counters): keys learned
     * by the layout as they are interned, other keys and values after them */
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 56, \"args\": {\"Bytes\": 512, \"Total Allocated\": 4096.5}},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 57, \"args\": {\"Bytes\": -512, \"Addr\": 139926520725504, \"Total Allocated\": 1e3}},\n"
    "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 58, \"args\": {\"bytes\": 2048, \"x\": true}},\n"
    /* instants in Kineto's layout, then with an "s" that is not a string and
     * with no args */
    "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n"
    "    \"pid\": 1, \"tid\": 2,\n    \"ts\": 59,\n    \"args\": {\n      \"Ev Idx\": 1, \"Bytes\": 64\n    }\n  },\n"
    "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": 5, \"name\": \"[memory]\",\n"
    "    \"pid\": 1, \"tid\": 2,\n    \"ts\": 60,\n    \"args\": {\n      \"Ev Idx\": 2, \"Bytes\": 32\n    }\n  },\n"
    "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"mark\",\n"
    "    \"pid\": 1, \"tid\": 2,\n    \"ts\": 61\n  },\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", \"pid\": 1, \"tid\": 2, \"ts\": 24, \"dur\": 1}\n"
    "]}\n";

TEST(load_fast_path_equals_member_loop_edge_cases)
{
    size_t n = check_fast_equals_general("edge.json", edge_cases, sizeof edge_cases - 1);
    CHECK_INT(n, 65); /* every event is usable */
}

/* The separators between leading members are learnt from the file
 * (parse_event.c, kt_sep_memo): Kineto's layout, one compact event per
 * line (json.dumps), re-indented with indent=2, and switches between them
 * from event to event, with keys that extend a learnt one, a missing
 * member where one was learnt, and "args" with other blanks.            */
static const char layouts[] =
    "{\"traceEvents\": [\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"k1\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 1, \"dur\": 1,\n"
    "    \"args\": {\n      \"External id\": 1\n    }\n  },\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c1\", \"pid\": 1, \"tid\": 2, \"ts\": 2, \"dur\": 1, "
    "\"args\": {\"External id\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c2\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"dur\": 1, "
    "\"args\": {\"External id\": 3}},\n"
    "{\"ph\": \"f\", \"id\": 7, \"pid\": 0, \"tid\": 7, \"ts\": 4, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"f\", \"id\": 8, \"pid\": 0, \"tid\": 7, \"ts\": 5, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 6, \"args\": {\"Bytes\": 5}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 7, \"args\": {\"Bytes\": 6}},\n"
    /* learnt `, "ts": ` then "tsx", a missing dur, args without a blank */
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c3\", \"pid\": 1, \"tid\": 2, \"tsx\": 9, \"ts\": 8, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c4\", \"pid\": 1, \"tid\": 2, \"ts\": 9, \"args\": {\"External id\": 4}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c5\", \"pid\": 1, \"tid\": 2, \"ts\": 10, \"dur\": 1, \"args\":{\"External id\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c6\", \"pid\": 1, \"tid\": 2, \"ts\": 11, \"dur\": 1, \"args\":  {\"External id\": 6}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c7\", \"pid\": 1, \"tid\": 2, \"ts\": 12, \"dur\": 1, \"args\": {\"External id\": 7}},\n"
    /* json.dump(indent=2): every member on its own line */
    "    {\n      \"ph\": \"X\",\n      \"cat\": \"kernel\",\n      \"name\": \"i1\",\n      \"pid\": 0,\n"
    "      \"tid\": 7,\n      \"ts\": 13,\n      \"dur\": 2,\n      \"args\": {\n        \"stream\": 7,\n"
    "        \"correlation\": 11\n      }\n    },\n"
    "    {\n      \"ph\": \"X\",\n      \"cat\": \"kernel\",\n      \"name\": \"i2\",\n      \"pid\": 0,\n"
    "      \"tid\": 7,\n      \"ts\": 15,\n      \"dur\": 2,\n      \"args\": {\n        \"stream\": 7,\n"
    "        \"correlation\": 12\n      }\n    },\n"
    "    {\n      \"ph\": \"s\",\n      \"id\": 9,\n      \"pid\": 1,\n      \"tid\": 2,\n      \"ts\": 16,\n"
    "      \"cat\": \"ac2g\",\n      \"name\": \"ac2g\"\n    },\n"
    "    {\n      \"ph\": \"s\",\n      \"id\": 10,\n      \"pid\": 1,\n      \"tid\": 2,\n      \"ts\": 17,\n"
    "      \"cat\": \"ac2g\",\n      \"name\": \"ac2g\"\n    },\n"
    /* flows ending otherwise: members after "bp", a "bp" that is not a
     * plain string, blanks before '}', a name with an escape, "bp" first */
    "{\"ph\": \"f\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 21, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\", \"x\": 1},\n"
    "{\"ph\": \"f\", \"id\": 12, \"pid\": 0, \"tid\": 7, \"ts\": 22, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": 3},\n"
    "{\"ph\": \"f\", \"id\": 13, \"pid\": 0, \"tid\": 7, \"ts\": 23, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"\\u0065\"},\n"
    "{\"ph\": \"f\", \"id\": 14, \"pid\": 0, \"tid\": 7, \"ts\": 24, \"cat\": \"ac2g\", \"name\": \"ac2g\" , \"bp\" : \"e\"  },\n"
    "{\"ph\": \"s\", \"id\": 15, \"pid\": 1, \"tid\": 2, \"ts\": 25, \"cat\": \"ac2g\", \"name\": \"a\\\"c\"   },\n"
    "{\"ph\": \"f\", \"id\": 16, \"pid\": 0, \"tid\": 7, \"ts\": 26, \"cat\": \"ac2g\", \"bp\": \"e\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"s\", \"id\": 17, \"pid\": 1, \"tid\": 2, \"ts\": 27, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    /* back to Kineto's, and a separator longer than a pattern holds */
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"k2\", \"pid\": 1, \"tid\": 2,\n    \"ts\": 18, \"dur\": 1,\n"
    "    \"args\": {\n      \"External id\": 8\n    }\n  },\n"
    "  {\"ph\": \"X\",                 \"cat\": \"cpu_op\", \"name\": \"k3\", \"pid\": 1, \"tid\": 2, \"ts\": 19, \"dur\": 1},\n"
    "  {\"ph\": \"X\",                 \"cat\": \"cpu_op\", \"name\": \"k4\", \"pid\": 1, \"tid\": 2, \"ts\": 20, \"dur\": 1}\n"
    "]}\n";

/* text loaded both ways (they must agree, with want events), then once
 * more for hand checks: *r is its rank, or NULL (failed) when not so.    */
static kt_trace *load_checked(const char *name, const char *text, size_t len, size_t want, const kt_rank **r)
{
    CHECK_INT(check_fast_equals_general(name, text, len), want);
    kt_trace *t = load_text(name, text, len);
    *r = t && t->nranks == 1 && t->ranks[0]->ev.n == want ? t->ranks[0] : NULL;
    CHECK(*r != NULL);
    return t;
}

TEST(load_fast_path_equals_member_loop_across_layouts)
{
    const kt_rank *r;
    kt_trace *t = load_checked("layouts.json", layouts, sizeof layouts - 1, 26, &r);
    if (r) { /* values read through learnt separators, checked by hand */
        CHECK_INT(r->ev.ts[7], 8000);    /* "tsx" was not taken for "ts" */
        CHECK_INT(r->ev.dur[8], -1);     /* no dur after a learnt "dur" */
        CHECK_INT(kt_event_ext_id(r, 9), 5);
        CHECK_INT(kt_event_ext_id(r, 10), 6);
        CHECK_INT(kt_event_ext_id(r, 11), 7);
        CHECK_INT(r->ev.dur[12], 2000);  /* indent=2 kernel */
        CHECK_INT(kt_event_corr(r, 13), 12);
        CHECK_INT(kt_event_corr(r, 15), 10); /* flow id, indent=2 */
        CHECK_INT(kt_event_corr(r, 16), 11); /* flows read whole or partly fast */
        CHECK_INT(kt_event_corr(r, 22), 17);
        CHECK_STR(kt_strtab_get(t->strs, r->ev.name[20]), "a\"c");
        CHECK_INT(r->ev.kind[19], KT_K_FLOW_END);
        CHECK_INT(r->ev.ts[25], 20000);
    }
    kt_trace_free(t);
}

/* Args through a category's layout (parse_event.c: layout_args): a key
 * too long for the layout (deep indentation) between remembered ones, a
 * string and an array not kept, then the same keys with other values,
 * one key renamed, and one arg more.                                      */
static const char layout_gaps[] =
    "{\"traceEvents\": [\n"
    "            {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a1\", \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1,\n"
    "                \"args\": {\n                \"Trace name\": \"PyTorch Profiler\",\n"
    "                \"Trace iteration\": 3,\n                \"External id\": 41,\n"
    "                \"Input Dims\": [[1, 2], []],\n                \"Ev Idx\": 7\n            }},\n"
    "            {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a2\", \"pid\": 1, \"tid\": 2, \"ts\": 2, \"dur\": 1,\n"
    "                \"args\": {\n                \"Trace name\": \"PyTorch Profiler\",\n"
    "                \"Trace iteration\": 4,\n                \"External id\": 42,\n"
    "                \"Input Dims\": [[3], []],\n                \"Ev Idx\": 8\n            }},\n"
    "            {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a3\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"dur\": 1,\n"
    "                \"args\": {\n                \"Trace name\": \"PyTorch Profiler\",\n"
    "                \"Trace iteration\": 5,\n                \"External Id\": 43,\n"
    "                \"Input Dims\": [],\n                \"Ev Idx\": 9,\n                \"Sequence number\": 6\n"
    "            }}\n"
    "]}\n";

TEST(load_layout_args_equal_member_loop)
{
    const kt_rank *r;
    kt_trace *t = load_checked("layout_gaps.json", layout_gaps, sizeof layout_gaps - 1, 3, &r);
    if (r) { /* the arg after the gap is kept, checked by hand */
        CHECK_INT(kt_event_arg_int(r, 1, KT_ARG_TRACE_ITERATION, -1), 4);
        CHECK_INT(kt_event_ext_id(r, 1), 42);
        CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_TRACE_ITERATION, -1), 5);
        CHECK_INT(kt_event_ext_id(r, 2), -1); /* "External Id" is not "External id" */
        CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_SEQUENCE_NUMBER, -1), 6);
    }
    kt_trace_free(t);
}

/* Values a category's layout remembers with their key (layout_args,
 * learn_value): the same value again (one compare), then written
 * otherwise (0.50 for 0.5), as the last arg (before '}'), changed, and
 * back; a memory instant's (every arg kept) the same way.              */
static const char repeated_values[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.5, \"device\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 2, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.5, \"device\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 3, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.5, \"device\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 4, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.50, \"device\": 3, \"context\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.50, \"device\": 3, \"context\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 6, \"dur\": 1, "
    "\"args\": {\"queued\": 1, \"blocks per SM\": 0.25, \"device\": 30, \"context\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 7, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.5, \"device\": 3, \"context\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 8, \"dur\": 1, "
    "\"args\": {\"queued\": 0, \"blocks per SM\": 0.5, \"device\": 3, \"context\": 1}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 9, \"args\": {\"Device Type\": 1, \"Bytes\": 512}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 10, \"args\": {\"Device Type\": 1, \"Bytes\": 512}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 11, \"args\": {\"Device Type\": 1, \"Bytes\": 512}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 12, \"args\": {\"Device Type\": 1.5, \"Bytes\": -512}}\n"
    "]}\n";

TEST(load_repeated_arg_values_equal_member_loop)
{
    const kt_rank *r;
    kt_trace *t = load_checked("repeated_values.json", repeated_values, sizeof repeated_values - 1, 12, &r);
    if (r) { /* values from the remembered text, checked by hand */
        CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_DEVICE, -1), 3);
        CHECK_INT(kt_event_arg_int(r, 4, KT_ARG_CONTEXT, -1), 1);
        CHECK_INT(kt_event_arg_int(r, 5, KT_ARG_DEVICE, -1), 30);
        CHECK_INT(kt_event_arg_int(r, 7, KT_ARG_QUEUED, -1), 0);
        CHECK(kt_event_arg_float(r, 7, KT_ARG_BLOCKS_PER_SM, -1) == 0.5);
    }
    kt_trace_free(t);
}

/* Numbers the fast paths read only as far as their separator decides
 * (parse_event.c: fast_time, fast_int): after a remembered ts head, 8
 * digits then more digits, a '.', an exponent, 4 decimals, a lone head
 * and a head with a fraction at once; a dur, a pid and a flow id
 * followed by what is not a separator, long ids, a NUL as a blank; and
 * other blanks between events (parse_stream.c learns them).            */
static const char numbers[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n1\", \"pid\": 7, \"tid\": 8, \"ts\": 1669783687544747, "
    "\"dur\": 4, \"args\": {\"External id\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n2\", \"pid\": 7, \"tid\": 8, \"ts\": 16697836875447471, "
    "\"dur\": 4},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n3\", \"pid\": 7, \"tid\": 8, \"ts\": 1669783687544747.5, "
    "\"dur\": 4e1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n4\", \"pid\": 7, \"tid\": 8, \"ts\": 166978368754474e1, "
    "\"dur\": 12.3456},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n5\", \"pid\": 7, \"tid\": 8, \"ts\": 1669783687.5447, "
    "\"dur\": 7.},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n6\", \"pid\": 7, \"tid\": 8, \"ts\": 16697836, \"dur\": 0},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n7\", \"pid\": 7, \"tid\": 8, \"ts\": 16697836.25, "
    "\"dur\": 99999999},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n8\", \"pid\": 7.5, \"tid\": 8e0, \"ts\": 1669783687544748, "
    "\"dur\": 1.5e0},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n9\", \"pid\": 123456789012, \"tid\": -8, "
    "\"ts\": 99999999999999.999, \"dur\": 1},\n"
    "{\"ph\": \"s\", \"id\": 123456789012, \"pid\": 7, \"tid\": 8, \"ts\": 1669783687544749, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\"},\n"
    "{\"ph\": \"f\", \"id\": 5.5, \"pid\": 0, \"tid\": 7, \"ts\": 1669783687544750, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"f\", \"id\": -6, \"pid\": 0, \"tid\": 7, \"ts\": 1669783687544751, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\", \"bp\": \"e\"},\n\t "
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n10\", \"pid\": 7\0, \"tid\": 8, \"ts\": 1669783687544752, "
    "\"dur\": 4},\n                    "
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n11\", \"pid\": 7, \"tid\": 8, \"ts\": 1669783687544753, "
    "\"dur\": 4, \"args\": {\"External id\": 2}}\n"
    "]}\n";

/* Every prefix of text (a file cut off anywhere, the data's end right
 * after a number) loaded both ways: the same events, values and reports
 * (kt_check_same_model wants whole files).                              */
static void check_every_prefix(const char *name, const char *text, size_t len)
{
    char *slow = malloc(len);
    size_t slow_len = 0;
    char *all = without_fast_path(text, len, &slow_len);
    for (size_t n = 20; slow && all && n < len; n++) {
        memcpy(slow, all, n);
        kt_trace *a = load_text(name, text, n), *b = load_text(name, slow, n);
        const kt_rank *x = a ? a->ranks[0] : NULL, *y = b ? b->ranks[0] : NULL;
        CHECK(x && y && x->ev.n == y->ev.n && x->total_events == y->total_events);
        const kt_diags *da = a ? kt_trace_diags(a) : NULL, *db = b ? kt_trace_diags(b) : NULL;
        CHECK(da && db && kt_diags_count(da) == kt_diags_count(db));
        for (size_t i = 0; da && db && i < kt_diags_count(da) && i < kt_diags_count(db); i++)
            CHECK_STR(kt_diags_get(da, i)->message, kt_diags_get(db, i)->message);
        for (size_t i = 0; x && y && i < x->ev.n && i < y->ev.n; i++) {
            CHECK(x->ev.ts[i] == y->ev.ts[i] && x->ev.dur[i] == y->ev.dur[i] && x->ev.kind[i] == y->ev.kind[i]);
            CHECK(kt_event_pid(x, i) == kt_event_pid(y, i) && kt_event_tid(x, i) == kt_event_tid(y, i));
            CHECK(kt_event_corr(x, i) == kt_event_corr(y, i) && x->ev.nargs[i] == y->ev.nargs[i]);
        }
        kt_trace_free(a);
        kt_trace_free(b);
    }
    free(all);
    free(slow);
}

TEST(load_fast_numbers_end_at_their_separator)
{
    const kt_rank *r;
    kt_trace *t = load_checked("numbers.json", numbers, sizeof numbers - 1, 13, &r); /* n2's ts overflows */
    if (r) { /* values the fast paths left to the member loop, checked by hand */
        CHECK_INT(r->ev.ts[1], 1669783687544747500);
        CHECK_INT(r->ev.dur[1], 40000);
        CHECK_INT(r->ev.ts[2], 1669783687544740000);
        CHECK_INT(r->ev.ts[4], 16697836000);
        CHECK_INT(r->ev.ts[5], 16697836250);
        CHECK_INT(r->ev.dur[5], 99999999000);
        CHECK_INT(kt_event_pid(r, 7), 123456789012);
        CHECK_INT(kt_event_corr(r, 8), 123456789012);
        CHECK_INT(kt_event_corr(r, 10), -6);
    }
    kt_trace_free(t);
    check_every_prefix("numbers.json", numbers, sizeof numbers - 1);
}

/* Events written name first (fast_named_members): Kineto's metadata as
 * MTIA traces repeat it, in its indented layout and compact; then a
 * Chrome-style complete event (name, ph, ts, dur...: the fast path stops
 * at dur), an escaped name (it stops at once), pid before ts, "names"
 * (not "name"), and Kineto's ph-first events between them.              */
static const char name_first[] =
    "{\"traceEvents\": [\n"
    "  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 9, \"tid\": 0,\n"
    "    \"args\": {\n      \"name\": \"MTIA 9\"\n    }\n  },\n"
    "  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 9, \"tid\": 4,\n"
    "    \"args\": {\n      \"name\": \"stream 4\"\n    }\n  },\n"
    "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 9, \"tid\": 3,\n"
    "    \"ts\": 10.500, \"dur\": 2.250,\n    \"args\": {\n      \"External id\": 1\n    }\n  },\n"
    "  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 9, \"tid\": 0,\n"
    "    \"args\": {\n      \"sort_index\": 5000009\n    }\n  },\n"
    "{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 1, \"pid\": 10, \"tid\": 0, \"args\": {\"labels\": \"GPU 1\"}},\n"
    "{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 1, \"pid\": 11, \"tid\": 0, \"args\": {\"labels\": \"GPU 2\"}},\n"
    "{\"name\": \"aten::add\", \"ph\": \"X\", \"ts\": 12, \"dur\": 3, \"pid\": 9, \"tid\": 3, \"cat\": \"cpu_op\", "
    "\"args\": {\"External id\": 2}},\n"
    "{\"name\": \"say \\\"hi\\\"\", \"ph\": \"X\", \"ts\": 13, \"dur\": 1, \"pid\": 9, \"tid\": 3, \"cat\": \"cpu_op\"},\n"
    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 9, \"tid\": 5, \"ts\": 0, \"args\": {\"name\": \"late\"}},\n"
    "{\"names\": \"x\", \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 9, \"tid\": 6, "
    "\"args\": {\"name\": \"extra\"}},\n"
    "{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 1, \"pid\": 12, \"tid\": 0, \"args\": {\"labels\": \"GPU 3\"}}\n"
    "]}\n";

TEST(load_name_first_events_equal_member_loop)
{
    const kt_rank *r;
    kt_trace *t = load_checked("name_first.json", name_first, sizeof name_first - 1, 11, &r);
    if (r) { /* values read by the name-first path, checked by hand */
        CHECK_INT(r->ev.ph[0], 'M');
        CHECK_STR(kt_strtab_get(t->strs, r->ev.name[1]), "thread_name");
        CHECK_INT(kt_event_pid(r, 1), 9);
        CHECK_INT(kt_event_tid(r, 1), 4);
        CHECK_INT(r->ev.ts[2], 10500);
        CHECK_INT(kt_event_pid(r, 5), 11);
        CHECK_INT(r->ev.dur[6], 3000); /* Chrome's order: the member loop took over at dur */
        CHECK_INT(kt_event_ext_id(r, 6), 2);
        CHECK_STR(kt_strtab_get(t->strs, r->ev.name[7]), "say \"hi\"");
        CHECK_INT(kt_event_tid(r, 8), 5);
        CHECK_INT(kt_event_tid(r, 9), 6);
        CHECK_INT(kt_event_pid(r, 10), 12);
    }
    kt_trace_free(t);
}

/* The same events in Kineto's member order and with their members sorted
 * as json.dump(sort_keys=True) writes them (args first, before ph and cat:
 * read after the event, through the category's key layout; 16-digit µs
 * timestamps read by the member loop; the args keep their order, which the
 * model keeps): the models agree, and the values are the ones written.    */
static const char kineto_order[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1669783687389324, "
    "\"dur\": 5, \"args\": {\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": 73689, "
    "\"registers per thread\": 32, \"grid\": [2, 1, 1], \"block\": [128, 1, 1], \"blocks per SM\": 0.025, "
    "\"External id\": 3073}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1669783687389400.5, "
    "\"dur\": 6, \"args\": {\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": 73696, "
    "\"registers per thread\": 32, \"grid\": [4, 1, 1], \"block\": [128, 1, 1], \"blocks per SM\": 0.05, "
    "\"External id\": 3074}},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 1669783687389401, \"args\": {\"Addr\": 139926520725504, \"Bytes\": 512, \"Total Allocated\": 4096}},\n"
    "{\"ph\": \"s\", \"id\": 73689, \"pid\": 1, \"tid\": 2, \"ts\": 1669783687389292, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"f\", \"id\": 73689, \"pid\": 0, \"tid\": 7, \"ts\": 1669783687389324, \"cat\": \"ac2g\", "
    "\"name\": \"ac2g\", \"bp\": \"e\"}\n"
    "]}\n";
static const char sorted_keys[] =
    "{\"traceEvents\": [\n"
    "{\"args\": {\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": 73689, "
    "\"registers per thread\": 32, \"grid\": [2, 1, 1], \"block\": [128, 1, 1], \"blocks per SM\": 0.025, "
    "\"External id\": 3073}, "
    "\"cat\": \"kernel\", \"dur\": 5, \"name\": \"k\", \"ph\": \"X\", \"pid\": 0, \"tid\": 7, \"ts\": 1669783687389324},\n"
    "{\"args\": {\"queued\": 0, \"device\": 0, \"stream\": 7, \"correlation\": 73696, "
    "\"registers per thread\": 32, \"grid\": [4, 1, 1], \"block\": [128, 1, 1], \"blocks per SM\": 0.05, "
    "\"External id\": 3074}, "
    "\"cat\": \"kernel\", \"dur\": 6, \"name\": \"k\", \"ph\": \"X\", \"pid\": 0, \"tid\": 7, \"ts\": 1669783687389400.5},\n"
    "{\"args\": {\"Addr\": 139926520725504, \"Bytes\": 512, \"Total Allocated\": 4096}, \"cat\": \"cpu_instant_event\", "
    "\"name\": \"[memory]\", \"ph\": \"i\", \"pid\": 1, \"s\": \"t\", \"tid\": 2, \"ts\": 1669783687389401},\n"
    "{\"cat\": \"ac2g\", \"id\": 73689, \"name\": \"ac2g\", \"ph\": \"s\", \"pid\": 1, \"tid\": 2, \"ts\": 1669783687389292},\n"
    "{\"bp\": \"e\", \"cat\": \"ac2g\", \"id\": 73689, \"name\": \"ac2g\", \"ph\": \"f\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 1669783687389324}\n"
    "]}\n";

/* The sorted text loaded, after checking that its model is the Kineto-order
 * text's; NULL (a failed check) unless it loaded with n events.          */
static kt_trace *load_sorted_as_kineto(const char *kineto, size_t klen, const char *sorted, size_t slen, size_t n)
{
    kt_trace *k = load_text("kineto.json", kineto, klen);
    kt_trace *s = load_text("sorted.json", sorted, slen);
    if (k && s) kt_check_same_model(k, s, false);
    kt_trace_free(k);
    bool ok = s && s->ranks[0]->ev.n == n;
    CHECK(ok);
    if (!ok) kt_trace_free(s);
    return ok ? s : NULL;
}

TEST(load_sorted_keys_equal_kineto_order)
{
    kt_trace *s = load_sorted_as_kineto(kineto_order, sizeof kineto_order - 1, sorted_keys, sizeof sorted_keys - 1, 5);
    if (s) {
        const kt_rank *r = s->ranks[0];
        CHECK_INT(r->ev.ts[0], 1669783687389324000);
        CHECK_INT(r->ev.ts[1], 1669783687389400500);
        CHECK_INT(kt_event_corr(r, 1), 73696);  /* the second kernel's args through the layout */
        CHECK_INT(kt_event_ext_id(r, 1), 3074);
        CHECK_INT(kt_ev_stream(&r->ev, 1), 7);
        CHECK_INT(kt_event_corr(r, 4), 73689);  /* the flow's id */
    }
    kt_trace_free(s);
}

/* Sorted events the sorted-key fast path hands to the member loop part way
 * (a string pid, an exponent, four fraction digits, an unknown key, an
 * escaped name, a key after ts, blanks of indent=2) or reads whole
 * (metadata, no args): the same model as in Kineto's order.             */
static const char kineto_order_odd[] =
    "{\"traceEvents\": [\n"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"py\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": \"Spans\", \"tid\": 2, \"ts\": 10, \"dur\": 3, "
    "\"args\": {\"External id\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 2, \"ts\": 12.3456, \"dur\": 1.5e1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"cname\": \"good\", \"name\": \"a\\\"b\", \"pid\": 1, \"tid\": 2, \"ts\": 30, "
    "\"dur\": 2, \"tts\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 4, "
    "\"args\": {\n    \"correlation\": 9,\n    \"stream\": 7\n  }}\n"
    "]}\n";
static const char sorted_keys_odd[] =
    "{\"traceEvents\": [\n"
    "{\"args\": {\"name\": \"py\"}, \"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"ts\": 0},\n"
    "{\"args\": {\"External id\": 5}, \"cat\": \"cpu_op\", \"dur\": 3, \"name\": \"aten::mm\", \"ph\": \"X\", "
    "\"pid\": \"Spans\", \"tid\": 2, \"ts\": 10},\n"
    "{\"cat\": \"cpu_op\", \"dur\": 1.5e1, \"name\": \"a\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": 12.3456},\n"
    "{\"cat\": \"cpu_op\", \"cname\": \"good\", \"dur\": 2, \"name\": \"a\\\"b\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 30, \"tts\": 1},\n"
    "{\n  \"args\": {\n    \"correlation\": 9,\n    \"stream\": 7\n  },\n  \"cat\": \"kernel\",\n  \"dur\": 4,\n"
    "  \"name\": \"k\",\n  \"ph\": \"X\",\n  \"pid\": 0,\n  \"tid\": 7,\n  \"ts\": 40\n}\n"
    "]}\n";

TEST(load_sorted_keys_off_the_fast_path_equal_kineto_order)
{
    kt_trace *s = load_sorted_as_kineto(kineto_order_odd, sizeof kineto_order_odd - 1, sorted_keys_odd,
                                        sizeof sorted_keys_odd - 1, 5);
    if (s) {
        const kt_rank *r = s->ranks[0];
        CHECK_INT(r->ev.ph[0], 'M');
        CHECK_INT(r->ev.ts[2], 12346);  /* 12.3456 µs, rounded to ns */
        CHECK_INT(r->ev.dur[2], 15000); /* 1.5e1 µs */
        CHECK_INT(r->ev.ts[3], 30000);
        CHECK_STR(kt_strtab_get(s->strs, r->ev.name[3]), "a\"b");
        CHECK_INT(kt_ev_stream(&r->ev, 4), 7);
        CHECK_INT(kt_event_corr(r, 4), 9);
    }
    kt_trace_free(s);
}

/* A whole (possibly gzip) file, inflated. */
/* Events dropped after their args were stored in their row (an unusable
 * ts, damage after args): the row is the next event's, which must find
 * every column it does not set at its default (parse_event.c: rows are
 * made ready ahead, kt_events_ready).                                   */
static const char dropped_rows[] =
    "{\"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, \"ts\": 1e300, \"dur\": 1, "
    "\"args\": {\"External id\": 42, \"stream\": 7, \"correlation\": 4, \"grid\": [2, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 2, \"ts\": 5, \"dur\": 1},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 6, \"dur\": 1, "
    "\"args\": {\"External id\": 43, \"stream\": 7, \"correlation\": 5} \"x\": 1},\n"
    "  {\"ph\": \"s\", \"id\": 9, \"pid\": 1, \"tid\": 2, \"ts\": 7, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"pid\": 1, \"tid\": 2, \"ts\": 8, \"dur\": 1}\n"
    "]}\n";

TEST(load_dropped_event_leaves_its_row_at_the_defaults)
{
    kt_trace *t = load_text("dropped.json", dropped_rows, sizeof dropped_rows - 1);
    const kt_rank *r = t && t->nranks == 1 && t->ranks[0]->ev.n == 3 ? t->ranks[0] : NULL;
    CHECK(r != NULL);
    for (uint32_t i = 0; r && i < 3; i++) {
        CHECK_INT(r->ev.nargs[i], 0);
        CHECK_INT(r->ev.argi[i], KT_NONE);
        CHECK_INT(kt_ev_stream(&r->ev, i), -1);
        CHECK_INT(kt_event_ext_id(r, i), -1);
        CHECK_INT(kt_event_corr(r, i), i == 1 ? 9 : -1); /* the flow's id */
        CHECK_INT(r->ev.args_at[i], 0);
    }
    kt_trace_free(t);
}

static char *read_inflated(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    size_t cap = 1 << 20, n = 0;
    char *buf = f ? malloc(cap) : NULL;
    for (int got = 1; buf && got > 0;) {
        if (n + (1 << 16) > cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) break;
            buf = grown;
        }
        got = gzread(f, buf + n, 1 << 16);
        if (got > 0) n += (size_t)got;
    }
    if (f) gzclose(f);
    *len = n;
    return buf;
}

TEST(load_fast_path_equals_member_loop_on_every_shared_trace)
{
    NEED_SHARED();
    size_t nfound = 0;
    char **found = fx_shared_trace_files(&nfound);
    CHECK(nfound >= 30);
    size_t traces = 0;
    for (size_t i = 0; i < nfound; i++) {
        size_t len = 0;
        char *text = read_inflated(found[i], &len);
        kt_load_options one = { .size = sizeof one, .jobs = 1 };
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        bool is_trace = text && kt_load_buffer(found[i], text, len, &one, &t, &fail) == KT_OK;
        kt_trace_free(t);
        kt_diags_free(fail);
        if (is_trace) traces += check_fast_equals_general(found[i], text, len) > 0;
        free(text);
    }
    CHECK(traces >= 28);
    fx_free_paths(found, nfound);
}

/* Empty names through the category's name memo (intern_name): its slot
 * takes a name's last byte, and "" has none (fuzz_parse found the read
 * before it).  Then a one-byte name, the memo's shortest.              */
static const char empty_names[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"\", \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"\", \"pid\": 1, \"tid\": 2, \"ts\": 2, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"\", \"pid\": 1, \"tid\": 2, \"ts\": 4, \"dur\": 1}\n"
    "]}\n";

TEST(load_empty_names_through_the_name_memo)
{
    const kt_rank *r;
    kt_trace *t = load_checked("empty_names.json", empty_names, sizeof empty_names - 1, 4, &r);
    for (uint32_t i = 0; r && i < 4; i++)
        CHECK_STR(kt_strtab_get(t->strs, r->ev.name[i]), i == 2 ? "a" : "");
    kt_trace_free(t);
}
