/*
 * cupti.c — `kineta cupti`: CUPTI range-profiler counters joined to the
 * ops that launched each profiled kernel (HTA
 * get_cupti_counter_data_with_operators, spec A4.10), with FLOPs from the
 * SASS instruction counters.
 *
 * In range-profiler mode Kineto writes one cuda_profiler_range event per
 * kernel (its counters in args, synthetic back-to-back times) and no
 * kernel events, so a range must be tied to its launch call some other
 * way.  HTA pairs the i-th range with the i-th cudaLaunchKernel by time;
 * we use the correlation id when a range carries one and fall back to
 * HTA's positional pairing for the rest only when the counts agree (a
 * positional pairing of unequal lists would attribute counters to the
 * wrong ops).  Each range row says which was used.  Per rank a map
 * (ranges, launches, pairing); the tables concatenate the ranks.
 */
#include "analysis/attribute/device_peak.h"
#include "analysis/common/np_sort.h"
#include "model/index.h"
#include "table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MATCH_NONE, MATCH_CORRELATION, MATCH_POSITION };
static const char *const match_names[] = { "none", "correlation", "position" };

/* FLOPs per instruction of the SASS counters (HTA's
 * CUDA_SASS_INSTRUCTION_COUNTER_FLOPS: fused multiply-add = 2).          */
static int flops_per_inst(const char *counter)
{
    static const char *const ops[] = { "ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd" };
    static const char prefix[] = "smsp__sass_thread_inst_executed_op_";
    if (!kt_starts_with(counter, prefix)) return 0;
    const char *op = counter + sizeof prefix - 1;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strncmp(op, ops[i], 4) && !strcmp(op + 4, "_pred_on.sum")) return op[1] == 'f' && op[2] == 'm' ? 2 : 1;
    return 0;
}

typedef struct counter_keys {
    uint32_t *key; /* arg keys (KT_ARG_DYNAMIC + name id), first-seen order */
    int *per;      /* FLOPs per instruction of each (0: not a FLOP counter) */
    bool *is_float; /* some range gives it a non-integer value */
    size_t n, cap;
    uint32_t time_key; /* gpu__time_duration.sum, or KT_NONE */
} counter_keys;

typedef struct cupti_rank {
    const kt_rank *r;
    uint32_t *ranges, *launches, *match;
    uint8_t *how;
    size_t nranges, nlaunches, by_corr, by_pos;
    bool skipped;   /* hta_compat: counts differ, HTA gives no rows */
} cupti_rank;

static bool launch_name(const kt_trace *t, uint32_t name)
{
    const char *n = kt_strtab_get(t->strs, name);
    if (t->hta_compat) return kt_starts_with(n, "cudaLaunchKernel");
    return strstr(n, "LaunchKernel") || strstr(n, "LaunchCooperativeKernel");
}

/* memo: per name id, 0 unknown, 1 a kernel launch name, 2 not. */
static bool is_kernel_launch(const kt_trace *t, const kt_events *e, uint32_t i, uint8_t *memo)
{
    if (e->ph[i] != 'X' || e->name[i] == KT_NONE || (e->kind[i] != KT_K_RUNTIME && e->kind[i] != KT_K_DRIVER))
        return false;
    if (t->hta_compat && !kt_starts_with(kt_strtab_get(t->strs, e->cat[i]), "cuda_runtime")) return false;
    if (!memo[e->name[i]]) memo[e->name[i]] = launch_name(t, e->name[i]) ? 1 : 2;
    return memo[e->name[i]] == 1;
}

static bool wanted(const kt_trace *t, const kt_events *e, uint32_t i, bool ranges, uint8_t *memo)
{
    return ranges ? e->kind[i] == KT_K_PROFILER_RANGE && e->ph[i] == 'X' : is_kernel_launch(t, e, i, memo);
}

/* Ranges, or kernel launch calls, in pandas sort_values("ts") order
 * (numpy's quicksort of the file-order column).                          */
