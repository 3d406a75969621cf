/*
 * model.h — the in-memory trace model shared by the loader and the analyses.
 *
 * Why columnar: analyses scan one or two fields of millions of events; keeping
 * each field in its own array makes those scans cache-friendly and keeps the
 * per-event cost under ~100 bytes (a JSON event is ~350 bytes on disk).
 * Strings are interned once in a string table shared by all ranks, so names
 * compare by id across ranks.  Everything a field cannot hold stays reachable
 * as the byte range of the event's raw `args` JSON in the decompressed file.
 *
 * Times are int64 nanoseconds, parsed exactly from the microsecond decimals
 * in the file (no floating point).  The loader never rounds; HTA's rounding
 * is applied by kt_apply_hta_compat() when asked for.
 */
#ifndef KT_MODEL_H
#define KT_MODEL_H

#include "../kineta.h"
#include <stdbool.h>
#include <string.h>

#define KT_NONE UINT32_MAX  /* "no event" / "no string" / "no arg" */
/* Event ids and typed-arg indices are 32-bit, KT_NONE excluded: a rank
 * holds at most this many events, and this many typed args.  A load that
 * would need more fails with a message naming the limit.                 */
#define KT_EVENTS_MAX ((size_t)UINT32_MAX - 1)
#define KT_ARGS_MAX ((size_t)UINT32_MAX - 1)

/* ---- string table (model/strtab.c) ---------------------------------------
 * One id space for every string of every rank.  Interning is thread-safe so
 * parser threads can share it; lookups of interned ids need no lock.        */
typedef struct kt_strtab kt_strtab;
kt_strtab *kt_strtab_new(void);
void kt_strtab_free(kt_strtab *t);
/* Returns KT_NONE only on allocation failure. */
uint32_t kt_strtab_intern(kt_strtab *t, const char *s, size_t len);
/* Id of an already interned string, or KT_NONE. */
uint32_t kt_strtab_find(const kt_strtab *t, const char *s, size_t len);
const char *kt_strtab_get(const kt_strtab *t, uint32_t id); /* NUL-terminated */
size_t kt_strtab_len(const kt_strtab *t, uint32_t id);
size_t kt_strtab_count(const kt_strtab *t);
size_t kt_strtab_bytes(const kt_strtab *t);

/* s begins with prefix (names and categories are matched by prefix). */
static inline bool kt_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- event kinds ----------------------------------------------------------
 * Derived from ph + category at load time (legacy 2021 categories are
 * normalized: Operator→cpu_op, Runtime→cuda_runtime, Kernel→kernel,
 * Memcpy→gpu_memcpy, Memset→gpu_memset, flow cat async→ac2g).  GPU events
 * are identified by kind, never by stream or pid.                           */
typedef enum kt_kind {
    KT_K_OTHER = 0,        /* complete event of an unrecognized category       */
    KT_K_CPU_OP,           /* cpu_op / Operator                                */
    KT_K_USER_ANNOTATION,  /* user_annotation (incl. ProfilerStep#N)           */
    KT_K_PYTHON_FUNCTION,  /* python_function                                  */
    KT_K_RUNTIME,          /* cuda_runtime / Runtime / mtia_runtime / *_runtime */
    KT_K_DRIVER,           /* cuda_driver                                      */
    KT_K_KERNEL,           /* kernel / Kernel / mtia_ccp_events                */
    KT_K_MEMCPY,           /* gpu_memcpy / Memcpy                              */
    KT_K_MEMSET,           /* gpu_memset / Memset                              */
    KT_K_CUDA_SYNC,        /* cuda_sync                                        */
    KT_K_GPU_ANNOTATION,   /* gpu_user_annotation                              */
    KT_K_PROFILER_RANGE,   /* cuda_profiler_range (CUPTI range profiler)       */
    KT_K_TRACE_SPAN,       /* cat "Trace" (the "PyTorch Profiler (0)" span)    */
    KT_K_FLOW_START,       /* ph s                                             */
    KT_K_FLOW_END,         /* ph f (and t)                                     */
    KT_K_INSTANT,          /* ph i / I                                         */
    KT_K_COUNTER,          /* ph C                                             */
    KT_K_METADATA,         /* ph M                                             */
    KT_K__COUNT
} kt_kind;

