/*
 * report_sections.h — what the sections of `kineta report` share: the
 * analyses' tables (each analysis run at most once per report, on first
 * use, and shared by every section that shows it), the ranks, and the
 * section list itself.
 *
 * A section is {id, title, intro, builder}; the builder only reads tables
 * of the analyses through rp_tables() and draws them — the report computes
 * nothing the CLI does not print.  Adding an analysis's section (docs/
 * report.md): an rp_analysis value and its runner in report_analyses.c,
 * a builder, and one line in rp_sections (report_sections.c).
 */
#ifndef KT_REPORT_SECTIONS_H
#define KT_REPORT_SECTIONS_H

#include "analysis/common/step_series.h"
#include "analysis/memory/memory_events.h"
#include "output/report_html.h"
#include "output/report_svg.h"

typedef enum {
    RP_INFO,
    RP_TEMPORAL,
    RP_TEMPORAL_BY_STEP,
    RP_BREAKDOWN,
    RP_CATEGORIES,
    RP_IDLE,
    RP_GAPS,
    RP_LAUNCH,
    RP_QUEUE,
    RP_MEMCPY_BW,
    RP_OVERLAP,
    RP_OVERLAP_BY_STEP,
    RP_MEMORY,
    RP_CRITICAL_PATH,
    RP_MINE,
    RP_COLLECTIVES,
    RP_STRAGGLERS,
    RP_PERF,
    RP_DIFF,
    RP_DIFF_BY_OP,
    RP_NANALYSES
} rp_analysis;

/* One rank's points of a series analysis, kept as it made them (the queue
 * lengths: kt_queue_tables_keep), for a chart without the series table.  */
typedef struct rp_kept_points {
    const kt_rank *r;
    kt_step_point *p;
    size_t n;
} rp_kept_points;

/* One rank's [memory] events kept from kt_memory (kt_memory_keeping), for
 * the memory chart without the series table.                            */
typedef struct rp_kept_memory {
    const kt_rank *r;
    kt_mem_rank m;
} rp_kept_memory;

typedef struct rp_ctx {
    const kt_trace *t;
    const kt_rank_sel *sel;
    const kt_report_options *opt;
    rp_html *h;
    kt_tables *tables[RP_NANALYSES];
    kt_status status[RP_NANALYSES];
    bool ran[RP_NANALYSES];
    int *ranks; /* the ranks shown, ascending */
    size_t nranks;
    const char **rank_labels;     /* "rank N" for each of ranks */
    char *label_text;             /* their text */
    rp_kept_points *queue_points; /* RP_QUEUE's, rank by rank */
    size_t nqueue_points;
    rp_kept_memory *memory_ranks; /* RP_MEMORY's, rank by rank */
    size_t nmemory_ranks;
} rp_ctx;

/* Run every analysis the page may use, `jobs` at a time (0: one per
 * online core), before the sections ask for them: they only read the
 * trace, and most of a report's time is theirs.                          */
void rp_prefetch(rp_ctx *c, int jobs);
/* The analysis's tables (run on first use), or NULL when it failed. */
const kt_tables *rp_tables(rp_ctx *c, rp_analysis a);
/* One table of it, or NULL. */
const kt_table *rp_table(rp_ctx *c, rp_analysis a, const char *name);
/* KT_ENOMEM when any analysis ran out of memory (the report then fails). */
kt_status rp_analyses_status(const rp_ctx *c);
void rp_analyses_free(rp_ctx *c);

/* Cell helpers: column by name (-1 if absent); a numeric cell as double
 * (NaN when null or the column is absent); a string cell ("" likewise).   */
long rp_col(const kt_table *t, const char *name);
double rp_num(const kt_table *t, size_t row, long col);
/* A whole column as rp_num reads its cells, into dst (nrows(t) values):
 * one pass instead of a call per cell for the long series tables.        */
void rp_nums(const kt_table *t, long col, double *dst);
/* Columns cols[0..k) (k <= RP_NUMS_MAX) of rows [r0, r1) as rp_nums
 * reads each, into dst[j][0 .. r1 - r0), in one pass over the rows
 * (kt_table_floats_rows).                                                */
#define RP_NUMS_MAX 8
void rp_nums_rows(const kt_table *t, const long *cols, size_t k, size_t r0, size_t r1, double *const *dst);
const char *rp_str(const kt_table *t, size_t row, long col);
/* Rows of t whose int column `col` equals rank, into rows (capacity
 * nrows(t)); returns their count.                                          */
size_t rp_rows_of_rank(const kt_table *t, long col, int rank, size_t *rows);
/* A table of the page copying columns of an analysis table: rows[0..n)
 * (all rows when rows is NULL), at most max_rows of them.                 */
typedef struct rp_column {
    const char *head; /* header on the page    */
    const char *name; /* column of the table   */
    rp_unit unit;     /* RP_PLAIN for strings  */
} rp_column;
void rp_table_cols(rp_ctx *c, const char *caption, const kt_table *t, const size_t *rows, size_t n,
                   const rp_column *cols, size_t ncols);
