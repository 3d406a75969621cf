/*
 * kineta.h — the one public header of libkineta.
 *
 * libkineta loads PyTorch-profiler (Kineto) Chrome-trace files into a compact
 * columnar model and runs trace analyses on it.  Design rules (why they matter):
 *   - opaque handles and explicit error returns: callers embed us in tools,
 *     services and bindings, so we never print, never exit, keep no globals;
 *   - every analysis returns named result tables (kt_tables); the CLI only
 *     formats them, so anything the CLI shows is reachable from C.
 */
#ifndef KINETA_H
#define KINETA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KINETA_VERSION "0.1.0"

/* ---- status codes (also the CLI exit codes where they overlap) ---------- */
typedef enum {
    KT_OK = 0,
    KT_EANALYSIS = 1, /* analysis could not produce a result              */
    KT_EUSAGE = 2,    /* bad argument / option                            */
    KT_EINPUT = 3,    /* input unreadable, not a Kineto trace, corrupt    */
    KT_ENOMEM = 4     /* out of memory (CLI maps it to 1)                 */
} kt_status;

const char *kt_status_str(kt_status s);

/* ---- conventions (docs/api.md) --------------------------------------------
 * Errors: every call that can fail returns a kt_status.  A call that can say
 * why takes a last parameter kt_diags **diags: NULL when the caller does not
 * want the reasons, else the call sets *diags to NULL or to a list of
 * messages (the failure's reason at KT_DIAG_ERROR; warnings may come with
 * KT_OK) that the caller frees with kt_diags_free.  The library writes
 * nothing else the caller gave it: options are const and may be shared by
 * threads.
 * Options: every options struct starts with size_t size, the sizeof the
 * struct as the caller's kineta.h declares it; kt_<name>_defaults() (inline,
 * so sizeof is the caller's) returns the defaults with size set.  The
 * library reads only the fields inside size and takes the defaults for the
 * rest, so a program built against an older header keeps working after
 * fields are added at the end.  size 0 (not set) or larger than the
 * library's struct (a newer header): KT_EUSAGE.  NULL options = defaults. */

/* ---- diagnostics: what the loader found wrong, never printed by us ------- */
typedef enum { KT_DIAG_INFO, KT_DIAG_WARNING, KT_DIAG_ERROR } kt_diag_level;

typedef struct kt_diag {
    kt_diag_level level;
    const char *file;    /* path the problem is in, or NULL               */
    int64_t offset;      /* byte offset in the (decompressed) JSON, or -1 */
    const char *message; /* one line, no trailing newline                 */
} kt_diag;

/* ---- loading ------------------------------------------------------------- */
typedef struct kt_trace kt_trace; /* all loaded ranks; opaque */

typedef void (*kt_progress_fn)(void *user, uint64_t bytes_done, uint64_t bytes_total);

typedef struct kt_load_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int jobs;               /* worker threads; 0 = number of online cores    */
    int hta_compat;         /* reproduce HTA load semantics (ns rounding,
                               incomplete-iteration filtering)                */
    const int *ranks;       /* explicit rank per path (npaths entries) or NULL */
    kt_progress_fn progress;/* optional, called from the loading threads      */
    void *progress_user;
    /* Columnar cache (docs/cache.md): NULL = none; else a directory (created
     * if missing) where each parsed file's model is kept, keyed by the
     * file's path, size, mtime, inode and a hash of its first and last MiB;
     * later loads of an unchanged file map it instead of parsing.  A stale,
     * truncated, foreign or other-version cache file is rebuilt, never
     * trusted.  The cache holds the model as written (before --hta-compat),
     * so both modes share it.  kt_cache_default_dir gives the usual place. */
    const char *cache_dir;
    /* Entries of ranks: 0 = npaths (one per path); else one per trace file
     * the paths stand for, in the order they are found (a directory's files
     * in name order), so that a directory's files get ranks of their own.  */
    size_t nranks;
    /* Globs (fnmatch) on file names: a directory path's files matching one
     * are not loaded.  Copies kineta wrote beside their traces (overlays,
     * counter traces, which name their source) are never loaded from a
     * directory.  Files named as paths are loaded whatever their name.     */
    const char *const *exclude;
    size_t nexclude;
} kt_load_options;
void kt_load_options_init(kt_load_options *o, size_t size);
static inline kt_load_options kt_load_defaults(void)
{ kt_load_options o; kt_load_options_init(&o, sizeof o); return o; }

/* The default cache directory: $XDG_CACHE_HOME/kineta, else
 * $HOME/.cache/kineta.  KT_EUSAGE when neither variable is set or buf
 * (cap bytes) is too small.                                                 */
kt_status kt_cache_default_dir(char *buf, size_t cap);

/* Load one or more paths (files or directories).  On KT_OK *out is the trace.
 * Diagnostics (warnings about recovered damage, errors) are kept and can be
 * read with kt_diag_count/kt_diag_get on the trace, or — when loading failed
 * and *out is NULL — from *failure (free it with kt_diags_free).            */
typedef struct kt_diags kt_diags;
kt_status kt_load(const char *const *paths, size_t npaths, const kt_load_options *opt,
                  kt_trace **out, kt_diags **failure);
/* Load one trace from memory (plain or gzip JSON, detected by magic bytes);
 * name is used in diagnostics and for rank detection from a file name.
 * opt->ranks, when given, holds the one explicit rank.                      */
kt_status kt_load_buffer(const char *name, const void *buf, size_t len, const kt_load_options *opt,
                         kt_trace **out, kt_diags **failure);
void kt_trace_free(kt_trace *t);

size_t kt_diags_count(const kt_diags *d);
const kt_diag *kt_diags_get(const kt_diags *d, size_t i);
const kt_diags *kt_trace_diags(const kt_trace *t);
void kt_diags_free(kt_diags *d);

/* ---- result tables ------------------------------------------------------- */
typedef enum { KT_COL_INT, KT_COL_FLOAT, KT_COL_STR } kt_col_type;

typedef struct kt_table kt_table;   /* one named table: typed columns, rows  */
typedef struct kt_tables kt_tables; /* an ordered list of tables             */

const char *kt_table_name(const kt_table *t);
size_t kt_table_ncols(const kt_table *t);
size_t kt_table_nrows(const kt_table *t);
const char *kt_table_col_name(const kt_table *t, size_t col);
kt_col_type kt_table_col_type(const kt_table *t, size_t col);
/* Float columns carry a display precision (digits after the point); -1 means
 * shortest round-trip representation.                                       */
int kt_table_col_precision(const kt_table *t, size_t col);
/* The unit of a column whose name keeps a reference tool's unit-less name
 * (HTA's "sum", "idle_time", "cpu_duration_mean": "us"), else NULL; the
 * CLI shows it in table headers and JSON keys ("sum (us)", "sum_us").     */
const char *kt_table_col_unit(const kt_table *t, size_t col);
int kt_table_is_null(const kt_table *t, size_t row, size_t col);
int64_t kt_table_int(const kt_table *t, size_t row, size_t col);
double kt_table_float(const kt_table *t, size_t row, size_t col);
const char *kt_table_str(const kt_table *t, size_t row, size_t col);
/* Column index by name, or -1. */
long kt_table_col_index(const kt_table *t, const char *name);
/* A whole column at once, for bindings that build arrays (numpy, Arrow):
 * dst holds nrows values; null cells become 0 / NaN and, when nulls is not
 * NULL, nulls[row] = 1 (else 0).  Int columns read as floats convert; a
 * string column is KT_EUSAGE.                                               */
kt_status kt_table_ints(const kt_table *t, size_t col, int64_t *dst, uint8_t *nulls);
kt_status kt_table_floats(const kt_table *t, size_t col, double *dst, uint8_t *nulls);
/* Footnotes: lines that say how a table's figures were reached where that
 * is not what a reader expects — where kineta's default differs from a
 * reference tool's on this trace, how sure a verdict is, what a figure
 * leaves out (docs/differences.md).  The CLI prints them under the table
 * (text), in "footnotes" (json), on stderr (csv).                        */
size_t kt_table_nnotes(const kt_table *t);
const char *kt_table_note(const kt_table *t, size_t i); /* NULL past the end */

size_t kt_tables_count(const kt_tables *ts);
const kt_table *kt_tables_get(const kt_tables *ts, size_t i);
const kt_table *kt_tables_find(const kt_tables *ts, const char *name);
void kt_tables_free(kt_tables *ts);

/* ---- analyses -------------------------------------------------------------
 * Every analysis takes the trace, a rank selection (NULL/0 = every rank) and
 * its own options struct (NULL = defaults), and returns tables.             */
typedef struct kt_rank_sel {
    const int *ranks;
    size_t nranks;
} kt_rank_sel;

/* info: per-rank summary.  Tables: "ranks" (file, rank, world size, device
 * type and names, event totals, time span in ns, warnings), "events" (counts
 * as written in the file: by ph, and complete events by raw category),
 * "streams" (per device/stream event counts), "steps" (ProfilerStep#N on
 * the CPU and the GPU), "launch_apis" (runtime/driver calls that launched
 * GPU work, by name).                                                       */
kt_status kt_info(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out);

/* ---- kernel analyses: kernels, breakdown, categories --------------------- */

