/*
 * model_build.h — the one way a reader of another profiler's output
 * (rocprofv3, rocpd, Nsight Systems, XLA) fills a rank.
 *
 * Why a separate, narrow interface: the analyses read kinds, categories,
 * pid/tid/stream, correlation ids, ac2g flows and a few typed args, laid out
 * as the Kineto parser lays them out.  Every reader states only what its
 * format says (a kernel on device d, stream s; a host call with correlation
 * c; a range) and this builder writes exactly the events a Kineto trace of
 * the same run would hold: categories as Kineto writes them, the GPU event
 * on pid = device and tid = stream, a flow pair (ac2g) from each launch call
 * to its GPU work, per-category counts as written, and the rank's metadata
 * (source format and profiler version in meta_json, which the cache keeps).
 */
#ifndef KT_MODEL_BUILD_H
#define KT_MODEL_BUILD_H

#include "model.h"

typedef struct kt_build {
    kt_rank *r;
    kt_strtab *strs;
    bool oom;
    uint32_t cats[KT_K__COUNT]; /* the category written for each kind */
    uint64_t counts[KT_K__COUNT];
    size_t ready;               /* rows below it hold kt_events_ready's defaults */
    char *meta;                 /* "k": v, ... pairs of meta_json          */
    size_t meta_len, meta_cap;
} kt_build;

/* GPU work: kind is KT_K_KERNEL, KT_K_MEMCPY or KT_K_MEMSET, or a wait
 * the GPU reports (KT_K_CUDA_SYNC: stream -1 when device-wide).  Times in
 * ns.  Unknown values: corr, bytes, regs, shared_mem -1; grid/block 0.   */
typedef struct kt_gpu_op {
    kt_kind kind;
    uint32_t name; /* strtab id */
    int64_t device, stream, ts, dur, corr;
    int64_t bytes;
    int64_t grid[3], block[3];
    int64_t regs, shared_mem;
} kt_gpu_op;

/* A host call or range: kind is KT_K_RUNTIME (an API call; corr links it to
 * GPU work), KT_K_DRIVER, KT_K_USER_ANNOTATION (a marker range) or
 * KT_K_CPU_OP.  Instants (dur 0) are kept as ranges of length 0.        */
typedef struct kt_host_op {
    kt_kind kind;
    uint32_t name;
    int64_t pid, tid, ts, dur, corr;
} kt_host_op;

/* A kt_gpu_op with every optional field unknown (inline: readers make
 * one per record).                                                  */
static inline kt_gpu_op kt_gpu_op_blank(kt_kind kind)
{
    return (kt_gpu_op){ .kind = kind, .name = KT_NONE, .corr = -1, .bytes = -1, .regs = -1, .shared_mem = -1 };
}

void kt_build_init(kt_build *b, kt_rank *r, kt_strtab *strs);
void kt_build_free(kt_build *b);
/* Intern text (sets oom on failure and returns KT_NONE). */
uint32_t kt_build_str(kt_build *b, const char *s, size_t n);
/* Room for events more events and args more typed args, their memory
 * faulted in at once: a reader that can count its rows first says so
 * (a hint: pushes past it still grow the rank).  Count the ac2g pair
 * kt_build_finish adds for each launched GPU op, and a GPU op's args:
 * device, bytes, registers, shared memory, grid and block (3 each).   */
void kt_build_expect(kt_build *b, size_t events, size_t args);
void kt_build_gpu(kt_build *b, const kt_gpu_op *op);
void kt_build_host(kt_build *b, const kt_host_op *op);
/* Name of device id (deviceProperties[id].name in a Kineto trace). */
void kt_build_device(kt_build *b, int64_t id, const char *name, size_t n);
/* A thread's or process's name, as Kineto's M events thread_name /
 * process_name carry them (tid < 0: the process).                     */
void kt_build_name_thread(kt_build *b, int64_t pid, int64_t tid, const char *name, size_t n);
/* A key of meta_json whose value is a string (escaped here). */
void kt_build_meta_str(kt_build *b, const char *key, const char *value, size_t n);
/* The source's format ("rocprofv3 JSON") and the profiler and version
 * that wrote it (may be ""); vendor: "CUDA" or "ROCm" when the format
 * implies it (the device type of a rank without API calls).          */
void kt_build_source(kt_build *b, const char *format, const char *profiler, const char *vendor);
/* Flows from launch calls to GPU work, counts, meta_json.  False on OOM. */
bool kt_build_finish(kt_build *b);

/* What kt_build_source wrote, from a rank's meta_json ("Kineto JSON" /
 * "" / NULL for a Kineto trace): the value of key "kineta_format",
 * "kineta_profiler" or "kineta_vendor" into buf.                    */
const char *kt_rank_source(const kt_rank *r, const char *key, char *buf, size_t cap);

#endif