static uint32_t *sorted_events(const kt_trace *t, const kt_rank *r, bool ranges, size_t *n)
{
    const kt_events *e = &r->ev;
    uint8_t *memo = calloc(kt_strtab_count(t->strs) + 1, 1);
    size_t k = 0;
    for (uint32_t i = 0; memo && i < e->n; i++) k += wanted(t, e, i, ranges, memo);
    uint32_t *ids = malloc((k ? k : 1) * sizeof *ids), *pos = malloc((k ? k : 1) * sizeof *pos);
    uint32_t *out = malloc((k ? k : 1) * sizeof *out);
    int64_t *ts = malloc((k ? k : 1) * sizeof *ts);
    bool ok = memo && ids && pos && out && ts;
    size_t j = 0;
    for (uint32_t i = 0; ok && i < e->n; i++)
        if (wanted(t, e, i, ranges, memo)) {
            pos[j] = (uint32_t)j;
            ts[j] = e->ts[i];
            ids[j++] = i;
        }
    if (ok) kt_np_argsort_i64(ts, pos, k);
    for (size_t p = 0; ok && p < k; p++) out[p] = ids[pos[p]];
    free(memo);
    free(ids);
    free(pos);
    free(ts);
    if (!ok) { free(out); return NULL; }
    *n = k;
    return out;
}

typedef struct corr_launch {
    int32_t corr;
    uint32_t ev;
} corr_launch;

static int by_corr(const void *a, const void *b)
{
    const corr_launch *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Ranges carrying a launch's correlation id are paired with it. */
static bool match_by_correlation(cupti_rank *c, bool *used)
{
    const kt_events *e = &c->r->ev;
    corr_launch *cl = malloc((c->nlaunches ? c->nlaunches : 1) * sizeof *cl);
    if (!cl) return false;
    for (size_t i = 0; i < c->nlaunches; i++) cl[i] = (corr_launch){ e->corr[c->launches[i]], (uint32_t)i };
    qsort(cl, c->nlaunches, sizeof *cl, by_corr);
    for (size_t k = 0; k < c->nranges; k++) {
        int32_t corr = e->corr[c->ranges[k]];
        if (corr < 0) continue;
        size_t lo = 0, hi = c->nlaunches;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cl[mid].corr < corr) lo = mid + 1;
            else hi = mid;
        }
        if (lo < c->nlaunches && cl[lo].corr == corr && !used[cl[lo].ev]) {
            used[cl[lo].ev] = true;
            c->match[k] = c->launches[cl[lo].ev];
            c->how[k] = MATCH_CORRELATION;
            c->by_corr++;
        }
    }
    free(cl);
    return true;
}

/* HTA's pairing of the rest: i-th range with i-th launch, by time, when
 * as many ranges as launches are left.                                    */
static void match_by_position(cupti_rank *c, const bool *used)
{
    size_t left_r = c->nranges - c->by_corr, left_l = c->nlaunches - c->by_corr;
    if (left_r != left_l) return;
    size_t l = 0;
    for (size_t k = 0; k < c->nranges; k++) {
        if (c->how[k] != MATCH_NONE) continue;
        while (used[l]) l++;
        c->match[k] = c->launches[l++];
        c->how[k] = MATCH_POSITION;
        c->by_pos++;
    }
}

static kt_status map_rank(const kt_trace *t, const kt_rank *r, cupti_rank *c)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->ranges = sorted_events(t, r, true, &c->nranges);
    c->launches = sorted_events(t, r, false, &c->nlaunches);
    c->match = malloc((c->nranges + 1) * sizeof *c->match);
    c->how = calloc(c->nranges + 1, 1);
    bool *used = calloc(c->nlaunches + 1, sizeof *used);
    bool ok = c->ranges && c->launches && c->match && c->how && used;
    for (size_t k = 0; ok && k < c->nranges; k++) c->match[k] = KT_NONE;
    if (ok && t->hta_compat) c->skipped = c->nranges != c->nlaunches;
    else ok = ok && match_by_correlation(c, used);
    if (ok && !c->skipped) match_by_position(c, used);
    free(used);
    if (ok && c->nranges && kt_index_call_tree(r) != KT_OK) ok = false;
    return ok ? KT_OK : KT_ENOMEM;
}

static void cupti_rank_free(cupti_rank *c)
{
    free(c->ranges);
    free(c->launches);
    free(c->match);
    free(c->how);
}

/* ---- counters as columns ------------------------------------------------- */