/* Kernel categories by name (rules and format: docs/categories.md).  A
 * categorizer starts with the built-in rules; rule text or files add to or
 * override them.  Errors in rule text: KT_EUSAGE and "line N: why" in
 * *diags.                                                                   */
typedef struct kt_categorizer kt_categorizer;
kt_status kt_categorizer_new(kt_categorizer **out);
kt_status kt_categorizer_add_rules(kt_categorizer *c, const char *text, kt_diags **diags);
/* As add_rules, from a file (KT_EINPUT when it cannot be read). */
kt_status kt_categorizer_load_rules(kt_categorizer *c, const char *path, kt_diags **diags);
/* Category of a kernel name ("Other" when no rule matches); the string
 * lives as long as c.                                                       */
const char *kt_categorize(const kt_categorizer *c, const char *kernel_name);
/* The built-in rules as rule-file text. */
const char *kt_categorizer_builtin_rules(void);
void kt_categorizer_free(kt_categorizer *c);

/* kernels: one row per kernel (or per --by key) with count, total, avg,
 * median, min, max, sample std, shares of launches / kernel time / GPU wall
 * time, category and HTA type; tables "kernels" and "summary".  Only GPU
 * work (kernel; with memory also memcpy/memset), never runtime calls.     */
typedef enum {
    KT_KSORT_COUNT,        /* launches                           */
    KT_KSORT_DURATION,     /* average duration                   */
    KT_KSORT_TOTAL,        /* total duration (default: HTA, nsys
                              and TraceLens all rank by it)      */
    KT_KSORT_PERCENTAGE,   /* % of launches (same order as count) */
    KT_KSORT_DURATION_PCT  /* % of kernel time (same as total)    */
} kt_kernel_sort;
typedef enum { KT_KBY_NAME, KT_KBY_SHORT, KT_KBY_CATEGORY, KT_KBY_TYPE, KT_KBY_LAUNCHER } kt_kernel_key;
typedef struct kt_kernels_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    kt_kernel_sort sort;
    kt_kernel_key by;       /* grouping key; names are full names unless KT_KBY_SHORT */
    size_t top;             /* rows kept; 0 = all                         */
    int memory;             /* include memcpy/memset                      */
    int full_names;         /* show full names instead of short forms     */
    int64_t pstep;          /* only ProfilerStep#pstep; -1 = everything   */
    const kt_categorizer *categorizer; /* NULL = built-in rules           */
} kt_kernels_options;
/* Defaults: sort by count, by name, top 10, kernels only, short names, all steps. */
void kt_kernels_options_init(kt_kernels_options *o, size_t size);
static inline kt_kernels_options kt_kernels_defaults(void)
{ kt_kernels_options o; kt_kernels_options_init(&o, sizeof o); return o; }
kt_status kt_kernels(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                     kt_tables **out);
/* kt_kernels over ranks loaded apart (--stream-ranks, MPI; docs/scaling.md):
 * map: t's selected ranks as a partial (tables: each kernel key as a string
 * with its sorted durations; serialize them to move them); reduce: the
 * partials of disjoint ranks, in rank order, to exactly kt_kernels's tables
 * over all of them.  A partial that is not one: KT_EINPUT.               */
kt_status kt_kernels_map(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                         kt_tables **partial);
kt_status kt_kernels_reduce(const kt_tables *const *partials, size_t n, const kt_kernels_options *opt,
                            kt_tables **out);

/* breakdown: HTA's get_gpu_kernel_breakdown (docs/kernels.md).  Tables
 * "kernel_type" (kernel_type,sum,percentage: time partitioned into types and
 * their overlaps, all ranks), "kernels" (name,sum (us),max (us),min (us),
 * stddev,mean (us),kernel_type,rank + count: per rank and type, the tail
 * folded into "others"), "distribution" (each top kernel's mean/min/max on
 * every rank) and "kernel_type_by_rank".  Statistics are real per-launch
 * statistics; under hta_compat HTA's folding bug and columns are kept.     */
typedef struct kt_breakdown_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    size_t num_kernels;     /* named kernels kept per rank and type (10)  */
    double duration_ratio;  /* HTA's cumulative-time quantile (0.8)        */
    int memory;             /* analyse MEMORY kernels too (1)              */
} kt_breakdown_options;
/* Defaults: HTA's (10 kernels, ratio 0.8, memory kernels included). */
void kt_breakdown_options_init(kt_breakdown_options *o, size_t size);
static inline kt_breakdown_options kt_breakdown_defaults(void)
{ kt_breakdown_options o; kt_breakdown_options_init(&o, sizeof o); return o; }
kt_status kt_breakdown(const kt_trace *t, const kt_rank_sel *sel, const kt_breakdown_options *opt,
                       kt_tables **out);
/* kt_breakdown over ranks loaded apart, as kt_kernels_map/_reduce; the
 * reduce is told whether the ranks were loaded with HTA's rules.         */
kt_status kt_breakdown_map(const kt_trace *t, const kt_rank_sel *sel, const kt_breakdown_options *opt,
                           kt_tables **partial);
kt_status kt_breakdown_reduce(const kt_tables *const *partials, size_t n, const kt_breakdown_options *opt,
                              int hta_compat, kt_tables **out);

/* categories: every kernel's kernel_category, attributed to its launching
 * CPU op.  Tables "kernels" (cpu_op,kernel_category,kernel_name,count,
 * total_time_ms,avg_time_us), "op_categories" (cpu_op,kernel_category,count,
 * total_time_ms,% of op time) and "categories" (per category).  Kernels
 * of graph launches are attributed to the graph launch call, kernels with
 * no launch link to "(unlinked)".                                           */
typedef struct kt_categories_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int memory;             /* include memcpy/memset (1)                   */
    int full_names;
    size_t top;             /* rows of "kernels" and "op_categories"; 0 = all */
    int64_t pstep;          /* -1 = everything                             */
    const kt_categorizer *categorizer; /* NULL = built-in rules            */
} kt_categories_options;
/* Defaults: memory included, short names, all rows, all steps. */
void kt_categories_options_init(kt_categories_options *o, size_t size);
static inline kt_categories_options kt_categories_defaults(void)
{ kt_categories_options o; kt_categories_options_init(&o, sizeof o); return o; }
kt_status kt_categories(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
                        kt_tables **out);
/* kt_categories over ranks loaded apart, as kt_kernels_map/_reduce: the
 * partial is per (launcher, kernel name) count and total, as strings.     */
kt_status kt_categories_map(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
                            kt_tables **partial);
kt_status kt_categories_reduce(const kt_tables *const *partials, size_t n, const kt_categories_options *opt,
                               kt_tables **out);

/* ---- timeline analyses: temporal, idle, overlap, gaps ------------------- */

/* temporal: where GPU time goes (HTA temporal breakdown, A4.1).  Table
 * "temporal_breakdown": rank, idle_time(us), compute_time(us),
 * non_compute_time(us), kernel_time(us), idle_time_pctg, compute_time_pctg,
 * non_compute_time_pctg; kernel_time is the span from the first GPU event
 * to the last, idle the holes in the union of GPU activity.  by_device /
 * by_step split rows (extra columns "device" / "step" after "rank").
 * tracelens: TraceLens's GPU timeline instead — table "gpu_timeline":
 * type, time ms, percent (a leading "rank" column when several ranks).    */
typedef struct kt_temporal_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int by_step;
    int by_device;
    int tracelens;
} kt_temporal_options;
void kt_temporal_options_init(kt_temporal_options *o, size_t size);
static inline kt_temporal_options kt_temporal_defaults(void)
{ kt_temporal_options o; kt_temporal_options_init(&o, sizeof o); return o; }
kt_status kt_temporal(const kt_trace *t, const kt_rank_sel *sel, const kt_temporal_options *opt,
                      kt_tables **out);

/* idle: why each GPU stream is idle (HTA idle time breakdown, A4.3).  Each
 * gap between consecutive GPU events of a stream is host_wait (the CPU
 * launched the next event after the previous one ended), kernel_wait (gap
 * below consecutive_kernel_delay_us) or other.  Tables "idle_time": rank,
 * stream, idle_category, idle_time, idle_time_ratio; "interval_stats":
 * idle_category, rank, stream, count, mean, std, min, 25%, 50%, 75%, max
 * (µs).  By default both also have a trailing "device" column.            */
typedef struct kt_idle_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    double consecutive_kernel_delay_us; /* default 30 */
    const int64_t *streams;             /* only these streams; NULL = all */
    size_t nstreams;
} kt_idle_options;
void kt_idle_options_init(kt_idle_options *o, size_t size);
static inline kt_idle_options kt_idle_defaults(void)
{ kt_idle_options o; kt_idle_options_init(&o, sizeof o); return o; }
kt_status kt_idle(const kt_trace *t, const kt_rank_sel *sel, const kt_idle_options *opt,
                  kt_tables **out);

/* overlap: share of communication time overlapped by computation (HTA
 * comm/comp overlap, A4.4).  Table "comm_comp_overlap": rank,
 * comp_comm_overlap_pctg (null when a rank has no communication); by_step
 * adds a "step" column and one row per rank and ProfilerStep.             */
