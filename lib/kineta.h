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
    int jobs;               /* worker threads; 0 = number of online cores    */
    int hta_compat;         /* reproduce HTA load semantics (ns rounding,
                               incomplete-iteration filtering)                */
    const int *ranks;       /* explicit rank per path (npaths entries) or NULL */
    kt_progress_fn progress;/* optional, called from the loading threads      */
    void *progress_user;
} kt_load_options;

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
int kt_table_is_null(const kt_table *t, size_t row, size_t col);
int64_t kt_table_int(const kt_table *t, size_t row, size_t col);
double kt_table_float(const kt_table *t, size_t row, size_t col);
const char *kt_table_str(const kt_table *t, size_t row, size_t col);
/* Column index by name, or -1. */
long kt_table_col_index(const kt_table *t, const char *name);

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
 * override them.  Errors in rule text: KT_EUSAGE and "line N: why" in err. */
typedef struct kt_categorizer kt_categorizer;
kt_status kt_categorizer_new(kt_categorizer **out);
kt_status kt_categorizer_add_rules(kt_categorizer *c, const char *text, char *err, size_t errlen);
/* As add_rules, from a file (KT_EINPUT when it cannot be read). */
kt_status kt_categorizer_load_rules(kt_categorizer *c, const char *path, char *err, size_t errlen);
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
    KT_KSORT_COUNT,        /* launches (default)                 */
    KT_KSORT_DURATION,     /* average duration                   */
    KT_KSORT_TOTAL,        /* total duration                     */
    KT_KSORT_PERCENTAGE,   /* % of launches (same order as count) */
    KT_KSORT_DURATION_PCT  /* % of kernel time (same as total)    */
} kt_kernel_sort;
typedef enum { KT_KBY_NAME, KT_KBY_SHORT, KT_KBY_CATEGORY, KT_KBY_TYPE, KT_KBY_LAUNCHER } kt_kernel_key;
typedef struct kt_kernels_options {
    kt_kernel_sort sort;
    kt_kernel_key by;       /* grouping key; names are full names unless KT_KBY_SHORT */
    size_t top;             /* rows kept; 0 = all                         */
    int memory;             /* include memcpy/memset                      */
    int full_names;         /* show full names instead of short forms     */
    int64_t pstep;          /* only ProfilerStep#pstep; -1 = everything   */
    const kt_categorizer *categorizer; /* NULL = built-in rules           */
} kt_kernels_options;
/* Defaults: sort by count, by name, top 10, kernels only, short names, all steps. */
kt_kernels_options kt_kernels_defaults(void);
kt_status kt_kernels(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                     kt_tables **out);

/* breakdown: HTA's get_gpu_kernel_breakdown (docs/kernels.md).  Tables
 * "kernel_type" (kernel_type,sum,percentage: time partitioned into types and
 * their overlaps, all ranks), "kernels" (name,sum (us),max (us),min (us),
 * stddev,mean (us),kernel_type,rank + count: per rank and type, the tail
 * folded into "others"), "distribution" (each top kernel's mean/min/max on
 * every rank) and "kernel_type_by_rank".  Statistics are real per-launch
 * statistics; under hta_compat HTA's folding bug and columns are kept.     */
typedef struct kt_breakdown_options {
    size_t num_kernels;     /* named kernels kept per rank and type (10)  */
    double duration_ratio;  /* HTA's cumulative-time quantile (0.8)        */
    int memory;             /* analyse MEMORY kernels too (1)              */
} kt_breakdown_options;
/* Defaults: HTA's (10 kernels, ratio 0.8, memory kernels included). */
kt_breakdown_options kt_breakdown_defaults(void);
kt_status kt_breakdown(const kt_trace *t, const kt_rank_sel *sel, const kt_breakdown_options *opt,
                       kt_tables **out);

/* categories: every kernel's kernel_category, attributed to its launching
 * CPU op.  Tables "kernels" (cpu_op,kernel_category,kernel_name,count,
 * total_time_ms,avg_time_us), "op_categories" (cpu_op,kernel_category,count,
 * total_time_ms,% of op time) and "categories" (per category).  Kernels
 * of graph launches are attributed to the graph launch call, kernels with
 * no launch link to "(unlinked)".                                           */