static inline bool kt_kind_is_gpu(uint8_t k)
{
    return k == KT_K_KERNEL || k == KT_K_MEMCPY || k == KT_K_MEMSET;
}

/* Kind of an event from its ph and category as written; *normalized is the
 * category to store instead (legacy names), or NULL to keep it as written.
 * Flow events: the flow id is stored in `corr`.                             */
kt_kind kt_kind_of(char ph, const char *cat, size_t len, const char **normalized);

/* ---- typed args -----------------------------------------------------------
 * Only the args the analyses need are parsed into typed values; an event's
 * typed args are a contiguous run rank->args[ev.argi .. ev.argi+ev.nargs).
 * Events with identical args may share one run (the loader stores a
 * repeated run once), so runs are read-only and not in event order.
 * The stream (beside pid and tid), correlation and External id are kept
 * with the event (kt_events), not as args.                                 */
typedef enum kt_arg_key {
    KT_ARG_DEVICE = 1, KT_ARG_CONTEXT, KT_ARG_QUEUED,
    KT_ARG_BYTES,                  /* "bytes"; ROCm copy calls' "size" (string) */
    KT_ARG_MEMORY_BW_GBPS,         /* "memory bandwidth (GB/s)" (float)      */
    KT_ARG_GRID_X, KT_ARG_GRID_Y, KT_ARG_GRID_Z,
    KT_ARG_BLOCK_X, KT_ARG_BLOCK_Y, KT_ARG_BLOCK_Z,
    KT_ARG_REGISTERS_PER_THREAD, KT_ARG_SHARED_MEMORY,
    KT_ARG_BLOCKS_PER_SM,          /* float */
    KT_ARG_WARPS_PER_SM,           /* float */
    KT_ARG_OCCUPANCY_PCT,          /* "est. achieved occupancy %" (float)    */
    KT_ARG_KIND,                   /* string (AMD memcpy kind etc.)          */
    KT_ARG_KERNEL,                 /* string (ROCm launch: kernel name)      */
    KT_ARG_CBID, KT_ARG_CID,
    KT_ARG_SEQUENCE_NUMBER, KT_ARG_FWD_THREAD_ID,
    KT_ARG_PYTHON_ID, KT_ARG_PYTHON_PARENT_ID,
    KT_ARG_WAIT_ON_STREAM, KT_ARG_WAIT_ON_EVENT_RECORD_CORR,
    KT_ARG_COLLECTIVE_NAME,        /* string */
    KT_ARG_IN_MSG_NELEMS, KT_ARG_OUT_MSG_NELEMS,
    KT_ARG_DTYPE,                  /* string */
    KT_ARG_GROUP_SIZE,
    KT_ARG_PG_NAME, KT_ARG_PG_DESC,/* strings */
    KT_ARG_PG_RANKS,               /* raw JSON text as string                */
    KT_ARG_IN_SPLIT_SIZE, KT_ARG_OUT_SPLIT_SIZE, /* raw JSON text            */
    KT_ARG_RANK,                   /* "Rank" (process rank in collectives)   */
    KT_ARG_TRACE_ITERATION,
    KT_ARG_META_NAME,              /* M events: args.name (string)           */
    KT_ARG_META_SORT_INDEX,        /* M events: args.sort_index              */
    KT_ARG_RAW_STREAM,             /* "stream" too big for the stream column
                                      (CUDA writes 4294967295 on device-wide
                                      syncs; HTA counts it as a stream)     */
    KT_ARG_SEQ,                    /* "Seq": c10d collective sequence number  */
    KT_ARG__COUNT,
    /* cuda_profiler_range, counter (ph C) and instant (ph i, e.g. [memory])
     * events keep every arg:
     * key = KT_ARG_DYNAMIC + strtab id of the arg's key.                    */
    KT_ARG_DYNAMIC = 1u << 16
} kt_arg_key;

typedef enum { KT_ARGT_INT = 0, KT_ARGT_FLOAT, KT_ARGT_STR } kt_arg_type;