typedef struct kt_overlap_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int by_step;
} kt_overlap_options;
void kt_overlap_options_init(kt_overlap_options *o, size_t size);
static inline kt_overlap_options kt_overlap_defaults(void)
{ kt_overlap_options o; kt_overlap_options_init(&o, sizeof o); return o; }
kt_status kt_overlap(const kt_trace *t, const kt_rank_sel *sel, const kt_overlap_options *opt,
                     kt_tables **out);

/* gaps: idle gaps between consecutive GPU events of each stream, and device
 * idle as the holes in the union of all GPU activity of a device.  Tables
 * "device_idle", "stream_gaps", "gap_histogram" (of the stream gaps) and
 * "transitions" (kernel A → kernel B: count, avg/max/min/std/total gap).  */
typedef enum {
    KT_GAP_SORT_TOTAL = 0, KT_GAP_SORT_COUNT, KT_GAP_SORT_AVG, KT_GAP_SORT_MAX, KT_GAP_SORT_STDEV
} kt_gap_sort;
typedef struct kt_gaps_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    double hist_min_us, hist_max_us; /* histogram range; <= 0: the data's */
    int bins;                        /* default 20 */
    int linear;                      /* equal-width bins (default log-spaced) */
    size_t top;                      /* transitions per rank; 0 = all */
    kt_gap_sort sort;
    int64_t step;                    /* only this ProfilerStep; -1 = all */
    int short_names;                 /* print pairs with short display names */
} kt_gaps_options;
/* The defaults (what NULL options mean): 20 log-spaced bins over the data's
 * range, top 15 pairs by total gap, every step, full names.                */
void kt_gaps_options_init(kt_gaps_options *o, size_t size);
static inline kt_gaps_options kt_gaps_defaults(void)
{ kt_gaps_options o; kt_gaps_options_init(&o, sizeof o); return o; }
kt_status kt_gaps(const kt_trace *t, const kt_rank_sel *sel, const kt_gaps_options *opt,
                  kt_tables **out);
/* kt_gaps over ranks loaded apart, as kt_kernels_map/_reduce: the partial
 * is the per-rank tables and the rank's gaps (ns) as sorted runs.        */
kt_status kt_gaps_map(const kt_trace *t, const kt_rank_sel *sel, const kt_gaps_options *opt, kt_tables **partial);
kt_status kt_gaps_reduce(const kt_tables *const *partials, size_t n, const kt_gaps_options *opt, kt_tables **out);

/* ---- launch and queue analyses: launch, queue, memcpy-bw, counters ----- */

/* launch: kernel launch statistics (HTA CUDA kernel launch stats, A4.5).
 * Table "launches": correlation, cpu_duration, gpu_duration, launch_delay,
 * rank — one row per launch call and GPU event it launched (µs; delay =
 * GPU start − end of the call, clipped at 0).  Tables "short_gpu_kernels"
 * (cpu_duration <= runtime cutoff and gpu_duration < cpu_duration),
 * "runtime_outliers" (cpu_duration > runtime cutoff) and
 * "launch_delay_outliers" (launch_delay > delay cutoff) — the sets HTA
 * plots: rank, launches, pct_of_launches and describe() of the plotted
 * value (cpu_duration_* or launch_delay_*).  By default every launch API
 * counts (CUDA runtime and driver, HIP, graph launches, async copies and
 * sets); under hta_compat only HTA's cudaLaunchKernel[ExC], runFunction,
 * cudaMemcpyAsync and cudaMemsetAsync (AMD and Triton traces are empty).  */
typedef struct kt_launch_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    double runtime_cutoff_us;      /* HTA default 50 */
    double launch_delay_cutoff_us; /* HTA default 100 */
} kt_launch_options;
void kt_launch_options_init(kt_launch_options *o, size_t size);
static inline kt_launch_options kt_launch_defaults(void)
{ kt_launch_options o; kt_launch_options_init(&o, sizeof o); return o; }
kt_status kt_launch(const kt_trace *t, const kt_rank_sel *sel, const kt_launch_options *opt,
                    kt_tables **out);

/* queue: launches waiting on each GPU stream (HTA queue length, A4.7): +1
 * at a launch call's start, −1 at its GPU event's start.  Tables "series":
 * ts (µs from the trace origin), pid, tid (null when the trace names the
 * thread with a string, as legacy traces' "stream 7"), stream,
 * queue_length, rank (one row per change); "summary": rank, stream, queue_length_count ... _max
 * (describe() over the change points, as HTA; a footnote says how many
 * changes were merged into them, which HTA counts one by one); "blocked": rank, stream,
 * duration_at_max_queue_length (µs), relative_duration_at_max_queue_length
 * — time with at least max_queue_length launches waiting, for every stream
 * (HTA reports only the last stream of a rank, and only under hta_compat
 * do we); "weighted": rank, stream, duration, time-weighted mean and
 * 50/90/99% queue length, max, pct_time_empty.  Queues are per (device,
 * stream): summary, blocked and weighted end with a "device" column unless
 * hta_compat.  A GPU event the trace puts before its launch call leaves the
 * queue when the call starts, so no length is negative (hta_compat: as
 * written, as HTA); "diagnostics" has a row per rank with such events:
 * rank, early_gpu_events, first_name, first_ts (µs from the origin),
 * first_correlation, first_early_by (µs before its call), message.       */
typedef struct kt_queue_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int64_t max_queue_length; /* default 1024 (CUDA's per-stream limit) */
} kt_queue_options;
void kt_queue_options_init(kt_queue_options *o, size_t size);
static inline kt_queue_options kt_queue_defaults(void)
{ kt_queue_options o; kt_queue_options_init(&o, sizeof o); return o; }
kt_status kt_queue(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt,
                   kt_tables **out);

/* memcpy-bw: memory bandwidth per memcpy/memset kind (HTA memory bandwidth
 * time series and summary, A4.7).  Tables "series": ts (µs from the
 * origin), pid, name ("Memcpy HtoD", "Memset", ...), memory_bw_gbps, rank
 * — the summed bandwidth of the copies running from ts on; "summary":
 * rank, name, memory_bw_gbps_count ... _max over the points > 0.  Where a
 * trace has no bandwidth arg (AMD) it is bytes / duration.                 */
kt_status kt_memcpy_bw(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out);

/* counters: for each selected rank, a copy of its trace file with Chrome
 * counter tracks for queue length ("Queue Length", id = stream) and memcpy
 * bandwidth (one track per kind, arg "Memcpy BW"), HTA's event format
 * (A4.7).  Every original byte is kept; the counters are appended to
 * traceEvents.  Written to out_dir as <name>_with_counters.json[.gz]
 * (gzip, ISA-L level 1, when the input was gzip; <name>_rank<R>_... when
 * two ranks' files share a name); an existing input file is never
 * overwritten.  Table "files": rank, input, output, counter_events,
 * uncompressed_bytes (the JSON written, before any gzip).                  */
typedef struct kt_counters_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *out_dir;  /* required */
    int no_queue_length;  /* leave out the queue-length tracks */
    int no_memcpy_bw;     /* leave out the bandwidth tracks */
} kt_counters_options;
void kt_counters_options_init(kt_counters_options *o, size_t size);
static inline kt_counters_options kt_counters_defaults(void)
{ kt_counters_options o; kt_counters_options_init(&o, sizeof o); return o; }
kt_status kt_counters(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt,
                      kt_tables **out, kt_diags **diags);

/* ---- structure analyses: patterns, critical path --------------------------- */

/* patterns: frequent GPU launch sequences under an op (HTA
 * get_frequent_cuda_kernel_sequences, A4.8; docs/patterns.md).  Roots are
 * the CPU-side events whose name contains `op` with at least min_len GPU
 * events under them (by default the outermost such events; under
 * hta_compat HTA's rule: those at the matches' minimum call depth, with
 * HTA's own nesting and GPU events on streams > 0 only, on the lowest
 * selected rank only).  A root's pattern is its name, then the
 * names of the GPU events its launch calls enqueued (kernels, memcpy,
 * memset, stream waits; all kernels of a graph launch) in start order.
 * Table "patterns": pattern (names joined by "|"), count, GPU kernel
 * duration (us) (Σ over occurrences of the GPU events' durations), CPU op
 * duration (us) (Σ of the roots' durations), then rank (not under
 * hta_compat: HTA's columns exactly); by rank, count desc, pattern.
 * Table "ops": rank, op, match ("substring" or "exact"), gpu_events (GPU
 * events the op launched; only for picked ops, else null), roots.  With
 * op NULL the pick_ops cpu_op names that launched the most GPU events are
 * analysed (exact names), and "ops" says which.  With out_dir, for each
 * selected rank DIR/overlaid_<file> (gzip when the input was;
 * overlaid_rank<R>_<file> when two ranks' files share a name): a copy of
 * the file where every event of the top `top` patterns' occurrences has
 * args "Patterns": {pattern: count, ...}, every other GPU event's name is
 * replaced by its id (unless keep_names) and the id → name dictionary is
 * added to the args of the "PyTorch Profiler" span; every other byte is
 * the original's.  out_dir must not be an input file's directory
 * (KT_EUSAGE).  Table "files": rank, input, output, marked_events,
 * unmarkable_events (pattern events without an args object in the file:
 * not marked), renamed_events, bytes.                                      */