static bool note_keys(const kt_rank *r, const cupti_rank *c, counter_keys *k)
{
    for (size_t i = 0; i < c->nranges; i++) {
        uint32_t ev = c->ranges[i];
        for (uint32_t a = 0; a < r->ev.nargs[ev]; a++) {
            uint32_t key = r->args[r->ev.argi[ev] + a].key;
            if (key < KT_ARG_DYNAMIC || r->args[r->ev.argi[ev] + a].type == KT_ARGT_STR) continue;
            bool fl = r->args[r->ev.argi[ev] + a].type == KT_ARGT_FLOAT;
            size_t j = 0;
            while (j < k->n && k->key[j] != key) j++;
            if (j < k->n) {
                k->is_float[j] |= fl;
                continue;
            }
            if (k->n == k->cap) {
                size_t cap = k->cap ? 2 * k->cap : 16;
                uint32_t *p = realloc(k->key, cap * sizeof *p);
                if (p) k->key = p;
                int *q = realloc(k->per, cap * sizeof *q);
                if (q) k->per = q;
                bool *f = realloc(k->is_float, cap * sizeof *f);
                if (f) k->is_float = f;
                if (!p || !q || !f) return false;
                k->cap = cap;
            }
            k->is_float[k->n] = fl;
            k->key[k->n++] = key;
        }
    }
    return true;
}

static double arg_value(const kt_arg *a)
{
    return a->type == KT_ARGT_INT ? (double)a->v.i : a->v.f;
}

/* ---- op stack ------------------------------------------------------------- */

/* cpu_ops around the launch, outermost first (ids into stack, count). */
static size_t op_stack(const kt_rank *r, uint32_t call, uint32_t *stack, size_t cap)
{
    size_t n = 0;
    for (uint32_t p = r->idx->parent[call]; p != KT_NONE && n < cap; p = r->idx->parent[p])
        if (r->ev.kind[p] == KT_K_CPU_OP) stack[n++] = p;
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t x = stack[i];
        stack[i] = stack[n - 1 - i];
        stack[n - 1 - i] = x;
    }
    return n;
}

/* Python's repr of a list of str (HTA writes op_stack that way), or the
 * names joined by " > ".                                                 */
static char *stack_text(const kt_trace *t, const kt_rank *r, const uint32_t *st, size_t n)
{
    size_t len = 3;
    for (size_t i = 0; i < n; i++) len += 2 * kt_strtab_len(t->strs, r->ev.name[st[i]]) + 4;
    char *s = malloc(len), *p = s;
    if (!s) return NULL;
    if (t->hta_compat) *p++ = '[';
    for (size_t i = 0; i < n; i++) {
        const char *name = kt_strtab_get(t->strs, r->ev.name[st[i]]);
        if (i) p += t->hta_compat ? (memcpy(p, ", ", 2), 2) : (memcpy(p, " > ", 3), 3);
        if (!t->hta_compat) {
            size_t l = strlen(name);
            memcpy(p, name, l);
            p += l;
            continue;
        }
        char q = strchr(name, '\'') && !strchr(name, '"') ? '"' : '\'';
        *p++ = q;
        for (; *name; name++) {
            if (*name == '\\' || *name == q) *p++ = '\\';
            *p++ = *name;
        }
        *p++ = q;
    }
    if (t->hta_compat) *p++ = ']';
    *p = '\0';
    return s;
}

/* ---- tables ----------------------------------------------------------------- */

/* What the "ops" table needs of each range. */
typedef struct range_sum {
    uint32_t top, bottom; /* op name ids, KT_NONE without */
    double ns, flops;
} range_sum;

typedef struct cupti_out {
    const kt_trace *t;
    const kt_cupti_options *o;
    counter_keys keys;
    kt_table *counters, *ops, *match;
    size_t first_counter, after_counters;
    /* the last op stack's names and text: consecutive ranges repeat it */
    uint32_t last[256];
    size_t nlast;
    char *last_text;
    double peak;  /* TFLOP/s of the rank being written, 0 unknown */
} cupti_out;