/* 12 bytes, not 16: a trace holds ~2 typed args per event, and every byte
 * of the model is a page the kernel must fault in and free again (~4 us
 * per 4 KiB page here).  The value is 4-byte aligned: packed, so the
 * compiler reads it with unaligned-safe loads.  Keys are below 2^29
 * (KT_ARG_DYNAMIC + a string id; the string table holds < 2^28).        */
#define KT_ARG_KEY_BITS 29
typedef struct __attribute__((packed, aligned(4))) kt_arg {
    uint32_t key : KT_ARG_KEY_BITS; /* kt_arg_key or KT_ARG_DYNAMIC + id */
    uint32_t type : 3;              /* kt_arg_type */
    union {
        int64_t i;
        double f;
        uint32_t s; /* strtab id */
    } v;
} kt_arg;
_Static_assert(sizeof(kt_arg) == 12, "kt_arg is 12 bytes");

/* Whether args key k[0..n) (as written) names one of the four shape lists
 * record_shapes writes: the loader notes them (kt_rank.shape_args), the
 * perf model reads them (analysis/perf/op_args.c).                       */
#define KT_SHAPE_KEY_MIN 10 /* bytes of the shortest */
static inline bool kt_shape_key(const char *k, size_t n)
{
    return (n == 10 && (!memcmp(k, "Input Dims", 10) || !memcmp(k, "Input type", 10))) ||
           (n == 13 && !memcmp(k, "Input Strides", 13)) || (n == 15 && !memcmp(k, "Concrete Inputs", 15));
}

/* ---- per-rank columnar event table (model/events.c) ---------------------- */
/* pid/tid may be strings in the file ("stream 7", "Spans"): such values are
 * given as KT_STRID_TAG | strtab id by kt_event_pid / kt_event_tid.         */
#define KT_STRID_TAG ((int64_t)1 << 62)
static inline bool kt_id_is_str(int64_t v) { return v >= KT_STRID_TAG; }
static inline uint32_t kt_id_str(int64_t v) { return (uint32_t)(v & 0xffffffff); }

/* The id columns (pid, tid, corr, ext_id) are 32-bit: values in
 * [KT_ID_SMALL_MIN, KT_ID_SMALL_MAX] as themselves, any other value
 * (strings as above, numbers beyond) as a reference to the rank's table of
 * such values (model/ids.c): KT_ID_SMALL_MAX + 1 + its index for values
 * above, INT32_MIN + its index for values below, so a column value has the
 * sign of its original (corr >= 0, corr != -1 test the column directly).
 * Equal values get equal column values within a rank, so the columns can
 * be compared and joined directly (not ordered: a reference sorts by its
 * index); read an original with kt_event_pid / _tid / _corr / _ext_id.   */
#define KT_ID_SMALL_MIN (-((int64_t)1 << 30))
#define KT_ID_SMALL_MAX (((int64_t)1 << 30) - 1)
#define KT_ID_REFS_MAX ((size_t)1 << 30)
typedef struct kt_idtab {
    int64_t *v;         /* original values, by index                          */
    size_t n, cap;
    uint32_t *slot;     /* hash of v: index or KT_NONE                        */
    size_t mask;
} kt_idtab;

#define KT_THREADS_MAX ((uint32_t)1 << 28) /* keeps the threads' hash size in 32 bits */
#define KT_THREAD_MEMO_BITS 5 /* kt_events.thread_memo: 32 recent threads */
#define KT_THREAD_MEMO (1u << KT_THREAD_MEMO_BITS)
/* Where an event ran: its pid and tid as id column values, and its stream
 * arg (-1 none; non-numeric stream args also -1).                       */
typedef struct kt_thread {
    int32_t pid, tid, stream;
} kt_thread;

