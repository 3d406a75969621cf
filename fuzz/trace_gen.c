/*
 * trace_gen.c — see trace_gen.h.  Every choice reads the next input byte
 * (0 once the bytes run out), so libFuzzer's mutations of a byte change
 * one value of the trace and the corpus stays meaningful.
 */
#include "trace_gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Zero-length kernels of all runs together: enough for the sweeps' long
 * stretches of equal timestamps, few enough that one input stays well
 * inside the fuzzers' time limit under the sanitizers.                   */
#define RUN_KERNELS_MAX 1024u

typedef struct bytes {
    const uint8_t *p;
    size_t n, at;
    unsigned run_kernels; /* written so far */
} bytes;

static unsigned take(bytes *b) { return b->at < b->n ? b->p[b->at++] : 0; }
static unsigned pick(bytes *b, unsigned n) { return take(b) % n; }
static uint16_t take16(bytes *b) { return (uint16_t)(take(b) | take(b) << 8); }

/* Timestamps (µs, as Kineto writes them): mostly advancing, sometimes
 * equal, backwards, fractional, zero, negative or near 2^62 ns.           */
static void put_ts(bytes *b, FILE *f, int64_t *clock)
{
    switch (pick(b, 16)) {
    case 0: fprintf(f, "0"); return;
    case 1: fprintf(f, "-%u", take16(b)); return;
    case 2: fprintf(f, "4611686018427387"); return;           /* 2^62 ns in µs */
    case 3: fprintf(f, "9223372036854775807"); return;        /* int64 max */
    case 4: fprintf(f, "%lld.%03u", (long long)*clock, pick(b, 1000)); return;
    case 5: *clock -= take(b); break;                         /* backwards */
    case 6: break;                                            /* same as before */
    default: *clock += take(b); break;
    }
    fprintf(f, "%lld", (long long)*clock);
}

static void put_dur(bytes *b, FILE *f)
{
    switch (pick(b, 12)) {
    case 0: fprintf(f, "0"); return;
    case 1: fprintf(f, "-%u", take(b)); return;
    case 2: fprintf(f, "4611686018427387"); return;
    case 3: fprintf(f, "%u.%u", take(b), take(b)); return;
    case 4: fprintf(f, "1e300"); return;
    default: fprintf(f, "%u", take(b) + 1); return;
    }
}

/* Ids from a small pool so they collide (duplicates) or dangle; now and
 * then negative or huge.                                                   */
static void put_id(bytes *b, FILE *f)
{
    unsigned v = take(b);
    if (v == 255) fprintf(f, "-1");
    else if (v == 254) fprintf(f, "9223372036854775807");
    else if (v == 253) fprintf(f, "\"%u\"", take(b) % 8); /* a string id */
    else fprintf(f, "%u", v % 12);
}

static const char *const kernel_names[] = {
    "void gemm_kernel<float>(float*)", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)",
    "ncclDevKernel_SendRecv(ncclDevComm*)", "elementwise_kernel", "Memcpy HtoD (Pinned -> Device)",
    "Memcpy DtoH (Device -> Pageable)", "Memset (Device)", "", "triton_poi_fused_0",
    "name with \\\"quotes\\\", commas\\nand a newline", "\\u00e9\\u4e2d", "void at::native::reduce_kernel<>",
};
static const char *const runtime_names[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaGraphLaunch", "cudaMemcpyAsync", "cudaMemsetAsync",
    "cuLaunchKernel", "hipLaunchKernel", "hipExtModuleLaunchKernel", "cudaStreamSynchronize", "runFunction",
};
static const char *const cpu_names[] = {
    "aten::mm", "aten::linear", "aten::add", "nccl:all_reduce", "record_param_comms", "aten::copy_",
    "## forward ##", "", "aten::to",
};
static const char *const gpu_cats[] = { "kernel", "gpu_memcpy", "gpu_memset", "Kernel", "gpu_user_annotation" };
static const char *const odd_ph[] = { "B", "E", "b", "e", "n", "P", "O", "N", "D", "Z", "", "XX" };

