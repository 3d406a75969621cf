/*
 * synth.h — kineta-synth's shared types and functions (tools/synth/).
 *
 * kineta-synth writes synthetic PyTorch profiler (Kineto) traces whose answers are known.
 *
 * Why this file exists: the real traces available to kineta are few, small, and their
 * "right answers" are only known through some other tool's interpretation.  kineta needs
 * traces of any size (up to many GiB, to measure parse throughput and memory) and traces
 * whose counts, GPU busy/idle time and communication/computation overlap are known
 * exactly.  This program builds the GPU timeline deliberately (kernels on one stream never
 * overlap, gaps are chosen, every launch precedes its kernel), computes the ground truth
 * while it writes, and formats every event byte-for-byte the way native libkineto does,
 * so kineta's parser sees the same shape it sees in real files.
 *
 * Self-contained C11: libc + zlib only (Makefile: build/kineta-synth from
 * the .c files of tools/synth/).
 */
#ifndef KT_SYNTH_H
#define KT_SYNTH_H

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* ------------------------------------------------------------------------------------ */
/* Limits and fixed choices                                                             */
/* ------------------------------------------------------------------------------------ */

enum {
    MAX_COMPUTE_STREAMS = 16,
    MAX_STREAMS = MAX_COMPUTE_STREAMS + 1, /* + the NCCL stream */
    MAX_RANKS = 4096,
    MAX_DEPTH = 64,
    DEVICES_PER_NODE = 8,
    FIRST_STEP = 1,
    MAX_STEPS = 100000000, /* ~40 TB per rank; keeps step numbers in an int32 */
};

/* One event never exceeds this many bytes, so a single capacity check per event suffices
 * (the longest are ROCm launches carrying the kernel name and comm ops carrying the
 * "Process Group Ranks" list of up to MAX_RANKS entries). */
#define EVENT_ROOM ((size_t)256 * 1024)
#define OUT_BUFFER ((size_t)16 * 1024 * 1024)

/* Kineto's trace clock is a monotonic µs clock; values this size keep ns precision in a
 * double, exactly as real ns-resolution traces do. */
#define TRACE_BASE_US INT64_C(1700000000000)
#define BASE_TIME_NANOSECONDS "1735689600000000000"

/* ------------------------------------------------------------------------------------ */
/* Command line                                                                         */
/* ------------------------------------------------------------------------------------ */

typedef enum { VENDOR_CUDA, VENDOR_ROCM } Vendor;

typedef struct {
    const char *out;
    int ranks;
    uint64_t size;  /* target uncompressed bytes per rank; 0 when --steps is given */
    uint64_t steps; /* 0 = derive from size */
    Vendor vendor;
    int streams; /* compute streams */
    bool graphs, ns, gzip;
    uint64_t seed;
    /* --collectives and what it enables */
    bool collectives;
    int64_t skew_ns;          /* per-rank clock offsets drawn from [-skew, skew] */
    int straggler_rank;       /* -1 none */
    int64_t straggler_ns;     /* its arrival at every collective is this late */
    int slow_rank;            /* -1 none */
    int slow_pct;             /* its computation kernels take this much longer */
} Options;

/* ------------------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64: tiny, fast, good enough for timings)        */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t s;
} Rng;

static inline uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] for spans below 2^32 (all timing ranges here); multiply-shift
 * instead of a 64-bit division keeps the hot path cheap. */
static inline uint64_t rng_range(Rng *r, uint64_t lo, uint64_t hi)
{
    return lo + (((rng_next(r) >> 32) * (hi - lo + 1)) >> 32);
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
    Rng r = {a * UINT64_C(0x2545F4914F6CDD1D) ^ b};
    return rng_next(&r);
}

/* ------------------------------------------------------------------------------------ */
/* Output: one big buffer, flushed in large blocks to a file or a gzip stream            */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len;
    FILE *fp;
    gzFile gz;
    const char *path;
    uint64_t bytes;  /* uncompressed bytes produced so far */
    bool discard;    /* size estimation: count, write nothing */
    bool ns_times;   /* µs with 3 decimals instead of integer µs */
} Writer;

void w_flush(Writer *w);

static inline void w_need(Writer *w, size_t n)
{
    if (OUT_BUFFER - w->len < n)
        w_flush(w);
}