typedef struct kt_events {
    size_t n, cap;
    int64_t *ts;        /* ns, as in the file (absolute)                    */
    int64_t *dur;       /* ns; -1 when the event has no dur                  */
    uint32_t *name;     /* strtab id (KT_NONE when absent)                   */
    uint32_t *cat;      /* strtab id of the normalized category              */
    uint8_t *ph;        /* 'X','i','s','f','C','M',...                       */
    uint8_t *kind;      /* kt_kind                                           */
    uint8_t *nargs;     /* number of typed args                              */
    uint32_t *thread;   /* the event's pid, tid and stream: a slot in threads */
    int32_t *corr;      /* correlation (flows: flow id); -1 none; as pid     */
    int32_t *ext_id;    /* External id; -1 none; as pid                      */
    uint32_t *argi;     /* first typed arg in rank->args; KT_NONE if none    */
    uint64_t *args_at;  /* the raw args object: kt_args_at(offset, length);
                           0 = none (kt_args_off, kt_args_len read it)   */
    /* The distinct (pid, tid, stream) triples, first seen first.  A trace
     * has a few dozen threads and streams, so an event's triple takes 4
     * bytes instead of 12: on this project's hosts the model's fresh pages
     * cost more than its parse.                                           */
    kt_thread *threads;
    uint32_t nthreads, cap_threads;
    uint32_t *thread_slots; /* hash of threads: slot + 1, 0 empty; NULL
                               while threads is a cache mapping's (the
                               first new triple copies it: threads_owned) */
    uint32_t thread_mask;
    /* the slots last put, by kt_thread_memo_of: most events repeat one of
     * the few threads and streams just seen                              */
    uint32_t thread_memo[KT_THREAD_MEMO];
    bool threads_owned;     /* threads and thread_slots are malloc'd       */
    bool mapped;        /* the columns point into a cache file mapping
                           (load/cache_map.c): not freed, not grown      */
} kt_events;

/* An event's pid and tid as id column values (see KT_ID_SMALL_MIN): equal
 * values, equal column values; kt_event_pid / _tid give the originals.
 * Its stream: -1 none.                                                    */
static inline int32_t kt_ev_pid(const kt_events *e, size_t i) { return e->threads[e->thread[i]].pid; }
static inline int32_t kt_ev_tid(const kt_events *e, size_t i) { return e->threads[e->thread[i]].tid; }
static inline int32_t kt_ev_stream(const kt_events *e, size_t i) { return e->threads[e->thread[i]].stream; }
/* (pid, tid) as one key, ordered as the column values are. */
static inline uint64_t kt_ev_thread_key(const kt_events *e, size_t i)
{
    return (uint64_t)(uint32_t)kt_ev_pid(e, i) << 32 | (uint32_t)kt_ev_tid(e, i);
}
static inline bool kt_thread_is(const kt_thread *t, int32_t pid, int32_t tid, int32_t stream)
{
    return t->pid == pid && t->tid == tid && t->stream == stream;
}
/* Empties the threads table (the rows' slots go stale: for a reused rank). */
void kt_events_clear_threads(kt_events *e);
/* The slot of (pid, tid, stream), added when new; KT_NONE on OOM. */
uint32_t kt_events_thread_add(kt_events *e, int32_t pid, int32_t tid, int32_t stream);
static inline uint32_t kt_thread_memo_of(int32_t tid, int32_t stream)
{
    return ((uint32_t)tid * 0x9e3779b1u + (uint32_t)stream) * 0x85ebca6bu >> (32 - KT_THREAD_MEMO_BITS);
}
static inline uint32_t kt_events_thread(kt_events *e, int32_t pid, int32_t tid, int32_t stream)
{
    uint32_t s = e->thread_memo[kt_thread_memo_of(tid, stream)];
    if (s < e->nthreads && kt_thread_is(&e->threads[s], pid, tid, stream)) return s;
    return kt_events_thread_add(e, pid, tid, stream);
}
/* Gives event i another stream (false on OOM). */
bool kt_events_set_stream(kt_events *e, size_t i, int32_t stream);

/* Where an event's raw args object is in the file, in one word: 24 bits of
 * length under 40 bits of byte offset (a 1 TiB stream, args of 16 MiB).
 * Eight bytes an event instead of twelve: on this project's hosts the
 * model's fresh pages cost more than its parse.  Objects out of range are
 * not kept (the loader says so); typed args are kept either way.          */