typedef struct kt_patterns_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *op;         /* substring of op names; NULL = pick ops     */
    size_t pick_ops;        /* ops picked when op is NULL (3)             */
    size_t min_len;         /* GPU events a root needs (HTA: 3)           */
    size_t top;             /* patterns marked in the overlay (5)         */
    const char *out_dir;    /* overlay directory; NULL = no overlay       */
    int keep_names;         /* overlay: leave other GPU events' names     */
} kt_patterns_options;
/* Defaults: HTA's (min_len 3, top 5), 3 picked ops, no overlay. */
void kt_patterns_options_init(kt_patterns_options *o, size_t size);
static inline kt_patterns_options kt_patterns_defaults(void)
{ kt_patterns_options o; kt_patterns_options_init(&o, sizeof o); return o; }
kt_status kt_patterns(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *opt,
                      kt_tables **out, kt_diags **diags);

/* mine: the most frequent contiguous GPU kernel sequences on each stream,
 * without naming an op — fusion candidates.  For every length 2..max_len
 * the occurrences of each distinct sequence are counted without overlap
 * (rolling hashes: linear per length).  Ranked by the launch overhead a
 * fusion would save: saving = count × (length − 1) × median gap, the gap
 * being the idle time between consecutive kernels inside the occurrences
 * (next start − previous end, at least 0).  Table "sequences": rank,
 * device, stream, length, count, median_gap_us, saving_us, kernels (names
 * joined by "|"), launchers (the ops that launched the first occurrence's
 * kernels, joined by "|"), kernel_us (Σ durations of the counted
 * occurrences' kernels); the top `top` per rank, by saving, then count
 * × (length − 1), then kernels.                                            */
typedef struct kt_mine_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    size_t max_len;         /* longest sequence (8)                       */
    size_t top;             /* rows per rank (10)                          */
    size_t min_count;       /* occurrences a sequence needs (2)           */
} kt_mine_options;
void kt_mine_options_init(kt_mine_options *o, size_t size);
static inline kt_mine_options kt_mine_defaults(void)
{ kt_mine_options o; kt_mine_options_init(&o, sizeof o); return o; }
kt_status kt_mine_sequences(const kt_trace *t, const kt_rank_sel *sel, const kt_mine_options *opt,
                            kt_tables **out);
/* critical-path: HTA's lightweight critical path analysis (A4.11) of each
 * selected rank (docs/critical_path.md).  A graph of CPU op / runtime call /
 * GPU event start and end nodes with HTA's five edge kinds (operator time,
 * top-level dependencies, kernel launch delays, kernel-kernel delays,
 * GPU→CPU and GPU→GPU synchronization) and its longest path, over the
 * window of the chosen annotation instances.  Tables (every one starts
 * with "rank"):
 *   "summary": bound_by (cpu_bound, gpu_compute_bound,
 *     gpu_communication_bound, gpu_kernel_launch_overhead,
 *     gpu_kernel_kernel_overhead; under hta_compat also HTA's "" row of
 *     the dependency/sync edges, always 0),
 *     pct_of_critical_path_duration, duration_us — HTA's summary();
 *   "breakdown": one row per path edge in path order: event_idx (the
 *     attributed event's position among the rank's events, null for
 *     dependency/sync edges), duration (µs), type (HTA's value string),
 *     s_name (short name), cat, pid, tid, stream, bound_by;
 *   "edges": the ordered path: u, v (node ids: nodes sorted by time), u_ev,
 *     v_ev (event positions), u_ts, v_ts (µs from the trace origin),
 *     u_is_start, v_is_start (0/1), type, weight (µs), attributed_ev
 *     (row i of "breakdown" names the event of edge i);
 *   "graph": window_start_us, window_end_us, nodes (those an edge
 *     touches, as HTA counts), edges, one count per edge kind,
 *     path_nodes, path_length_us, negative_weight_edges (counted as 0),
 *     cycle_edges_ignored (a damaged trace's cycles, broken),
 *     unreached_gpu_events (GPU events no edge leads into);
 *   "what_if" (only with what_if): scenario, path_length_us,
 *     predicted_us, change_pct — the longest path again with that class
 *     of edges rescaled.
 * Default semantics differ from HTA where HTA is wrong (docs): every launch
 * API (hip*, cuLaunchKernel, cudaGraphLaunch with all its kernels, async
 * copies) launches; a kernel is launch bound when its stream was idle when
 * its launch began (and it started within 1.5 ms); without the annotation
 * the whole trace is analysed.  hta_compat (kt_load's) reproduces HTA
 * exactly.  No CPU ops or no GPU events on a rank, no such annotation or
 * instance, an empty window: KT_EANALYSIS and why in *diags; a bad what_if:
 * KT_EUSAGE.                                                              */
typedef struct kt_critical_path_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *annotation;   /* NULL: "ProfilerStep" when the rank has one,
                                 else the whole trace; "": whole trace       */
    int64_t instance_first;   /* instances first..last of the annotation (0) */
    int64_t instance_last;
    /* "launch=0", "cpu=0.5,comm=0", ...: classes launch, kernel_gap, cpu,
     * gpu, comm, each with a factor >= 0; NULL = no what-if table.         */
    const char *what_if;
    /* Overlay trace: out_dir/overlaid_critical_path_<file> (gzip when the
     * input was), critical events with args.critical = 1 and flow arrows
     * (cat "critical_path") for the path's dependency, launch and sync
     * edges; only_critical drops complete events not on the path except
     * user annotations and python functions (HTA's
     * only_show_critical_events).  NULL = no overlay.  Never written into
     * the input's own directory (KT_EUSAGE); rank<R>_ is added to the name
     * when two selected ranks' files share one.  Table "files": rank,
     * input, output, events_marked, arrows.                                */
    const char *out_dir;
    int only_critical;
    int all_edges;            /* an arrow for every graph edge, args.critical
                                 true on the path (HTA's show_all_edges; not
                                 with only_critical)                         */
    /* Less for a caller that shows less (the report): no_edges leaves out
     * table "edges"; longest_edges N > 0 keeps in "breakdown" only each
     * rank's N longest path edges, longest first (ties in path order), and
     * adds a last column "edge": the edge's position on the path, from 0.
     * 0 and 0 (the defaults): every table, every path edge.               */
    int no_edges;
    size_t longest_edges;
} kt_critical_path_options;
/* Defaults: annotation NULL, instance 0, no what-if, no overlay, every
 * table and path edge. */
void kt_critical_path_options_init(kt_critical_path_options *o, size_t size);
static inline kt_critical_path_options kt_critical_path_defaults(void)
{ kt_critical_path_options o; kt_critical_path_options_init(&o, sizeof o); return o; }
kt_status kt_critical_path(const kt_trace *t, const kt_rank_sel *sel, const kt_critical_path_options *opt,
                           kt_tables **out, kt_diags **diags);


/* ---- compare and attribute: diff, cupti, annotations, ops, memory ---------- */

/* diff: what changed between two runs (docs/diff.md).  control and test are
 * two loaded traces (files or directories; the same rank in both is fine:
 * they are two runs).  One rank of each (default: its first) and one
 * iteration of each (default: its first ProfilerStep; a trace without
 * ProfilerStep is compared whole, where HTA refuses).  Tables:
 *  "ops" — HTA's compare_traces (A4.13): name (short_name with
 *    short_names), <control>_counts, <control>_total_duration,
 *    <test>_counts, <test>_total_duration, diff_counts (test − control),
 *    diff_duration, counts_change_categories ('+', '-', '='); durations µs;
 *    rows: the control's names sorted, then the test-only names sorted.
 *  "ops_diff" — HTA's ops_diff: change (added, deleted, increased,
 *    decreased, unchanged), name; grouped by change, in "ops" order.
 *  "side_by_side" — GPU work per key (by: kernel name, kernel category or
 *    launching CPU op): key, <control>_count, <control>_time_us,
 *    <test>_count, <test>_time_us, delta_count, delta_time_us, delta_pct
 *    (of the control's time; null when it is 0), sorted by |delta_time_us|.
 *  "tree" — the two CPU call trees of the iteration merged (children
 *    aligned by edit distance on normalised op names, the rest matched at
 *    their lowest common ancestor): node (merged node id, preorder), parent,
 *    depth, status (matched, only-control, only-test), name (control's,
 *    else test's), test_name, <control>_count, <test>_count,
 *    <control>_cpu_us, <test>_cpu_us, <control>_gpu_us, <test>_gpu_us
 *    (GPU time of the kernels launched under the node), delta_gpu_us,
 *    delta_gpu_pct.  Nodes are call paths: sibling calls with the same
 *    name are one node with a count.
 *  "kernels" — per merged node and side, the kernels its own launches ran:
 *    node, side (control/test), kernel, count, time_us.
 * Under hta_compat "ops" follows HTA's event set and rules exactly: every
 * complete event with a category (minus the Trace span), ns-resolution
 * times rounded as HTA rounds them, GPU events in the iteration of their
 * launch (ROCm stream-0 work in none), CPU = stream -1.  By default times
 * are exact, GPU events belong to the step their GPU-side ProfilerStep
 * annotation (else their launch) is in, and CPU/GPU is by event kind.    */