static kt_table *counters_table(cupti_out *c)
{
    static const char *const head[] = { "rank", "name", "cat", "pid", "tid", "ts", "dur" };
    static const char *const tail[] = { "launch_correlation", "match", "op_stack", "top_level_op",
                                        "bottom_level_op", "flops", "tflops_per_s", "pct_of_peak" };
    static const kt_col_type ttypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_STR, KT_COL_STR,
                                          KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT };
    kt_table *tb = kt_table_new("counters");
    if (!tb) return NULL;
    for (size_t i = 0; i < 7; i++)
        kt_table_add_col(tb, head[i], i == 1 || i == 2 ? KT_COL_STR : i >= 5 ? KT_COL_FLOAT : KT_COL_INT,
                         c->t->hta_compat ? -1 : 3);
    c->first_counter = 7;
    for (size_t k = 0; k < c->keys.n; k++) {
        const char *name = kt_strtab_get(c->t->strs, c->keys.key[k] - KT_ARG_DYNAMIC);
        kt_table_add_col(tb, name, c->keys.is_float[k] ? KT_COL_FLOAT : KT_COL_INT, -1);
        c->keys.per[k] = flops_per_inst(name);
    }
    c->after_counters = 7 + c->keys.n;
    /* flops are whole numbers (instruction counts × 1 or 2) */
    for (size_t i = 0; i < 8; i++) kt_table_add_col(tb, tail[i], ttypes[i], i == 5 ? 0 : i == 6 ? 3 : 2);
    return tb;
}

/* What a range's args give: its counters (set in the current row when
 * row is true), FLOPs, and the kernel's own duration when the range
 * measured it (gpu__time_duration.sum, ns), else the range's: in
 * range-profiler mode that is the profiling window, replays included.  */
typedef struct range_values {
    double flops, ns;
    bool any_flops;
} range_values;

static range_values read_range(cupti_out *c, const kt_rank *r, uint32_t ev)
{
    range_values v = { 0, (double)r->ev.dur[ev], false };
    for (uint32_t a = 0; a < r->ev.nargs[ev]; a++) {
        const kt_arg *x = &r->args[r->ev.argi[ev] + a];
        if (x->key < KT_ARG_DYNAMIC || x->type == KT_ARGT_STR) continue;
        size_t k = a < c->keys.n && c->keys.key[a] == x->key ? a : 0; /* ranges list counters alike */
        while (k < c->keys.n && c->keys.key[k] != x->key) k++;
        if (k == c->keys.n) continue;
        double val = arg_value(x);
        if (c->keys.is_float[k]) kt_table_set_float(c->counters, c->first_counter + k, val);
        else kt_table_set_int(c->counters, c->first_counter + k, x->v.i);
        if (c->keys.per[k]) {
            v.any_flops = true;
            v.flops += c->keys.per[k] * val;
        }
        if (x->key == c->keys.time_key) v.ns = val;
    }
    return v;
}

static double peak_of(const cupti_out *c, const kt_rank *r)
{
    if (c->o && c->o->peak_tflops > 0) return c->o->peak_tflops;
    return r->ndevices && r->device_names[0] != KT_NONE
               ? kt_device_peak_fp32_tflops(kt_strtab_get(c->t->strs, r->device_names[0]))
               : 0;
}

/* The op stack's text, reused while consecutive ranges share the stack. */
static const char *stack_text_cached(cupti_out *c, const kt_rank *r, const uint32_t *st, size_t n)
{
    bool same = c->last_text && n == c->nlast;
    for (size_t i = 0; same && i < n; i++) same = c->last[i] == r->ev.name[st[i]];
    if (same) return c->last_text;
    free(c->last_text);
    c->last_text = stack_text(c->t, r, st, n);
    c->nlast = n;
    for (size_t i = 0; i < n; i++) c->last[i] = r->ev.name[st[i]];
    return c->last_text;
}