static void put_pid(bytes *b, FILE *f, bool gpu)
{
    switch (pick(b, 10)) {
    case 0: fprintf(f, "\"Spans\""); return;
    case 1: fprintf(f, "%u", gpu ? 4242u : pick(b, 8)); return; /* GPU work on a CPU pid and back */
    case 2: fprintf(f, "-%u", take(b)); return;
    default: fprintf(f, "%u", gpu ? pick(b, 3) : 4242u); return;
    }
}

static void put_tid(bytes *b, FILE *f)
{
    unsigned v = pick(b, 10);
    if (v == 0) fprintf(f, "\"stream %u\"", pick(b, 4) + 7);
    else if (v == 1) fprintf(f, "%u", take(b) << 8);
    else fprintf(f, "%u", v < 6 ? 7 : v + 7);
}

static void gpu_event(bytes *b, FILE *f, int64_t *clock)
{
    const char *cat = gpu_cats[pick(b, 5)];
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat);
    if (!strcmp(cat, "gpu_user_annotation")) fprintf(f, "\"ProfilerStep#%u\"", pick(b, 4));
    else fprintf(f, "\"%s\"", kernel_names[pick(b, sizeof kernel_names / sizeof *kernel_names)]);
    fprintf(f, ",\"pid\":");
    put_pid(b, f, true);
    fprintf(f, ",\"tid\":");
    put_tid(b, f);
    fprintf(f, ",\"ts\":");
    put_ts(b, f, clock);
    fprintf(f, ",\"dur\":");
    put_dur(b, f);
    fprintf(f, ",\"args\":{\"stream\":%u,\"correlation\":", pick(b, 3) + 7);
    put_id(b, f);
    fprintf(f, ",\"device\":%u,\"External id\":", pick(b, 3));
    put_id(b, f);
    if (take(b) & 1) fprintf(f, ",\"bytes\":%u,\"memory bandwidth (GB/s)\":%u.5", take16(b), take(b));
    if (take(b) & 1) fprintf(f, ",\"grid\":[%u,1,1],\"block\":[%u,1,1]", take(b), take(b));
    fprintf(f, "}}");
}

static void cpu_event(bytes *b, FILE *f, int64_t *clock)
{
    bool runtime = take(b) & 1;
    const char *name = runtime ? runtime_names[pick(b, sizeof runtime_names / sizeof *runtime_names)]
                               : cpu_names[pick(b, sizeof cpu_names / sizeof *cpu_names)];
    const char *cat = runtime ? (take(b) & 3 ? "cuda_runtime" : "cuda_driver")
                              : (take(b) & 3 ? "cpu_op" : "user_annotation");
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":", cat, name);
    put_pid(b, f, false);
    fprintf(f, ",\"tid\":%u,\"ts\":", pick(b, 3) + 1);
    put_ts(b, f, clock);
    fprintf(f, ",\"dur\":");
    put_dur(b, f);
    fprintf(f, ",\"args\":{\"%s\":", runtime ? "correlation" : "External id");
    put_id(b, f);
    if (take(b) & 1) {
        fprintf(f, ",\"External id\":");
        put_id(b, f);
    }
    fprintf(f, "}}");
}

/* ProfilerStep#N: nested, repeated, out of order or negative numbers. */
static void step_event(bytes *b, FILE *f, int64_t *clock)
{
    int n = (int)pick(b, 6) - 1;
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":4242,\"tid\":1,\"ts\":", n);
    put_ts(b, f, clock);
    fprintf(f, ",\"dur\":");
    put_dur(b, f);
    fprintf(f, ",\"args\":{\"External id\":");
    put_id(b, f);
    fprintf(f, "}}");
}

static void flow_event(bytes *b, FILE *f, int64_t *clock)
{
    bool start = take(b) & 1;
    fprintf(f, "{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":\"ac2g\",\"id\":", start ? "s" : "f",
            take(b) & 7 ? "ac2g" : "fwdbwd");
    put_id(b, f);
    fprintf(f, ",\"pid\":");
    put_pid(b, f, !start);
    fprintf(f, ",\"tid\":7,\"ts\":");
    put_ts(b, f, clock);
    fprintf(f, "%s}", start ? "" : ",\"bp\":\"e\"");
}