typedef struct kt_categories_options {
    int memory;             /* include memcpy/memset (1)                   */
    int full_names;
    size_t top;             /* rows of "kernels" and "op_categories"; 0 = all */
    int64_t pstep;          /* -1 = everything                             */
    const kt_categorizer *categorizer; /* NULL = built-in rules            */
} kt_categories_options;
/* Defaults: memory included, short names, all rows, all steps. */
kt_categories_options kt_categories_defaults(void);
kt_status kt_categories(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
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
    int by_step;
    int by_device;
    int tracelens;
} kt_temporal_options;
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
    double consecutive_kernel_delay_us; /* default 30 */
    const int64_t *streams;             /* only these streams; NULL = all */
    size_t nstreams;
} kt_idle_options;
kt_status kt_idle(const kt_trace *t, const kt_rank_sel *sel, const kt_idle_options *opt,
                  kt_tables **out);

/* overlap: share of communication time overlapped by computation (HTA
 * comm/comp overlap, A4.4).  Table "comm_comp_overlap": rank,
 * comp_comm_overlap_pctg (null when a rank has no communication); by_step
 * adds a "step" column and one row per rank and ProfilerStep.             */
typedef struct kt_overlap_options {
    int by_step;
} kt_overlap_options;
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
kt_gaps_options kt_gaps_defaults(void);
kt_status kt_gaps(const kt_trace *t, const kt_rank_sel *sel, const kt_gaps_options *opt,
                  kt_tables **out);

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
    double runtime_cutoff_us;      /* HTA default 50 */
    double launch_delay_cutoff_us; /* HTA default 100 */
} kt_launch_options;
kt_status kt_launch(const kt_trace *t, const kt_rank_sel *sel, const kt_launch_options *opt,
                    kt_tables **out);

/* queue: launches waiting on each GPU stream (HTA queue length, A4.7): +1
 * at a launch call's start, −1 at its GPU event's start.  Tables "series":
 * ts (µs from the trace origin), pid, tid, stream, queue_length, rank (one
 * row per change); "summary": rank, stream, queue_length_count ... _max
 * (describe() over the change points, as HTA); "blocked": rank, stream,
 * duration_at_max_queue_length (µs), relative_duration_at_max_queue_length
 * — time with at least max_queue_length launches waiting, for every stream
 * (HTA reports only the last stream of a rank, and only under hta_compat
 * do we); "weighted": rank, stream, duration, time-weighted mean and
 * 50/90/99% queue length, max, pct_time_empty.  Queues are per (device,
 * stream): summary, blocked and weighted end with a "device" column unless
 * hta_compat.                                                              */
typedef struct kt_queue_options {
    int64_t max_queue_length; /* default 1024 (CUDA's per-stream limit) */
} kt_queue_options;
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
 * overwritten.  Table "files": rank, input, output,
 * counter_events, bytes (uncompressed JSON written).                       */
typedef struct kt_counters_options {
    const char *out_dir;  /* required */
    int no_queue_length;  /* leave out the queue-length tracks */
    int no_memcpy_bw;     /* leave out the bandwidth tracks */
    char *err;            /* optional: why a file could not be written */
    size_t errlen;
} kt_counters_options;
kt_status kt_counters(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt,
                      kt_tables **out);

/* ---- structure analyses: patterns, critical path --------------------------- */


/* ---- compare and attribute: diff, cupti, annotations, ops, memory ---------- */


/* ---- across ranks: collectives, stragglers, clock alignment ---------------- */


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
 *   "notes": why columns are missing (no shapes, no device spec, ...).
 * Under tracelens the launcher and roofline tables also carry TraceLens's
 * kernel_details summary columns (Python reprs, as its CSVs).
 * Device spec: device_spec (TraceLens's arch JSON text) when given, else —
 * unless tracelens — the built-in datasheet figures of the GPU named in
 * the trace's deviceProperties; none → no roofline columns and a note.   */
typedef struct kt_perf_options {
    int tracelens;            /* TraceLens's column names, rows and order      */
    const char *device_spec;  /* arch JSON text (not a path); NULL = none      */
    size_t top;               /* headroom rows kept; 0 = all (default 20)      */
} kt_perf_options;
kt_perf_options kt_perf_defaults(void);
/* KT_EUSAGE (and a reason in err) when device_spec is not a valid arch JSON. */
kt_status kt_perf(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                  char *err, size_t errlen);


/* ---- reports and exports: report.html -------------------------------------- */


#ifdef __cplusplus
}
#endif
#endif /* KINETA_H */