typedef enum { KT_DIFF_DEVICE_ALL = 0, KT_DIFF_DEVICE_CPU, KT_DIFF_DEVICE_GPU } kt_diff_device;
typedef enum { KT_DIFF_BY_KERNEL = 0, KT_DIFF_BY_CATEGORY, KT_DIFF_BY_OP } kt_diff_key;
#define KT_DIFF_FIRST_STEP (-1)  /* iteration: the first ProfilerStep      */
#define KT_DIFF_WHOLE (-2)       /* iteration: the whole trace             */
typedef struct kt_diff_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *control_label;   /* column prefix, default "Control"       */
    const char *test_label;      /* default "Test"                          */
    int control_rank, test_rank; /* -1: the trace's first rank              */
    int64_t control_iteration, test_iteration; /* step number, or above    */
    kt_diff_device device;       /* events of "ops"                         */
    int short_names;             /* "ops" and "side_by_side" by HTA's short
                                    names (side_by_side: kernels)           */
    kt_diff_key by;              /* key of "side_by_side"                   */
    int hta_compat;
    const kt_categorizer *categorizer; /* NULL = built-in rules            */
} kt_diff_options;
/* Defaults: labels Control/Test, first ranks, first steps, all devices,
 * full names, side by side by kernel.                                     */
void kt_diff_options_init(kt_diff_options *o, size_t size);
static inline kt_diff_options kt_diff_defaults(void)
{ kt_diff_options o; kt_diff_options_init(&o, sizeof o); return o; }
/* KT_EUSAGE: no such rank or iteration; KT_EINPUT: a side has no events. */
kt_status kt_diff(const kt_trace *control, const kt_trace *test, const kt_diff_options *opt,
                  kt_tables **out, kt_diags **diags);
/* annotations: user annotations (HTA user-annotation breakdowns, A4.9, and
 * kernels with their annotation).  Tables (times µs):
 *   "gpu" / "cpu": per rank and annotation name (gpu_user_annotation /
 *     user_annotation events, ProfilerStep#N included): name, sum (us),
 *     max (us), min (us), stddev, mean (us), rank, count (count not under
 *     hta_compat).  Spans themselves: nested annotations double count here.
 *     With more than num_kernels names the tail folds into "others" by HTA's
 *     rule (names containing an allow pattern never fold).
 *   "kernels": every GPU event with its innermost GPU annotation on the same
 *     (pid, tid) (HTA's rule: annotations by duration descending, each
 *     overwriting the label of the kernels it overlaps): rank, ts (from the
 *     trace origin), dur, stream, correlation, s_name (HTA-shortened name),
 *     s_user_annotation ("" when none).
 *   "summary" (not HTA): per rank and annotation name, kernel time without
 *     double counting: rank, annotation, source ("gpu": GPU annotations on
 *     the kernels' stream; "cpu": CPU annotations around the launching call,
 *     when the rank has no GPU annotations), instances, kernels (inside any
 *     instance), inclusive_us (their summed durations, each kernel once),
 *     exclusive_us (kernels whose innermost annotation it is),
 *     pct_of_kernel_time (inclusive / all kernel time of the rank),
 *     pct_of_step (inclusive / summed ProfilerStep durations; null without
 *     steps).
 *   "diagnostics": rank, message — e.g. annotations that end before they
 *     start (left out of every table; kept as HTA does under hta_compat). */
typedef struct kt_annotations_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *const *allow; /* substrings never folded into "others" */
    size_t nallow;
    size_t num_kernels;       /* names kept before folding (HTA: 1000)  */
    double duration_ratio;    /* HTA's cumulative-time quantile (0.8)   */
    int full_names;           /* "kernels": full instead of shortened names */
} kt_annotations_options;
void kt_annotations_options_init(kt_annotations_options *o, size_t size);
static inline kt_annotations_options kt_annotations_defaults(void)
{ kt_annotations_options o; kt_annotations_options_init(&o, sizeof o); return o; }
kt_status kt_annotations(const kt_trace *t, const kt_rank_sel *sel, const kt_annotations_options *opt,
                         kt_tables **out);

/* ops: ATen op → kernel sequences and delays (HTA
 * get_aten_op_kernels_and_delay, A4.6), per rank.  Table "ops":
 * aten_op_name, kernel_sequence (kernel full names joined by " -> ", in
 * launch order), occurrence_count, avg_aten_op_launch_delay (op start →
 * its first launch call, µs), avg_runtime_delay (that call → its first GPU
 * event), rank; sorted by occurrence_count descending.  By default every
 * launch API counts (CUDA runtime/driver, HIP, async copies and sets, graph
 * launches) and the wrapping op is the innermost aten:: op around the
 * launch call on the call's own thread (the call tree).  hta_compat: HTA's
 * launch names (cuda*LaunchKernel*, cuLaunchKernel*, runFunction*) and
 * wrapping op (of all aten:: ops on any thread enclosing the call, the
 * latest starting); one table per rank, never accumulated across ranks
 * (HTA's [BUG]).  Table "unmatched": rank, launches without a GPU event,
 * launches without a wrapping op.                                          */
kt_status kt_ops(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out);

/* cupti: CUPTI range-profiler counters joined to the ops that launched each
 * range (HTA get_cupti_counter_data_with_operators, A4.10).  Table
 * "counters": rank, name, cat, pid, tid, ts (µs from the trace origin), dur,
 * one column per counter (in order of first appearance; integer unless some
 * range gives it a fractional value), correlation of the
 * matched launch, match ("correlation" when the range carries the launch's
 * correlation id, "position" for HTA's i-th range ↔ i-th launch, "none"),
 * op_stack (cpu_ops around the launch, outermost first, as a Python list
 * under hta_compat, else joined by " > "), top_level_op, bottom_level_op,
 * and flops (from the SASS instruction counters: fma = 2, others 1; null
 * without them), tflops_per_s (flops / dur), pct_of_peak (vs the peak the
 * options give, or the device's from deviceProperties when known; null
 * otherwise).  Table "ops": rank, top_level_op, bottom_level_op, ranges,
 * dur_us, flops, tflops_per_s.  Table "match": rank, ranges, launches,
 * matched_by_correlation, matched_by_position, unmatched (and a diagnostic
 * reason when counts differ).  Under hta_compat the launches are HTA's
 * (cudaLaunchKernel* runtime calls by ts) and a rank whose range and launch
 * counts differ gets no rows (HTA skips it).                               */
typedef struct kt_cupti_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    double peak_tflops;   /* 0 = from the device when known */
} kt_cupti_options;
void kt_cupti_options_init(kt_cupti_options *o, size_t size);
static inline kt_cupti_options kt_cupti_defaults(void)
{ kt_cupti_options o; kt_cupti_options_init(&o, sizeof o); return o; }
kt_status kt_cupti(const kt_trace *t, const kt_rank_sel *sel, const kt_cupti_options *opt, kt_tables **out);

/* memory: memory over time from the Kineto "[memory]" instant events that
 * profile_memory=True writes (HTA ignores them).  Tables: "devices": rank,
 * device ("cuda:1", "cpu"), allocations, frees, bytes_allocated,
 * peak_allocated, peak_ts (µs from the origin), peak_reserved,
 * final_allocated, negative_totals (events whose totals were negative);
 * "series": rank, device, ts, allocated, reserved (bytes; one row per event);
 * "peak_ops": rank, device, op (innermost cpu_op around the allocation on
 * its thread, "(no op)" else), bytes_held (live at the peak), allocations
 * (live at the peak); top `top` per device by bytes.  With out_dir, a copy of
 * each rank's trace with "Memory Allocated"/"Memory Reserved" counter
 * tracks per device is written (as kt_counters), table "files".            */
typedef struct kt_memory_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    size_t top;            /* peak_ops rows per device (10); 0 = all   */
    int no_series;         /* leave out the "series" table            */
    const char *out_dir;   /* NULL: no trace copy                      */
} kt_memory_options;
void kt_memory_options_init(kt_memory_options *o, size_t size);
static inline kt_memory_options kt_memory_defaults(void)
{ kt_memory_options o; kt_memory_options_init(&o, sizeof o); return o; }
kt_status kt_memory(const kt_trace *t, const kt_rank_sel *sel, const kt_memory_options *opt, kt_tables **out,
                    kt_diags **diags);

/* memory timeline: PyTorch's export_memory_timeline_raw file (A4.14; JSON,
 * plain or gzip: [[t_ns, action, numbytes, category], ...], t = -1 for
 * memory that existed before profiling).  Tables "timeline": ts_ns, then
 * one column per category (Parameter, Optimizer state, Input, Temporary,
 * Activation, Gradient, Autograd, Unknown) with its bytes after every event
 * at that time, and total (HTA MemoryAnalysis._process_raw_events); "peaks":
 * category, peak_bytes, peak_ts_ns; "total" in the same shape.  With
 * out_dir, also <out_dir>/<name>_counters.json: a Chrome trace with one
 * counter track, a series per category; table "files": input, output,
 * counter_events, bytes.  Diagnostics (bad entries skipped, categories
 * going negative, why a file could not be written) go to *diags (NULL:
 * dropped; free with kt_diags_free).                                       */
kt_status kt_memory_timeline_file(const char *path, const char *out_dir, kt_tables **out, kt_diags **diags);