#define KT_ARGS_LEN_BITS 24
#define KT_ARGS_LEN_MAX (((uint64_t)1 << KT_ARGS_LEN_BITS) - 1)
#define KT_ARGS_OFF_MAX (((uint64_t)1 << (64 - KT_ARGS_LEN_BITS)) - 1)
static inline uint64_t kt_args_at(uint64_t off, uint64_t len)
{
    return off << KT_ARGS_LEN_BITS | len;
}
static inline uint64_t kt_args_at_off(uint64_t at) { return at >> KT_ARGS_LEN_BITS; }
static inline uint32_t kt_args_at_len(uint64_t at) { return (uint32_t)(at & KT_ARGS_LEN_MAX); }
/* Byte offset of event i's raw args object (0: none) and its length. */
static inline uint64_t kt_args_off(const kt_events *e, size_t i) { return kt_args_at_off(e->args_at[i]); }
static inline uint32_t kt_args_len(const kt_events *e, size_t i) { return kt_args_at_len(e->args_at[i]); }

/* Facts about a rank's events as a whole (model/event_summary.c): kept by
 * the loader as it stores each event, so that no pass over every event is
 * needed for them afterwards.                                              */
typedef struct kt_event_summary {
    int64_t first_ts, last_end; /* span of the timed (non-M) events;
                                   first_ts INT64_MAX when there are none */
    int64_t origin;             /* HTA's origin (A2.10): earliest complete
                                   event with a category except the "Trace"
                                   span; INT64_MAX when none               */
    bool gpu_work;              /* a kernel, memcpy or memset             */
    bool hip_calls, cuda_calls, mtia_calls; /* runtime/driver calls named
                                   hip*, cu*, or with an mtia* category    */
    uint32_t last_call_name;    /* memo for the name check                */
} kt_event_summary;

typedef enum { KT_DEV_UNKNOWN = 0, KT_DEV_CUDA, KT_DEV_ROCM, KT_DEV_MTIA, KT_DEV_CPU_ONLY } kt_device_type;

struct kt_index; /* model/index.h */

typedef struct kt_hta_rows kt_hta_rows; /* hta_rows.h */

typedef struct kt_rank {
    int rank;           /* from distributedInfo, file name, or explicit       */
    int world_size;     /* -1 unknown                                         */
    char *file;         /* path as given                                      */
    bool gzip;
    uint64_t file_bytes, json_bytes;

    kt_events ev;
    kt_idtab ids;       /* pid/tid values the 32-bit columns cannot hold */
    kt_arg *args;
    size_t nargs, cap_args;

    /* counts as written in the file (before normalization / compat) */
    uint64_t total_events;      /* every entry of traceEvents            */
    uint64_t by_ph[128];        /* by ph character                       */
    uint32_t *xcat_id;          /* complete events by raw category:      */
    uint64_t *xcat_count;       /*   parallel arrays, nxcat entries      */
    size_t nxcat;

    /* Set by the loader: some event's ts was written as a JSON float
     * ('.', 'e' or 'E' in the number) or some event had no ts.  pandas then
     * makes HTA's ts column float and HTA rounds the rank's times (A2.3);
     * kt_apply_hta_compat() rounds only such ranks.                         */
    bool ns_resolution;
    /* Set by the loader: some args object has one of the keys
     * record_shapes writes ("Input Dims", "Input type", "Input Strides",
     * "Concrete Inputs") or a key of 10 bytes or more written with escapes,
     * which could spell one.  Without it no op's args hold shapes: kineta
     * perf reads no args text back from the file (a fourth of its time on
     * top of the load).                                                    */
    bool shape_args;

    /* Offset of the ']' closing traceEvents in the decompressed JSON, 0 if
     * the file ends inside it: where writers of trace copies (counters)
     * insert their events.                                                  */
    uint64_t events_end;
    /* Offset of the '[' opening traceEvents (0 if never seen): with
     * events_end, the bytes writers that copy events verbatim take, so a
     * damaged top level before it is never mistaken for the array.        */
    uint64_t events_open;

    /* top-level metadata */
    char *meta_json;            /* every top-level key except traceEvents,
                                   as one JSON object (raw value text)   */
    int64_t schema_version;     /* -1 absent */
    bool has_base_time;
    int64_t base_time_ns;
    kt_device_type device_type;
    kt_event_summary summary;   /* of ev, see kt_summary_scan_rows         */
    uint32_t backend;           /* distributedInfo.backend strid or KT_NONE */
    uint32_t *device_names;     /* deviceProperties[].name strids         */
    size_t ndevices;

    struct kt_index *idx;       /* built by kt_index_build()              */

    /* Set by kt_apply_hta_compat(): event 0 is the row HTA labels 0, the
     * first entry of traceEvents (the loader stored every entry, and HTA
     * kept that one).  HTA's idle breakdown takes the launch time of a
     * kernel whose launch is missing from that row (docs/timeline.md).   */
    bool hta_row0_kept;
    /* Under --hta-compat, the rows HTA keeps as the loader read them, until
     * kt_apply_hta_compat() has used them (NULL: read them there).       */
    kt_hta_rows *hta_rows;

    /* A rank read from the columnar cache (load/cache_map.c): its mapping,
     * unmapped by kt_rank_free; args points into it (not freed, not grown)
     * and ev.mapped is set until kt_events_select gives owned columns.   */
    void *cache_map;
    size_t cache_map_len;
} kt_rank;