static void other_event(bytes *b, FILE *f, int64_t *clock)
{
    switch (pick(b, 5)) {
    case 0: /* counter */
        fprintf(f, "{\"ph\":\"C\",\"name\":\"q\",\"pid\":%u,\"ts\":", pick(b, 3));
        put_ts(b, f, clock);
        fprintf(f, ",\"args\":{\"v\":%d}}", (int)take(b) - 128);
        return;
    case 1: /* metadata */
        fprintf(f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                take(b) & 1 ? "process_name" : "thread_name", pick(b, 3), pick(b, 9), take(b) & 1 ? "stream 7" : "GPU 0");
        return;
    case 2: /* instant */
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":4242,"
                   "\"tid\":1,\"ts\":");
        put_ts(b, f, clock);
        fprintf(f, ",\"args\":{\"Bytes\":%d}}", (int)take16(b) - 32768);
        return;
    default: /* unknown ph */
        fprintf(f, "{\"ph\":\"%s\",\"cat\":\"kernel\",\"name\":\"odd\",\"pid\":0,\"tid\":7,\"id\":", odd_ph[pick(b, 12)]);
        put_id(b, f);
        fprintf(f, ",\"ts\":");
        put_ts(b, f, clock);
        fprintf(f, ",\"dur\":");
        put_dur(b, f);
        fprintf(f, "}");
        return;
    }
}

/* A stream of zero-length kernels, the issue's "million" scaled to what
 * one fuzz input may cost (RUN_KERNELS_MAX in all).                      */
static void kernel_run(bytes *b, FILE *f, int64_t *clock, bool *first)
{
    unsigned n = take(b) * 2u;
    if (n > RUN_KERNELS_MAX - b->run_kernels) n = RUN_KERNELS_MAX - b->run_kernels;
    b->run_kernels += n;
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":0,"
                   "\"args\":{\"stream\":7,\"correlation\":%u}}",
                *first ? "" : ",\n", (long long)*clock, i % 16);
        *first = false;
    }
}

static void header(bytes *b, FILE *f)
{
    fprintf(f, "{\"schemaVersion\":1,");
    if (take(b) & 1) fprintf(f, "\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\",\"numSms\":%u}],", take(b));
    switch (pick(b, 5)) {
    case 0: break;
    case 1: fprintf(f, "\"distributedInfo\":{\"rank\":\"%u\"},", pick(b, 4)); break;
    case 2: fprintf(f, "\"distributedInfo\":{\"rank\":-%u,\"world_size\":0},", take(b)); break;
    default: fprintf(f, "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%u,\"world_size\":%u},", pick(b, 4),
                     pick(b, 4)); break;
    }
    if (take(b) & 1) fprintf(f, "\"displayTimeUnit\":\"%s\",", take(b) & 1 ? "ns" : "ms");
    fprintf(f, "\"traceEvents\":[\n");
}

char *fz_generate_trace(const uint8_t *data, size_t size, size_t *len)
{
    char *out = NULL;
    *len = 0;
    FILE *f = open_memstream(&out, len);
    if (!f) return NULL;
    bytes b = { data, size, 0, 0 };
    int64_t clock = 1000;
    header(&b, f);
    bool first = true;
    while (b.at < b.n) {
        unsigned kind = pick(&b, 16);
        if (kind == 15) {
            kernel_run(&b, f, &clock, &first);
            continue;
        }
        fputs(first ? "" : ",\n", f);
        first = false;
        if (kind < 6) gpu_event(&b, f, &clock);
        else if (kind < 11) cpu_event(&b, f, &clock);
        else if (kind == 11) step_event(&b, f, &clock);
        else if (kind < 14) flow_event(&b, f, &clock);
        else other_event(&b, f, &clock);
    }
    fprintf(f, "\n],\"traceName\":\"generated\",\"baseTimeNanoseconds\":%u}\n", take(&b));
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}