/* ---- across ranks: collectives, stragglers, clock alignment ---------------- */

/* Clock alignment for cross-rank analyses (docs/collectives.md).  Ranks on
 * different hosts have different clocks; COLLECTIVES estimates each rank's
 * offset from the ends of matched implicit-sync collectives (all ranks
 * leave those together) and subtracts it; NONE compares times as written;
 * HTA is HTA's A2.10 (one global origin, no per-rank correction: the same
 * differences as NONE).                                                     */
typedef enum { KT_ALIGN_COLLECTIVES = 0, KT_ALIGN_NONE, KT_ALIGN_HTA } kt_align_mode;

/* collectives: every communication kernel (NCCL/RCCL, ncclKernel_* and
 * ncclDevKernel_*) of every rank, with its metadata (kernel args, else the
 * launching record_param_comms op, else only the kind from the kernel
 * name), matched across ranks by (process group, Seq) where the trace has
 * it, else by position within the process group (TraceLens), else by
 * position on the stream (no metadata).  Times are µs from the earliest
 * event of all ranks (t->min_ts), after alignment.  Tables:
 *  "implicit_sync" — one row per matched allreduce / allgather /
 *    reducescatter / alltoall instance (TraceLens nccl_implicit_sync):
 *    collective_id, match (seq|position|stream), Collective name, dtype,
 *    In msg nelems, Out msg nelems, Process Group Name, Process Group
 *    Description, Group size, ranks (ranks taking part), Full msg size (MB)
 *    (out size for allgather, else in size), comm_latency (min duration,
 *    µs), skew in start time (max − min start), skew in end time,
 *    avg_wait_time, earliest arrival rank, latest arrival rank, algo bw
 *    (GB/s) (MB/1024 / latency s), bus bw (GB/s) (algo bw × 2(n−1)/n for
 *    allreduce, (n−1)/n otherwise: nccl-tests); with gpus_per_node also
 *    node_span (nodes, rank / gpus_per_node, of the Process Group Ranks,
 *    else of the members) and intra_node; then rank_<r>_ts, rank_<r>_dur,
 *    rank_<r>_wait_time (wait = latest start − own start) for every loaded
 *    rank (null when not a member);
 *  "summary" — per (Collective name, dtype, In msg nelems, Process Group
 *    Name, Group size, Full msg size (MB)): count, comm_latency_*, skew in
 *    start time_*, skew in end time_*, algo bw (GB/s)_*, bus bw (GB/s)_*
 *    (* = mean, median, min, max), Total comm latency (ms);
 *  "all2allv" — per all-to-all-v instance: collective_id, dtype, Process
 *    Group Name, Group size, total bytes, wall_time (µs, earliest start to
 *    latest end), throughput (GB/s) (total bytes / wall time), size_imbalance
 *    (max rank bytes / mean), max_rank_dur/min_rank_dur, skew in start time,
 *    skew in end time, rank_<r>_bytes, rank_<r>_dur;
 *  "all2allv_summary" — per (dtype, Process Group Name, Group size): count,
 *    wall_time_*, throughput (GB/s)_*, size_imbalance_*,
 *    max_rank_dur/min_rank_dur_* (* = mean, median, min, max), Total wall
 *    time (ms) (TraceLens nccl_summary_all2allv);
 *  "all2allv_heatmap" — bytes sent from each rank (row: src rank) to each
 *    rank (columns "to rank <r> (bytes)") over all all-to-all-v instances,
 *    from the "In split size" lists (TraceLens nccl_all2allv_heatmap);
 *  "other" — matched broadcast, reduce, send/recv, barrier, ... instances:
 *    collective_id, match, Collective name, dtype, In msg nelems, Process
 *    Group Name, Group size, ranks, comm_latency, skew in start time, algo
 *    bw (GB/s);
 *  "stragglers" — per rank over the implicit-sync instances (TraceLens
 *    straggler_summary): rank, total_wait_time_us, mean_wait_time_us,
 *    times_arrived_last, times_arrived_first, pct_arrived_last,
 *    num_collectives, total_nccl_dur_us (+ node_id with gpus_per_node),
 *    sorted by total wait ascending;
 *  "unmatched" — every instance that is not complete: collective_id, match,
 *    Collective name, Process Group Name, key, status (missing ranks |
 *    duplicate | metadata differs), ranks present, ranks expected, detail;
 *  "clock_offsets" — per rank: rank, offset_us (estimated, relative to the
 *    first rank), spread_us (max − min of the differences it rests on),
 *    collectives (how many), via (rank it was measured against), applied;
 *  "ranks" — per rank: rank, comm_kernels, metadata_from_kernel,
 *    metadata_from_cpu_op, name_only (kind from the kernel name only),
 *    with_seq;
 *  "kernels" — every communication kernel of every rank (TraceLens's long
 *    format): rank, collective_id, match, status (of its instance),
 *    Collective name, kind, dtype, In msg nelems, Out msg nelems, Group
 *    size, Process Group Name, Seq, stream, ts (µs, aligned), dur,
 *    metadata (kernel | cpu_op | name), name (the kernel's).               */
typedef struct kt_collectives_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    kt_align_mode align;  /* default KT_ALIGN_COLLECTIVES                  */
    int gpus_per_node;    /* > 0: node ids, node_span, intra_node          */
    int tracelens;        /* TraceLens's semantics: position matching only,
                             no alignment                                   */
} kt_collectives_options;
void kt_collectives_options_init(kt_collectives_options *o, size_t size);
static inline kt_collectives_options kt_collectives_defaults(void)
{ kt_collectives_options o; kt_collectives_options_init(&o, sizeof o); return o; }
kt_status kt_collectives(const kt_trace *t, const kt_rank_sel *sel, const kt_collectives_options *opt,
                         kt_tables **out);

/* stragglers: which rank holds the others back (docs/collectives.md).
 * Under t->hta_compat, HTA's get_potential_stragglers (A4.12: the late start
 * of the dominant long communication kernel, per-step top-k; communication
 * kernels are names starting "ncclKernel" as in HTA): tables "stragglers"
 * (rank, count = steps flagged; HTA's list, in its order) and "metric"
 * (rank, iteration, stream, name, normalized_start_time, is_straggler);
 * KT_EANALYSIS where HTA raises (no ProfilerStep, no candidate kernel).
 * By default, in this order: "verdict" (rank, verdict "arrives last" |
 * "slow compute" | "inconclusive" (a candidate below the minimum effect or
 * sample) | "no straggler" (rank null: enough evidence, no rank stands
 * out), evidence: one line with the numbers, source: the table it rests
 * on; footnotes say what each table measures and why they can disagree),
 * "arrivals" (per
 * rank over matched implicit-sync collectives, aligned as opt->align:
 * rank, collectives, times_arrived_last, pct_arrived_last,
 * total_wait_time_us, mean_wait_time_us), "compute" (rank, steps,
 * compute_us_per_step = computation-kernel time per ProfilerStep,
 * robust_z = 0.6745·(x − median)/MAD across ranks), then HTA's metric
 * with every NCCL/RCCL name as "hta_stragglers" and "hta_metric" (when it
 * has no answer, "hta_stragglers" has one column why_empty saying why).  */
typedef struct kt_stragglers_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int candidates;          /* HTA's num_candidates (2)                     */
    const int64_t *steps;    /* ProfilerSteps to use; NULL = all             */
    size_t nsteps;
    kt_align_mode align;     /* for the arrival evidence                     */
    double z_threshold;      /* robust z above which compute is slow (3.5)   */
    /* How sure a verdict must be (docs/collectives.md): below these it is
     * "inconclusive".  Slow compute needs min_steps ProfilerSteps (3) and
     * an excess over the ranks' median of min_effect_pct percent (10);
     * "arrives last" needs min_collectives matched collectives (10).     */
    size_t min_steps;
    size_t min_collectives;
    double min_effect_pct;
} kt_stragglers_options;
void kt_stragglers_options_init(kt_stragglers_options *o, size_t size);
static inline kt_stragglers_options kt_stragglers_defaults(void)
{ kt_stragglers_options o; kt_stragglers_options_init(&o, sizeof o); return o; }
kt_status kt_stragglers(const kt_trace *t, const kt_rank_sel *sel, const kt_stragglers_options *opt,
                        kt_tables **out);


/* ---- performance model: perf (FLOPs, bytes, roofline) ---------------------- */