struct kt_diags {
    kt_diag *d;
    size_t n, cap;
};

struct kt_trace {
    kt_strtab *strs;
    kt_rank **ranks;  /* sorted by rank */
    size_t nranks;
    kt_diags diags;
    bool hta_compat;
    int64_t min_ts;   /* global min ts over ranks (ns), cross-rank origin */
};

/* Fault in [p, p + n) before writing a large fresh destination (prefault.c). */
void kt_prefault(void *p, size_t n);
/* malloc(n) (never 0 bytes) with its pages faulted in: for an array the
 * caller goes on to write whole (prefault.c); free() it.                  */
void *kt_alloc_written(size_t n);
/* fn(a) and fn(b): at once on two threads when two (and a thread starts),
 * else one after the other on this thread (run_pair.c).                  */
void kt_run_pair(void *(*fn)(void *), void *a, void *b, bool two);
/* Array of n uint32 filled with KT_NONE (n may be 0); NULL on OOM (index.c). */
uint32_t *kt_none_array(size_t n);

/* ---- builders used by the loader (model/events.c) ------------------------ */
kt_rank *kt_rank_new(void);
void kt_rank_free(kt_rank *r);
/* Room for want events in every column (false on OOM or past KT_EVENTS_MAX). */
bool kt_events_reserve(kt_events *e, size_t want);
/* Room for want events, and rows [e->n, want) given kt_events_push's
 * defaults in the columns kt_events_push_unset sets: a loader that keeps
 * rows ready this way appends one with e->n++ (false on OOM).             */
bool kt_events_ready(kt_events *e, size_t want);
/* kt_events_ready, and the other columns of those rows faulted in at once
 * (prefault.c: cheaper than a fault a page), for a writer that knows how
 * many rows come.                                                        */
bool kt_events_ready_written(kt_events *e, size_t want);
/* Append one event whose ts, dur, name, cat, ph, kind and thread the
 * caller sets before anything reads them: the other columns get
 * kt_events_push's defaults.
 * Its index, or KT_NONE on allocation failure.                           */
static inline uint32_t kt_events_push_unset(kt_events *e)
{
    if (e->n == e->cap && !kt_events_reserve(e, e->n + 1)) return KT_NONE;
    size_t i = e->n++;
    e->nargs[i] = 0;
    e->corr[i] = -1;
    e->ext_id[i] = -1;
    e->argi[i] = KT_NONE;
    e->args_at[i] = 0;
    return (uint32_t)i;
}
/* Append one event; returns its index or KT_NONE on allocation failure.
 * Columns default to: dur -1, name/cat KT_NONE, pid/tid 0, stream -1,
 * corr -1, ext_id -1, argi KT_NONE, nargs 0, args_at 0.                  */
static inline uint32_t kt_events_push(kt_events *e)
{
    uint32_t i = kt_events_push_unset(e);
    if (i == KT_NONE) return KT_NONE;
    e->ts[i] = 0;
    e->dur[i] = -1;
    e->name[i] = KT_NONE;
    e->cat[i] = KT_NONE;
    e->ph[i] = 0;
    e->kind[i] = KT_K_OTHER;
    if ((e->thread[i] = kt_events_thread(e, 0, 0, -1)) == KT_NONE) {
        e->n--;
        return KT_NONE;
    }
    return i;
}
/* Room for n typed args in all (false on OOM or past KT_ARGS_MAX). */
bool kt_rank_reserve_args(kt_rank *r, size_t n);
/* r can take events more events and args more typed args without passing
 * KT_EVENTS_MAX or KT_ARGS_MAX (what tells a load that failed at the
 * limits from one out of memory).                                        */