/* The note shown when an analysis failed or a table is missing. */
void rp_missing(rp_ctx *c, rp_analysis a, const char *what);

/* Stacked bars from long-format rows (all rows when rows is NULL): one bar
 * per distinct number in bar_col (first-seen order, labelled "<bar_prefix>
 * N"), one segment per distinct string in seg_col (first-seen order, or
 * only and in the order of segs[0..nsegs) when segs is given; seg_col -1:
 * every row in the one segment segs[0], which names the legend), heights
 * from val_col.                                                            */
kt_status rp_pivot_bars(rp_html *h, const char *title, const char *x_label, const kt_table *t, const size_t *rows,
                        size_t n, long bar_col, const char *bar_prefix, long seg_col, const char *const *segs,
                        size_t nsegs, long val_col, rp_unit unit);

/* A time-series table split into one series per (rank, k1, k2): queue
 * length per (rank, pid, stream), bandwidth per (rank, pid, name).  k2 is
 * a number or a string column; the series label is "<prefix><k2>".       */
typedef struct rp_groups {
    size_t n;
    rp_series *s;
    int *rank;             /* rank of each series */
    char *labels;          /* label text, RP_GROUP_LABEL bytes each */
    double *xy;            /* all x then all y values */
    size_t points, filled; /* rp_groups_reserve's room, and how much is used */
} rp_groups;
#define RP_GROUP_LABEL 96
kt_status rp_group_series(const kt_table *t, long rank_col, long k1_col, long k2_col, const char *prefix,
                          long x_col, long y_col, rp_groups *out);
/* Series filled one by one from what an analysis kept (not a table):
 * room for nseries series of npoints points in all; each rp_groups_next
 * labels the next series "<prefix><text>" (text NULL: num as a number),
 * and gives its n slots of x and y to fill; rp_groups_sort then orders
 * each series by x, as rp_group_series does.                             */
kt_status rp_groups_reserve(rp_groups *g, size_t nseries, size_t npoints);
void rp_groups_next(rp_groups *g, int rank, const char *prefix, const char *text, double num, size_t n, double **x,
                    double **y);
kt_status rp_groups_sort(rp_groups *g);
/* The same series from kept points (one series per run of points of one
 * series: kt_step_same_series), as the series table of those points would
 * be split: x in µs since the trace's start, y the value, label
 * "<prefix><key>".                                                        */
kt_status rp_group_points(const kt_trace *t, const rp_kept_points *ranks, size_t nranks, const char *prefix,
                          rp_groups *out);
/* Allocated (g[0]) and reserved (g[1]) bytes per device from kept
 * [memory] events, as kt_memory's series table of them would be split
 * (a device's shown events, in time order; labels "allocated cuda:0").  */
kt_status rp_group_memory(const kt_trace *t, const rp_kept_memory *ranks, size_t nranks, rp_groups g[2]);
void rp_groups_free(rp_groups *g);

typedef struct rp_section {
    const char *id;    /* HTML id, also the anchor in the header        */
    const char *title;
    const char *intro; /* one line under the heading: what it answers   */
    /* Writes the section body; KT_ENOMEM aborts the report, anything else
     * is shown as a note in the section.                                */
    kt_status (*build)(rp_ctx *c);
    /* Sections about what only some traces record ([memory] events, ...):
     * whether this trace has it; a section not shown is left out of the
     * page and its links.  NULL: always shown.                          */
    bool (*shown)(rp_ctx *c);
} rp_section;

extern const rp_section rp_sections[];
extern const size_t rp_nsections;
/* The sections every page has (shown == NULL). */
size_t rp_nsections_always(void);

/* The builders (report_sec_*.c). */
kt_status rp_sec_overview(rp_ctx *c);
kt_status rp_sec_temporal(rp_ctx *c);
kt_status rp_sec_kernel_types(rp_ctx *c);
kt_status rp_sec_top_kernels(rp_ctx *c);
kt_status rp_sec_distribution(rp_ctx *c);
kt_status rp_sec_categories(rp_ctx *c);
kt_status rp_sec_idle(rp_ctx *c);
kt_status rp_sec_gaps(rp_ctx *c);
kt_status rp_sec_launch(rp_ctx *c);
kt_status rp_sec_queue(rp_ctx *c);
kt_status rp_sec_memcpy_bw(rp_ctx *c);
kt_status rp_sec_overlap(rp_ctx *c);
kt_status rp_sec_memory(rp_ctx *c);
bool rp_has_memory(rp_ctx *c);
kt_status rp_sec_critical_path(rp_ctx *c);
bool rp_has_critical_path(rp_ctx *c);
kt_status rp_sec_patterns(rp_ctx *c);
bool rp_has_patterns(rp_ctx *c);
kt_status rp_sec_collectives(rp_ctx *c);
bool rp_has_collectives(rp_ctx *c);
kt_status rp_sec_perf(rp_ctx *c);
bool rp_has_perf(rp_ctx *c);
kt_status rp_sec_diff(rp_ctx *c);
bool rp_has_baseline(rp_ctx *c);

#endif