/* perf: how close each op came to the hardware (TraceLens's perf report,
 * docs/perf.md).  Ops are the CPU ops that launched GPU work (kernel
 * launchers) and the ops a model covers (GEMM: aten::mm, addmm, bmm,
 * baddbmm, _scaled_mm; SDPA_fwd: aten::_scaled_dot_product_{flash,
 * efficient,cudnn}_attention; CONV_fwd: aten::convolution;
 * UnaryElementwise, BinaryElementwise, Normalization (layer norm),
 * Reduce_fwd: TraceLens's ATen lists, docs/perf.md), whose FLOPs and bytes
 * come from the shapes recorded with record_shapes=True.  Kernel time is GPU busy time: the
 * union of the op's GPU events' intervals (µs).  Tables, with TraceLens's
 * names and (under tracelens) its exact columns and row order:
 *   "ops_summary": per op name: direct / subtree kernel time (µs and ms),
 *     calls, TraceLens op categories, % and cumulative % of direct time;
 *   "ops_summary_by_category": the same per op category;
 *   "ops_unique_args": launchers per name and shapes (Input Dims, type,
 *     Strides, Concrete Inputs as Python tuples): calls, direct / subtree
 *     kernel time mean, median, std, min, max, sum, first event, %;
 *   "unified_perf_summary": one row per op and shapes, the op being the
 *     outermost modelled op above a launcher (else the launcher): CPU time,
 *     GFLOPs, bytes, achieved throughput, kernel time, perf_params,
 *     has_perf_model;
 *   "short_kernels_summary": kernels under 10 µs by launching op, shapes
 *     and kernel: total, count, mean, % of the GPU span;
 *   "GEMM", "SDPA_fwd", "CONV_fwd", "UnaryElementwise",
 *     "BinaryElementwise", "Normalization", "Reduce_fwd" (roofline sheets,
 *     only those with rows; one row per op name and model
 *     parameters ("param: M", ...)): GFLOPs, data moved (MB), FLOPs/byte,
 *     achieved TB/s and TFLOP/s (mean, median, std, min, max over calls),
 *     compute spec, the first call's shapes, kernel time statistics
 *     (µs), calls, first call's event id; with a device spec also
 *     "Roofline Time (µs)", "Roofline Bound", "Pct Roofline";
 *   "Triton" (not under tracelens): TorchInductor's triton_poi_/red_/per_
 *     kernels estimated from the ops their names say they fuse and their
 *     arguments' shapes (docs/perf.md: an estimate, not a measurement);
 *   "headroom" (with a device spec): op shapes (outermost modelled ops)
 *     ranked by time lost against their roofline, Σ(busy − roofline) over
 *     calls, with bound and kernels;
 *   "perf_by_family" / "perf_by_step": FLOPs, kernel time and achieved
 *     TFLOP/s per model family and per ProfilerStep (outermost modelled ops);
 *   "unmodelled_ops": modelled op names whose shapes did not fit (reason);
 *   "coverage" (every run, one row): gpu_time_us (Σ durations of the GPU
 *     kernels, memcpys, memsets), modelled_us and pct_modelled (under an op
 *     whose model evaluated), unmodelled_us, pct_unmodelled, device (the
 *     GPU the trace names), peaks ("datasheet", "device spec file", "none")
 *     and peaks_source; footnotes on how it is computed and on datasheet
 *     against TraceLens's achievable peaks (docs/perf.md);
 *   "unmodelled": the rest by op, largest first: op, reason, gpu_events,
 *     gpu_time_us, pct_of_gpu_time;
 *   "notes": why columns are missing (no shapes, no device spec, ...).
 * Under tracelens the launcher and roofline tables also carry TraceLens's
 * kernel_details summary columns (Python reprs, as its CSVs).
 * Device spec: device_spec (TraceLens's arch JSON text) when given, else —
 * unless tracelens — the built-in datasheet figures of the GPU named in
 * the trace's deviceProperties; none → no roofline columns and a note
 * naming the trace's GPU and the known ones.                             */
typedef struct kt_perf_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    int tracelens;            /* TraceLens's column names, rows and order      */
    const char *device_spec;  /* arch JSON text (not a path); NULL = none      */
    size_t top;               /* headroom rows kept; 0 = all (default 20)      */
} kt_perf_options;
void kt_perf_options_init(kt_perf_options *o, size_t size);
static inline kt_perf_options kt_perf_defaults(void)
{ kt_perf_options o; kt_perf_options_init(&o, sizeof o); return o; }
/* KT_EUSAGE (and the reason in *diags) when device_spec is not a valid arch JSON. */
kt_status kt_perf(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                  kt_diags **diags);

/* Event replay (kineta replay; docs/perf.md "Replaying an op"): the ops to
 * re-run outside the model, each as its recorded ATen arguments and the
 * GPU work it launched — TraceLens's EventReplay IR as three tables:
 *   "replay_ops": id (1..), op, rank, first_event (its first call, the
 *     event id the perf tables show), selected_by ("roofline",
 *     "headroom", "unique_args"), family (roofline sheet or ""), params,
 *     calls, kernel_time_us_mean / _sum (the trace's GPU busy time per
 *     call / over calls), lost_us (headroom only), replayable (1/0) and
 *     reason (why not: a tensor list of unknown shapes, an opaque object,
 *     no recorded shapes);
 *   "replay_args": id, index, kind ("tensor", "scalar", "scalar_list",
 *     "none", "tensor_list", "opaque"), type (as recorded: "c10::BFloat16",
 *     "Scalar", ...), dims and strides (JSON lists, "" for non-tensors),
 *     value (the concrete input as recorded);
 *   "replay_kernels": id, position, kernel, stream, dur_us_mean (over the
 *     calls that launched as many kernels), calls.
 * Which ops: with none of op, top, group: every row of the roofline sheets
 * (op name and model parameters); op: those whose name matches the glob
 * (a plain word matches as a substring), among the roofline rows and the
 * ops_unique_args rows; top N: the first N rows of the headroom table
 * (needs a device spec: the trace's GPU known, or device_spec); group:
 * the ops_unique_args row whose first_event is this.                     */
typedef struct kt_replay_options {
    size_t size;              /* sizeof the struct (docs/api.md)              */
    const char *op;           /* name glob; NULL = any                        */
    size_t top;               /* top N by lost time; 0 = not by headroom      */
    int64_t group;            /* ops_unique_args first_event; -1 = none       */
    const char *device_spec;  /* arch JSON text for top (as kt_perf's)        */
} kt_replay_options;
void kt_replay_options_init(kt_replay_options *o, size_t size);
static inline kt_replay_options kt_replay_defaults(void)
{ kt_replay_options o; kt_replay_options_init(&o, sizeof o); return o; }
/* KT_EUSAGE (reason in *diags) for top without a device spec, a group no
 * row has, or a bad device_spec.                                          */
kt_status kt_replay_ir(const kt_trace *t, const kt_rank_sel *sel, const kt_replay_options *opt, kt_tables **out,
                       kt_diags **diags);

/* perf sheets: TraceLens's perf report (generate_perf_report_pytorch) as
 * tables: "gpu_timeline" (kt_temporal's, tracelens), then kt_perf's
 * tables under tracelens (kernel_summary among them; opt->tracelens is
 * set whatever it says).  One selected rank (or a one-rank trace): its
 * tables.  Several: each rank analyzed alone and stacked under a leading
 * "rank" column (kt_tables_stack_ranks), as TraceLens's multi-rank report.
 * kt_perf_workbook also writes them to path as an Excel workbook, a sheet
 * per table (docs/perf.md: number cells, frozen filtered header, fitted
 * widths), written beside path and renamed over it once whole; KT_EINPUT
 * (why in *diags) when it cannot be written or a table is too long for a
 * sheet.                                                                 */
kt_status kt_perf_sheets(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                         kt_diags **diags);
kt_status kt_perf_workbook(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, const char *path,
                           kt_tables **out, kt_diags **diags);

/* perf comparison (TraceLens's compare_perf_reports_pytorch): the perf
 * sheets of base and test (kt_perf_sheets, same sel and options for both)
 * matched row by row, sheet by sheet.  Rows match on the sheet's keys: op
 * name and every "param: " column on the roofline sheets, name and the
 * four shape lists on ops_unique_args / unified_perf_summary, the name on
 * the summaries, the launching op and kernel name on kernel_summary (the
 * only sheet keyed by kernel names: the others match CUDA against ROCm
 * runs), "type" on gpu_timeline, and "rank" first when present; a key seen
 * k times on a side pairs its k-th rows.  Each output table (the sheet's
 * name) has the key columns, "status" ("matched", "removed": base only,
 * "added": test only), then per numeric column V of the sheet
 * "<a>::V", "<b>::V", "V__diff" (b − a) and "V__ratio" (b / a; 1 when both
 * are equal, null when a is 0 and b is not, or either is missing); base's
 * rows first in its order, then the added ones in test's.  a and b are the
 * runs' names (default "base", "test").  The "notes" sheet is not
 * compared.  kt_perf_compare_workbook also writes them as a workbook.    */
typedef struct kt_perf_compare_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *base_name;    /* NULL = "base"                              */
    const char *test_name;    /* NULL = "test"                              */
    const char *device_spec;  /* as kt_perf_options                         */
} kt_perf_compare_options;
void kt_perf_compare_options_init(kt_perf_compare_options *o, size_t size);
static inline kt_perf_compare_options kt_perf_compare_defaults(void)
{ kt_perf_compare_options o; kt_perf_compare_options_init(&o, sizeof o); return o; }
kt_status kt_perf_compare(const kt_trace *base, const kt_trace *test, const kt_rank_sel *sel,
                          const kt_perf_compare_options *opt, kt_tables **out, kt_diags **diags);
kt_status kt_perf_compare_workbook(const kt_trace *base, const kt_trace *test, const kt_rank_sel *sel,
                                   const kt_perf_compare_options *opt, const char *path, kt_tables **out,
                                   kt_diags **diags);


/* ---- reports and exports: report.html -------------------------------------- */