static inline bool kt_rank_fits(const kt_rank *r, size_t events, size_t args)
{
    return events <= KT_EVENTS_MAX - r->ev.n && args <= KT_ARGS_MAX - r->nargs;
}
/* Append a typed arg to the LAST pushed event. Returns false on OOM or
 * when the event has 255 args already.  Inline: the loader calls it for
 * most events, several times each.                                       */
static inline bool kt_rank_push_arg(kt_rank *r, uint32_t key, kt_arg_type type, int64_t i, double f,
                                    uint32_t s)
{
    size_t ev = r->ev.n - 1;
    if (r->ev.n == 0 || r->ev.nargs[ev] == UINT8_MAX) return false;
    if (r->nargs == r->cap_args && !kt_rank_reserve_args(r, r->nargs + 1)) return false;
    kt_arg *a = &r->args[r->nargs];
    a->key = key;
    a->type = type;
    if (type == KT_ARGT_INT) a->v.i = i;
    else if (type == KT_ARGT_FLOAT) a->v.f = f;
    else {
        a->v.i = 0; /* all 12 bytes defined: the loader compares runs bytewise */
        a->v.s = s;
    }
    if (r->ev.nargs[ev] == 0) r->ev.argi[ev] = (uint32_t)r->nargs;
    r->ev.nargs[ev]++;
    r->nargs++;
    return true;
}
/* Column value for an id v (false on OOM or table full); inline for the
 * usual small values, the side table for the others.                     */
bool kt_rank_id_put_big(kt_rank *r, int64_t v, int32_t *out);
static inline bool kt_rank_id_put(kt_rank *r, int64_t v, int32_t *out)
{
    if (v >= KT_ID_SMALL_MIN && v <= KT_ID_SMALL_MAX) {
        *out = (int32_t)v;
        return true;
    }
    return kt_rank_id_put_big(r, v, out);
}
void kt_idtab_free(kt_idtab *t);
/* The original value of an id column value. */
static inline int64_t kt_rank_id_get(const kt_rank *r, int32_t s)
{
    if (s > KT_ID_SMALL_MAX) return r->ids.v[(int64_t)s - KT_ID_SMALL_MAX - 1];
    return s >= KT_ID_SMALL_MIN ? s : r->ids.v[(int64_t)s - INT32_MIN];
}
static inline int64_t kt_event_pid(const kt_rank *r, uint32_t ev) { return kt_rank_id_get(r, kt_ev_pid(&r->ev, ev)); }
static inline int64_t kt_event_tid(const kt_rank *r, uint32_t ev) { return kt_rank_id_get(r, kt_ev_tid(&r->ev, ev)); }
static inline int64_t kt_event_corr(const kt_rank *r, uint32_t ev) { return kt_rank_id_get(r, r->ev.corr[ev]); }
static inline int64_t kt_event_ext_id(const kt_rank *r, uint32_t ev) { return kt_rank_id_get(r, r->ev.ext_id[ev]); }
/* Append all events/args of src to dst (used to join parallel chunks);
 * false on OOM or when dst cannot fit them (kt_rank_fits).               */
bool kt_rank_append(kt_rank *dst, const kt_rank *src);

/* Keep rows ids[0..n) of e, in that order (ids may repeat); args stay in
 * place, on up to `threads` threads (1: this one only) with the same
 * result.  Invalidates indexes: rebuild them.  Returns false on OOM.     */
bool kt_events_select(kt_events *e, const uint32_t *ids, size_t n, int threads);

/* ---- typed arg lookup ---------------------------------------------------- */
const kt_arg *kt_event_arg(const kt_rank *r, uint32_t ev, uint32_t key);
int64_t kt_event_arg_int(const kt_rank *r, uint32_t ev, uint32_t key, int64_t dflt);
double kt_event_arg_float(const kt_rank *r, uint32_t ev, uint32_t key, double dflt);
uint32_t kt_event_arg_str(const kt_rank *r, uint32_t ev, uint32_t key); /* KT_NONE */