static bool range_row(cupti_out *c, const cupti_rank *cr, size_t k, range_sum *sum)
{
    const kt_trace *t = c->t;
    const kt_rank *r = cr->r;
    const kt_events *e = &r->ev;
    kt_table *tb = c->counters;
    uint32_t ev = cr->ranges[k], call = cr->match[k], stack[256];
    size_t col = c->after_counters, n = call == KT_NONE ? 0 : op_stack(r, call, stack, 256);
    const char *text = stack_text_cached(c, r, stack, n);
    if (!text) return false;
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, r->rank);
    kt_table_set_str(tb, 1, e->name[ev] == KT_NONE ? "" : kt_strtab_get(t->strs, e->name[ev]));
    kt_table_set_str(tb, 2, kt_strtab_get(t->strs, e->cat[ev]));
    kt_table_set_int(tb, 3, kt_event_pid(r, ev));
    kt_table_set_int(tb, 4, kt_event_tid(r, ev));
    kt_table_set_float(tb, 5, (double)(e->ts[ev] - t->min_ts) / 1e3);
    kt_table_set_float(tb, 6, (double)e->dur[ev] / 1e3);
    range_values v = read_range(c, r, ev);
    if (call != KT_NONE) kt_table_set_int(tb, col, kt_event_corr(r, call));
    kt_table_set_str(tb, col + 1, match_names[cr->how[k]]);
    kt_table_set_str(tb, col + 2, text);
    kt_table_set_str(tb, col + 3, n ? kt_strtab_get(t->strs, e->name[stack[0]]) : "");
    kt_table_set_str(tb, col + 4, n ? kt_strtab_get(t->strs, e->name[stack[n - 1]]) : "");
    double peak = c->peak, tflops = v.any_flops && v.ns > 0 ? v.flops / (v.ns * 1e-9) / 1e12 : NAN;
    kt_table_set_float(tb, col + 5, v.any_flops ? v.flops : NAN);
    kt_table_set_float(tb, col + 6, tflops);
    kt_table_set_float(tb, col + 7, peak > 0 ? 100.0 * tflops / peak : NAN);
    *sum = (range_sum){ n ? e->name[stack[0]] : KT_NONE, n ? e->name[stack[n - 1]] : KT_NONE, v.ns, v.flops };
    return true;
}

static void match_row(cupti_out *c, const cupti_rank *cr)
{
    kt_table *tb = c->match;
    size_t unmatched = cr->nranges - cr->by_corr - cr->by_pos;
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, cr->r->rank);
    kt_table_set_int(tb, 1, (int64_t)cr->nranges);
    kt_table_set_int(tb, 2, (int64_t)cr->nlaunches);
    kt_table_set_int(tb, 3, (int64_t)cr->by_corr);
    kt_table_set_int(tb, 4, (int64_t)cr->by_pos);
    kt_table_set_int(tb, 5, (int64_t)unmatched);
    kt_table_set_str(tb, 6, cr->skipped ? "range and launch counts differ: rank skipped (HTA)"
                            : unmatched ? "range and launch counts differ: not paired by position"
                            : "");
}

/* "ops": ranges per (top-level op, bottom-level op) with their FLOPs. */
typedef struct op_pair {
    uint32_t top, bottom;
    uint64_t ranges;
    int64_t dur;
    double flops;
} op_pair;

typedef struct op_pairs {
    op_pair *v;
    size_t n, cap;
} op_pairs;

static bool add_pair(op_pairs *p, uint32_t top, uint32_t bottom, int64_t dur, double flops)
{
    size_t i = 0;
    while (i < p->n && (p->v[i].top != top || p->v[i].bottom != bottom)) i++;
    if (i == p->n) {
        if (p->n == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 32;
            op_pair *v = realloc(p->v, cap * sizeof *v);
            if (!v) return false;
            p->v = v;
            p->cap = cap;
        }
        p->v[p->n++] = (op_pair){ top, bottom, 0, 0, 0 };
    }
    p->v[i].ranges++;
    p->v[i].dur += dur;
    p->v[i].flops += flops;
    return true;
}

static int by_dur_desc(const void *a, const void *b)
{
    const op_pair *x = a, *y = b;
    return (x->dur < y->dur) - (x->dur > y->dur);
}

static bool ops_rows(cupti_out *c, int rank, const range_sum *rs, size_t n)
{
    op_pairs p = { 0 };
    bool ok = true;
    for (size_t k = 0; ok && k < n; k++) ok = add_pair(&p, rs[k].top, rs[k].bottom, (int64_t)rs[k].ns, rs[k].flops);
    if (p.n) qsort(p.v, p.n, sizeof *p.v, by_dur_desc);
    for (size_t i = 0; ok && i < p.n; i++) {
        const op_pair *x = &p.v[i];
        kt_table_add_row(c->ops);
        kt_table_set_int(c->ops, 0, rank);
        kt_table_set_str(c->ops, 1, x->top == KT_NONE ? "(no op)" : kt_strtab_get(c->t->strs, x->top));
        kt_table_set_str(c->ops, 2, x->bottom == KT_NONE ? "(no op)" : kt_strtab_get(c->t->strs, x->bottom));
        kt_table_set_int(c->ops, 3, (int64_t)x->ranges);
        kt_table_set_float(c->ops, 4, (double)x->dur / 1e3);
        kt_table_set_float(c->ops, 5, x->flops);
        kt_table_set_float(c->ops, 6, x->dur > 0 ? x->flops / ((double)x->dur * 1e-9) / 1e12 : NAN);
    }
    free(p.v);
    return ok;
}