/* The loaded model read directly, for bindings and exports (a Python
 * DataFrame of events, SQLite).  Ranks are addressed by position
 * 0..kt_trace_nranks()-1 in rank order.                                    */
size_t kt_trace_nranks(const kt_trace *t);
int kt_trace_rank(const kt_trace *t, size_t pos);       /* the rank number */
const char *kt_trace_rank_file(const kt_trace *t, size_t pos);
int kt_trace_hta_compat(const kt_trace *t);           /* loaded with hta_compat */
size_t kt_trace_nevents(const kt_trace *t, size_t pos);
/* Strings of the trace (event names, categories) by id; NULL past the end. */
size_t kt_trace_nstrings(const kt_trace *t);
const char *kt_trace_string(const kt_trace *t, uint32_t id);
/* Event columns of one rank: every non-NULL array receives
 * kt_trace_nevents() values in file order.  ts and dur in ns (dur -1: none);
 * name/cat string ids (UINT32_MAX: none); ph the Chrome phase character;
 * kind kt_event_kind_name()'s index; stream, correlation and External id
 * -1 when absent; pid and tid written as strings in the file ("Spans",
 * "stream 7") come as 2^62 + their string id.                             */
typedef struct kt_event_columns {
    size_t size;                  /* sizeof the struct (docs/api.md)        */
    int64_t *ts, *dur;
    uint32_t *name, *cat;
    uint8_t *ph, *kind;
    int64_t *pid, *tid;
    int32_t *stream;
    int64_t *correlation, *external_id;
} kt_event_columns;
kt_status kt_trace_events(const kt_trace *t, size_t pos, const kt_event_columns *dst);
/* Name of an event kind ("cpu_op", "kernel", ...), NULL past the last. */
const char *kt_event_kind_name(unsigned kind);
/* HTA's parse of one rank's times (A2.3), for a binding that builds HTA's
 * frame from kt_trace_events: when the rank's file writes ts as floats
 * (HTA's ns-resolution path), rounds ts[i] up and ts[i] + dur[i] down to
 * whole µs in float64 as pandas does (dur can become 0 or -1 µs), in place,
 * for the n (ts, dur) pairs given in ns, and returns 1; else leaves them
 * and returns 0.  Pairs whose dur is -1 (none) are left as they are.    */
int kt_trace_hta_round(const kt_trace *t, size_t pos, int64_t *ts, int64_t *dur, size_t n);
/* Args the model does not keep, for a binding that builds HTA's frame (a
 * column per configured arg): for each event rows[i] of the rank at pos
 * (file order is fastest: the file is re-read), the JSON text of each of
 * keys[0..nkeys) in its args object ("" when absent), NUL-terminated, in
 * order row by row (nrows * nkeys fields) in one malloc'ed buffer *out of
 * *out_len bytes (free with kt_arg_texts_free).  KT_EINPUT (and why in *diags) when the file
 * is gone or has changed since it was loaded.                            */
kt_status kt_trace_arg_texts(const kt_trace *t, size_t pos, const char *const *keys, size_t nkeys,
                             const uint32_t *rows, size_t nrows, char **out, size_t *out_len, kt_diags **diags);
void kt_arg_texts_free(char *text);

/* export --sqlite: the trace and the most-asked analyses in one SQLite
 * file (schema: docs/sqlite.md).  Table "export": table name, rows.  The
 * file is written beside path and renamed over it once whole (path's
 * -journal/-wal/-shm removed first): on failure path is left as it was.  */
typedef struct kt_sqlite_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *path;      /* required; an existing file is replaced        */
    int no_events;         /* leave out the per-event tables               */
} kt_sqlite_options;
void kt_sqlite_options_init(kt_sqlite_options *o, size_t size);
static inline kt_sqlite_options kt_sqlite_defaults(void)
{ kt_sqlite_options o; kt_sqlite_options_init(&o, sizeof o); return o; }
kt_status kt_export_sqlite(const kt_trace *t, const kt_rank_sel *sel, const kt_sqlite_options *opt,
                           kt_tables **out, kt_diags **diags);
/* report: one self-contained HTML page (inline SVG charts, a little inline
 * script, no network) showing the tables of info, temporal (+ by step),
 * breakdown, categories, idle, gaps, launch, queue, memcpy-bw and overlap
 * (+ by step) — the same tables the CLI prints, run once each — as
 * sections: overview, temporal breakdown, kernel types, top kernels per
 * type, kernel duration across ranks, categories, idle time, gaps and
 * transitions, launches, queue length, memory bandwidth, comm/compute
 * overlap; and where the trace has them critical path, fusion candidates
 * (patterns --mine), collectives/stragglers, memory, perf (roofline), and
 * a diff against opt->baseline (docs/report.md).  Per-rank charts have a
 * rank picker.  Time series are reduced to at most max_points points per
 * line and tables to max_rows rows, so the size depends on ranks and
 * streams, not events.  kt_report_write writes to f; kt_report writes the
 * file at path (KT_EINPUT and why in *diags when it cannot be written) and returns
 * table "report": path, bytes, sections, ranks.                          */
typedef struct kt_report_options {
    size_t size;            /* sizeof the struct (docs/api.md)              */
    const char *title;        /* page title; NULL = "kineta report"        */
    size_t top_kernels;       /* kernels across ranks in the distribution (8) */
    size_t max_points;        /* points drawn per series line (400; 0 = 400) */
    size_t max_rows;          /* rows per table (300; 0 = 300)             */
    const kt_categorizer *categorizer; /* NULL = built-in rules            */
    /* A baseline run: the page gets a diff section (kt_diff(baseline, t):
     * its first rank against the first shown rank); NULL = no diff.      */
    const kt_trace *baseline;
    int jobs;                 /* analyses run at once; 0 = online cores    */
} kt_report_options;
void kt_report_options_init(kt_report_options *o, size_t size);
static inline kt_report_options kt_report_defaults(void)
{ kt_report_options o; kt_report_options_init(&o, sizeof o); return o; }
kt_status kt_report_write(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt, FILE *f,
                          kt_diags **diags);
kt_status kt_report(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt, const char *path,
                    kt_tables **out, kt_diags **diags);


/* ---- scale: one rank at a time (map), per-rank results merged (reduce) ----
 * For jobs whose ranks do not fit in memory together, and for MPI: list the
 * files PATHs stand for, load each alone, run an analysis on it (the map),
 * and merge the tables of the ranks (the reduce).  docs/scaling.md.         */
typedef struct kt_trace_file {
    char *path;
    int rank;          /* explicit rank (kt_load_options.ranks), or -1       */
    int in_dir;        /* found in a directory: skipped when not a trace     */
    uint64_t bytes;    /* size on disk, 0 when unknown                       */
} kt_trace_file;
/* The files kt_load would load for these paths (directories expanded, name
 * order); opt's ranks, nranks and exclude as kt_load's (NULL: none).  Free
 * with kt_trace_files_free.                                                */
kt_status kt_trace_files(const char *const *paths, size_t npaths, const kt_load_options *opt,
                         kt_trace_file **out, size_t *nout, kt_diags **failure);
void kt_trace_files_free(kt_trace_file *f, size_t n);
/* Load one listed file exactly as kt_load loads it among the others
 * (opt->ranks is ignored: f->rank is used).  A directory's JSON that is not
 * a Kineto trace is skipped as kt_load skips it: KT_OK and *out NULL.     */
kt_status kt_load_file(const kt_trace_file *f, const kt_load_options *opt, kt_trace **out, kt_diags **failure);
/* HTA's origin of a loaded trace (ns): the min over its ranks that times
 * relative to the trace start are measured from (A2.10).                 */
int64_t kt_trace_origin(const kt_trace *t);
/* Reduce by concatenation: appends every row of part's tables to the table
 * of the same name in *acc (same columns; tables only in part are added at
 * the end; *acc NULL: takes part as it is).  Takes ownership of part.
 * KT_EANALYSIS when a table's columns differ (names, types, precision).  */
kt_status kt_tables_append(kt_tables **acc, kt_tables *part);
/* A float column of times in µs from one origin (ns) re-expressed from
 * another, exactly as if the analysis had used to_ns: the integer ns of
 * each value is recovered (exact below 2^50 ns) and divided again.  Tables
 * or columns not there are left alone.                                   */
kt_status kt_tables_rebase_us(kt_tables *ts, const char *table, const char *col, int64_t from_ns, int64_t to_ns);
/* Per-rank results side by side (TraceLens's multi-rank report): a table
 * for every name in sets[0..n), in first-seen order, with a leading "rank"
 * column holding ranks[i] on the rows of sets[i], then every column any
 * set's table of that name has (first-seen order; cells a set lacks are
 * null).  The sets are left as they are.                                 */
kt_status kt_tables_stack_ranks(const kt_tables *const *sets, const int *ranks, size_t n, kt_tables **out);
/* Partials on the wire: tables to a self-describing, versioned byte buffer
 * (malloc'd) and back; a damaged or foreign buffer is KT_EINPUT.         */
kt_status kt_tables_serialize(const kt_tables *ts, unsigned char **buf, size_t *len);
kt_status kt_tables_deserialize(const unsigned char *buf, size_t len, kt_tables **out);

#ifdef __cplusplus
}
#endif
#endif /* KINETA_H */