static inline void put(Writer *w, const char *s, size_t n)
{
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* Literal text only: the "" concatenation rejects anything but a string literal. */
#define PUT(w, lit) put((w), "" lit "", sizeof(lit) - 1)

static inline void put_str(Writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static inline void put_u64(Writer *w, uint64_t v)
{
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(w, tmp + i, (size_t)(20 - i));
}

static inline void put_i64(Writer *w, int64_t v)
{
    if (v < 0) {
        PUT(w, "-");
        put_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(w, (uint64_t)v);
    }
}

/* Kineto writes µs; ns-resolution traces carry exactly three decimals. */
static inline void put_time(Writer *w, int64_t ns)
{
    put_u64(w, (uint64_t)(ns / 1000));
    if (w->ns_times) {
        unsigned f = (unsigned)(ns % 1000);
        char t[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
        put(w, t, 4);
    }
}

/* ------------------------------------------------------------------------------------ */
/* GPU operation catalogue (kernels, copies, fills) with vendor-specific names           */
/* ------------------------------------------------------------------------------------ */

typedef enum { GPU_COMPUTE, GPU_COMM, GPU_MEMCPY, GPU_MEMSET } GpuClass;

typedef struct {
    const char *cuda, *rocm;
    GpuClass cls;
    bool ext_launch; /* launched via cudaLaunchKernelExC / hipExtModuleLaunchKernel */
    uint32_t dur_lo, dur_hi; /* ns */
    int grid[3], block[3], regs, smem;
    const char *copy_kind; /* ROCm "kind" of copies/fills */
} GpuOpTpl;

enum {
    K_LN_FWD, K_GEMM_QKV, K_FLASH_FWD, K_GEMM_OUT, K_ADD, K_GEMM_FC1, K_GELU, K_GEMM_FC2,
    K_LOGSOFTMAX, K_NLL, K_NLL_BWD, K_LOGSOFTMAX_BWD, K_GEMM_DGRAD, K_GEMM_WGRAD,
    K_REDUCE_SUM, K_GELU_BWD, K_LN_BWD_INPUT, K_LN_BWD_GAMMA, K_FLASH_BWD, K_FOREACH_ADD,
    K_FUSED_ADAM, K_ALLREDUCE, M_HTOD, M_DTOH, M_FILL,
    K_ALLGATHER, K_REDUCESCATTER, K_SENDRECV, K_BROADCAST, /* --collectives only */
    NUM_GPU_OPS
};

/* ------------------------------------------------------------------------------------ */
/* Runtime API catalogue                                                                 */
/* ------------------------------------------------------------------------------------ */

typedef enum {
    API_LAUNCH, API_LAUNCH_EXT, API_MEMCPY, API_MEMSET, API_GRAPH, /* enqueue GPU work */
    API_SYNC, API_EVENT_RECORD, API_STREAM_WAIT, NUM_APIS
} Api;

typedef struct {
    const char *name;
    int cbid; /* CUDA "cbid" / ROCm "cid" callback id */
} ApiName;

/* ------------------------------------------------------------------------------------ */
/* Event records: one profiler step is built in memory, then written by several passes  */
/* ------------------------------------------------------------------------------------ */

typedef enum { EV_CPU_OP, EV_USER_ANN, EV_PYTHON, EV_MEM_INSTANT, EV_RUNTIME, EV_GPU } EvKind;
typedef enum { THREAD_MAIN, THREAD_AUTOGRAD } Thread;
typedef enum { ARGS_PLAIN, ARGS_FWD_SEQ, ARGS_BWD_SEQ, ARGS_COMMS } ArgsStyle;

typedef struct {
    int64_t ts, dur;  /* ns */
    const char *name; /* CPU-side names; GPU and runtime names come from the catalogues */
    uint64_t ext_id;  /* External id */
    uint64_t id;      /* Record function id | Python id | correlation | allocation address */
    uint64_t aux;     /* Python parent id | sequence number | message elements | bytes */
    int64_t val;      /* [memory]: bytes allocated (negative when freed) */
    uint32_t flow;    /* fwdbwd flow id, 0 = none */
    int32_t suffix;   /* number appended to the name, -1 = none */
    uint8_t kind, thread, style, stream, tpl, api;
} Ev;

/* Static shape of the synthetic model, identical on every rank (as in data parallelism). */
typedef struct {
    Vendor vendor;
    int streams; /* compute streams; index `streams` is the NCCL stream */
    bool graphs;
    int64_t quantum; /* 1000 ns for integer-µs traces, 1 ns otherwise */
    int layers;
    int world_size;
    bool collectives; /* --collectives: the schedule of coll_kind_at() */
    uint64_t seed;
} Model;

/* --collectives: collectives are coordinated across ranks.  A rank's collective kernel
 * starts when the rank gets there (its "arrival") and ends when the last member of its
 * group has arrived plus the collective's latency.  The ends need every rank's arrivals,
 * so resolve_collectives() first runs all ranks step by step in lock-step and records
 * them here; the writing passes then read the ends.  Times are true time (a rank's own
 * clock minus its offset).  Index: slot * nranks + rank. */
typedef struct CollPlan {
    int nranks;
    size_t nslots, cap;
    int64_t *arrive; /* INT64_MIN: not a member / not yet known */
    int64_t *end;
    bool recording;
} CollPlan;

/* The per-rank generator.  Everything that survives from one step to the next lives
 * here, so regenerating from a copy of the initial state reproduces the same events. */
typedef struct {
    const Model *m;
    Rng rng;
    int64_t now; /* CPU cursor, ns */
    uint64_t ext_id, rf_id, py_id, corr, seq, fwdbwd;
    int64_t stream_free[MAX_STREAMS];
    int64_t total_alloc;
    /* step-local */
    int64_t step_alloc;
    Ev *ev;
    size_t n, cap;
    size_t stack[MAX_DEPTH];
    int depth;
    Thread thread;
    int64_t gpu_first, gpu_last;
    uint64_t step_ext_id;
    /* --collectives */
    int rank;
    int64_t clock_offset, straggle_ns;
    int slow_pct;
    CollPlan *plan; /* NULL: each collective ends at its own arrival + latency */
    uint64_t coll_n; /* collective slots run so far */
} Gen;

/* fwdbwd bookkeeping: forward ops remember their sequence number and flow id so the
 * backward node of the same op can point back at them. */
typedef struct {
    uint64_t seq;
    uint32_t flow;
} FwdLink;

/* ---- --collectives: the schedule ------------------------------------------------------ */

typedef enum { C_BROADCAST, C_ALLGATHER, C_ALLREDUCE, C_REDUCESCATTER, C_ALLTOALLV, C_SENDRECV } CollKind;
typedef enum { PG_WORLD, PG_HALF, PG_PAIR } PgClass;

typedef struct {
    const char *coll_name, *op, *annotation, *dtype;
    int tpl, dtype_bytes;
    PgClass pg;
} CollKindInfo;

/* ------------------------------------------------------------------------------------ */
/* Ground truth                                                                          */
/* ------------------------------------------------------------------------------------ */

typedef enum {
    CAT_CPU_OP, CAT_USER_ANN, CAT_PYTHON, CAT_RUNTIME, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET,
    CAT_GPU_USER_ANN, CAT_TRACE, NUM_CATS
} Cat;

typedef enum { PH_X, PH_S, PH_F, PH_I, PH_M, NUM_PH } Ph;

/* Length of the union of intervals fed in start order. */
typedef struct {
    int64_t start, end, total;
    bool open;
} Union;

typedef struct {
    int64_t ts, end;
    uint8_t cls;
} Interval;

typedef struct {
    uint64_t events, ph[NUM_PH], cat[NUM_CATS];
    uint64_t by_stream[MAX_STREAMS];
    uint64_t graph_launches, graph_kernels;
    uint64_t kcount[NUM_GPU_OPS];
    int64_t ktime[NUM_GPU_OPS];
    Union all, kernels, compute, comm;
    int64_t first_start, last_end;
    Interval *pending;
    size_t npending, cap;
} Truth;

/* ------------------------------------------------------------------------------------ */
/* Emitting events in native libkineto layout                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    Writer *w;
    Truth *t;
    const Model *m;
    int device;
    uint64_t pid, autograd_tid;
    int stream_ids[MAX_STREAMS];
    char rocm_stream_ptr[MAX_STREAMS][24];
    char *pg_ranks; /* "[0, 1, ...]" */
    char *kernel_tail[NUM_GPU_OPS];
    uint64_t ev_idx;
    int rank;
} Emitter;


typedef enum { PASS_MAIN_THREAD, PASS_AUTOGRAD_THREAD, PASS_PYTHON, PASS_GPU, NUM_PASSES } Pass;

/* ------------------------------------------------------------------------------------ */
/* Whole files                                                                           */
/* ------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t step;
    int64_t ts, dur;
    uint64_t ext_id;
} GpuStepSpan;

typedef struct {
    const Options *o;
    Model model;
    int rank;
    uint64_t steps;
    int64_t start_ns; /* profiler start */
    Gen initial;      /* generator state before step 1; every pass starts from a copy */
    GpuStepSpan *spans;
    int64_t cpu_end;
    int64_t clock_offset; /* --clock-skew */
} RankPlan;

/* cli.c */
Options parse_options(int argc, char **argv);
bool single_file_mode(const Options *o);

/* json_writer.c */
void put_double(Writer *w, double v);
void put_json_string(Writer *w, const char *s);
void w_open(Writer *w, const char *path, bool gzip, bool ns_times);
void w_close(Writer *w);

/* vendor_names.c */
const char *gpu_op_name(Vendor v, int tpl);
bool is_kernel(int tpl);
bool api_has_flow(Api a);
extern const GpuOpTpl GPU_OPS[NUM_GPU_OPS];
extern const ApiName API_NAMES[2][NUM_APIS];

/* events.c */
void cpu_busy(Gen *g, uint64_t lo, uint64_t hi);
Ev *cpu_open(Gen *g, EvKind kind, const char *name);
void cpu_close(Gen *g);
void cpu_leaf(Gen *g, EvKind kind, const char *name, uint64_t lo, uint64_t hi);
void py_noise(Gen *g, int n);
void mem_instant(Gen *g, int64_t bytes);
int comm_stream(const Gen *g);
int copy_stream(const Gen *g);
int side_streams(const Gen *g);
int side_stream(const Gen *g, int k);
int64_t max64(int64_t a, int64_t b);
Ev *launch(Gen *g, int tpl, int stream);
void graph_launch(Gen *g, const int *tpls, int n, int stream);
void stream_wait(Gen *g, int dst, int src);
void stream_sync(Gen *g, int stream);

/* model.c */
void build_step(Gen *g, uint64_t step);

/* collectives.c */
CollKind coll_kind_at(const Model *m, uint64_t slot);
int coll_group(const Model *m, PgClass pg, int rank, int *first, int *size);
int coll_pg_number(PgClass pg, int gid);
uint64_t coll_seq(const Model *m, uint64_t slot);
uint64_t coll_nelems(const Model *m, uint64_t slot);
uint64_t a2a_split(const Model *m, uint64_t slot, int from, int to);
CollPlan *plan_new(int nranks);
void plan_free(CollPlan *p);
void coll_slot(Gen *g);
void resolve_collectives(RankPlan *plans, int nranks, uint64_t steps, CollPlan *plan);
void write_truth_collectives(Writer *w, const Options *o, const RankPlan *plans, const CollPlan *plan);
extern const CollKindInfo COLL_KINDS[];

/* truth.c */
void truth_pending(Truth *t, int64_t ts, int64_t end, GpuClass cls);
void truth_flush(Truth *t, int64_t watermark);
int64_t gen_watermark(const Gen *g);
void write_truth_rank(Writer *w, const RankPlan *p, const Truth *t, const char *file,
                      uint64_t bytes, bool first);
extern const char *const CAT_NAMES[NUM_CATS];

/* emit.c */
void begin_event(Emitter *e, Ph ph);
void put_pid_tid(Emitter *e, uint64_t pid, uint64_t tid);
void complete_begin(Emitter *e, Cat cat);
void complete_rest(Emitter *e, uint64_t pid, uint64_t tid, int64_t ts, int64_t dur);
void end_args(Writer *w);
char *format_kernel_tail(Vendor v, int tpl);
void emit_step(Emitter *e, const Gen *g, Pass pass);

/* files.c */
int stream_id(const Model *m, int s);
uint64_t write_rank(RankPlan *p, const char *path, const char *trace_name, Truth *t);
int64_t clock_offset(const Options *o, int rank);
void plan_rank(RankPlan *p, const Options *o, int rank);
uint64_t steps_for_size(const Options *o);

#endif