/* ---- event summary (model/event_summary.c) ------------------------------ */
void kt_summary_reset(kt_event_summary *s);
void kt_summary_note_call(kt_event_summary *s, const kt_strtab *strs, uint32_t name, uint32_t cat);
/* Fold one stored event in (inline: the loader calls it for every event). */
static inline void kt_summary_add(kt_event_summary *s, const kt_strtab *strs, char ph, uint8_t kind,
                                  uint32_t cat, uint32_t name, int64_t ts, int64_t dur)
{
    /* branches, not selects: past the first events, first_ts and origin
     * rarely change, and ts < origin rules most events out at once       */
    if (ph != 'M') {
        int64_t end = ts + (dur > 0 ? dur : 0);
        if (ts < s->first_ts) s->first_ts = ts;
        if (end > s->last_end) s->last_end = end;
    }
    if (ts < s->origin && ph == 'X' && cat != KT_NONE && kind != KT_K_TRACE_SPAN) s->origin = ts;
    if (kt_kind_is_gpu(kind)) s->gpu_work = true;
    if (kind == KT_K_RUNTIME || kind == KT_K_DRIVER) kt_summary_note_call(s, strs, name, cat);
}
void kt_summary_merge(kt_event_summary *dst, const kt_event_summary *src);
/* Summarize r's events again (after changing them); _rows: only rows
 * ids[0..n) (those about to replace them; NULL: the first n).            */
void kt_summary_scan(kt_rank *r, const kt_strtab *strs);
void kt_summary_scan_rows(kt_rank *r, const kt_strtab *strs, const uint32_t *ids, size_t n);
/* The span of the timed events; false when there are none. */
bool kt_summary_span(const kt_event_summary *s, int64_t *first, int64_t *last);
kt_device_type kt_summary_device_type(const kt_rank *r, const kt_strtab *strs);

/* ---- rank selection (model/rank_select.c): NULL/empty selects all ---- */
bool kt_rank_selected(const kt_rank_sel *sel, int rank);

/* ---- raw args text (load/raw_args.c) ---------------------------------------
 * Args the model does not type stay in the file: these re-read an event's
 * raw args object (plain files: one pread; gzip: decompressed again up to
 * it).  KT_EINPUT when the event has no args, or the file is gone or has
 * changed, or the trace came from kt_load_buffer with a name that is not
 * the file.  A reader is cheapest used in file order (kt_args_off).           */
typedef struct kt_args_reader kt_args_reader;
kt_status kt_args_reader_open(const kt_rank *r, kt_args_reader **out);
/* *text (NUL-terminated) stays valid until the next call or close. */
kt_status kt_args_reader_get(kt_args_reader *rd, uint32_t ev, const char **text, size_t *len);
void kt_args_reader_close(kt_args_reader *rd);
/* One event's args text, malloc'ed (free it). */
kt_status kt_event_args_json(const kt_rank *r, uint32_t ev, char **text, size_t *len);

/* ---- diagnostics (model/diags.c) ---------------------------------------- */
bool kt_diags_add(kt_diags *d, kt_diag_level lvl, const char *file, int64_t offset,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void kt_diags_clear(kt_diags *d);
/* The public calls' error convention (docs/api.md): a call taking
 * kt_diags **diags first sets *diags to NULL (kt_diags_begin), then puts
 * its failure's reason there as an error (kt_diags_fail: the list is made
 * on first use; nothing when diags is NULL or the message is empty).     */
void kt_diags_begin(kt_diags **diags);
void kt_diags_fail(kt_diags **diags, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- options structs (model/options.c, docs/api.md) -----------------------
 * Every public options struct starts with size_t size, the caller's sizeof.
 * kt_options_init fills the caller's o (size bytes) from the library's
 * defaults d (dsize bytes): fields the library does not know stay zero.
 * kt_options_take lays the caller's opt (may be NULL) over o, which holds
 * the defaults: only the fields inside opt->size; false when that size is
 * unset (0) or larger than osize (a newer header than this library).      */
void kt_options_init(void *o, size_t size, const void *d, size_t dsize);
bool kt_options_take(void *o, size_t osize, const void *opt);

#endif /* KT_MODEL_H */