static kt_table *simple_table(const char *name, const char *const *cols, const kt_col_type *types, size_t n)
{
    kt_table *tb = kt_table_new(name);
    for (size_t i = 0; tb && i < n; i++) kt_table_add_col(tb, cols[i], types[i], types[i] == KT_COL_FLOAT ? 3 : 0);
    return tb;
}

static bool make_tables(cupti_out *c)
{
    static const char *const ocols[] = { "rank", "top_level_op", "bottom_level_op", "ranges", "dur_us", "flops",
                                         "tflops_per_s" };
    static const kt_col_type otypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT,
                                          KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT };
    static const char *const mcols[] = { "rank", "ranges", "launches", "matched_by_correlation",
                                         "matched_by_position", "unmatched", "note" };
    static const kt_col_type mtypes[] = { KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT,
                                          KT_COL_INT, KT_COL_INT, KT_COL_STR };
    c->counters = counters_table(c);
    c->ops = simple_table("ops", ocols, otypes, 7);
    c->match = simple_table("match", mcols, mtypes, 7);
    return c->counters && c->ops && c->match;
}

static bool emit_rank(cupti_out *c, const cupti_rank *cr)
{
    c->peak = peak_of(c, cr->r);
    match_row(c, cr);
    if (cr->skipped) return true;
    range_sum *rs = malloc((cr->nranges + 1) * sizeof *rs);
    bool ok = rs != NULL;
    for (size_t k = 0; ok && k < cr->nranges; k++) ok = range_row(c, cr, k, &rs[k]);
    ok = ok && ops_rows(c, cr->r->rank, rs, cr->nranges);
    free(rs);
    return ok;
}

void kt_cupti_options_init(kt_cupti_options *o, size_t size)
{
    const kt_cupti_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_cupti(const kt_trace *t, const kt_rank_sel *sel, const kt_cupti_options *opt, kt_tables **out)
{
    static const char time_key[] = "gpu__time_duration.sum";
    kt_cupti_options o = kt_cupti_defaults();
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    uint32_t tk = kt_strtab_find(t->strs, time_key, sizeof time_key - 1);
    cupti_out c = { .t = t, .o = &o, .keys.time_key = tk == KT_NONE ? KT_NONE : KT_ARG_DYNAMIC + tk };
    cupti_rank *cr = calloc(t->nranks + 1, sizeof *cr);
    size_t n = 0;
    kt_status s = cr ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++) {
        if (!kt_rank_selected(sel, t->ranks[i]->rank)) continue;
        s = map_rank(t, t->ranks[i], &cr[n++]);
        if (s == KT_OK && !note_keys(t->ranks[i], &cr[n - 1], &c.keys)) s = KT_ENOMEM;
    }
    if (s == KT_OK && !make_tables(&c)) s = KT_ENOMEM;
    size_t rows = 0;
    for (size_t i = 0; i < n; i++) rows += cr[i].skipped ? 0 : cr[i].nranges;
    if (s == KT_OK) kt_table_reserve(c.counters, rows);
    for (size_t i = 0; s == KT_OK && i < n; i++)
        if (!emit_rank(&c, &cr[i])) s = KT_ENOMEM;
    for (size_t i = 0; cr && i < n; i++) cupti_rank_free(&cr[i]);
    free(cr);
    free(c.keys.key);
    free(c.keys.per);
    free(c.keys.is_float);
    free(c.last_text);
    kt_table *tb[3] = { c.counters, c.ops, c.match };
    if (s != KT_OK) {
        for (int i = 0; i < 3; i++) kt_table_free(tb[i]);
        *out = NULL;
        return s;
    }
    return kt_tables_from(tb, 3, out);
}
