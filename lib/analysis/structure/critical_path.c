/*
 * critical_path.c — `kineta critical-path`: HTA's lightweight critical path
 * analysis (spec A4.11) as tables, what-if predictions and an overlay trace.
 *
 * Map: one rank's model → its graph, longest path and the compact records
 * the tables need (cp_partial).  Reduce: partials → the tables.  The graph
 * itself never leaves the map.
 */
#include "analysis/structure/critical_path_longest.h"
#include "analysis/structure/critical_path_what_if.h"
#include "analysis/common/kernel_names.h"
#include "analysis/common/copy_names.h"
#include "analysis/structure/critical_path_overlay.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_critical_path_options_init(kt_critical_path_options *o, size_t size)
{
    const kt_critical_path_options d = { .annotation = NULL, .instance_first = 0, .instance_last = 0 };
    kt_options_init(o, size, &d, sizeof d);
}

/* One edge of the path with what the tables show of it. */
typedef struct cp_step {
    uint32_t u, v, u_ev, v_ev, attr;
    int64_t u_ts, v_ts, weight; /* ns */
    uint8_t type, cls, u_start, v_start;
} cp_step;

typedef struct cp_partial {
    const kt_rank *r;
    cp_step *steps;
    size_t nsteps;
    int64_t by_class[CP__NCLASSES];
    size_t nodes, edges, by_type[CP__NTYPES], negative, cycle_edges, unreached;
    int64_t win_first, win_last, length;
    cp_scenario *scen;
    size_t nscen;
    int64_t *scen_length;
    cp_overlay_result overlay;
    bool wrote_overlay;
} cp_partial;

static void partial_free(cp_partial *p)
{
    free(p->steps);
    free(p->scen_length);
    free(p->overlay.output);
    *p = (cp_partial){ 0 };
}

/* ---- map ------------------------------------------------------------------ */
static kt_status check_rank(const kt_rank *r, char *err, size_t errlen)
{
    bool cpu = false;
    for (uint32_t i = 0; i < r->ev.n && !cpu; i++) cpu = r->ev.kind[i] == KT_K_CPU_OP;
    if (!cpu)
        snprintf(err, errlen, "rank %d: no CPU ops in the trace: nothing to build a critical path from", r->rank);
    else if (!r->summary.gpu_work)
        snprintf(err, errlen, "rank %d: no GPU events (kernel, memcpy, memset) in the trace", r->rank);
    return cpu && r->summary.gpu_work ? KT_OK : KT_EANALYSIS;
}

static bool has_profiler_step(const kt_rank *r)
{
    return r->idx && r->idx->ncpu_steps > 0;
}

static cp_config config_of(const kt_trace *t, const kt_rank *r, const kt_critical_path_options *o)
{
    const char *ann = o->annotation;
    if (!ann) ann = has_profiler_step(r) || t->hta_compat ? "ProfilerStep" : "";
    return (cp_config){ .annotation = ann, .inst_first = o->instance_first,
                        .inst_last = o->instance_last < o->instance_first ? o->instance_first : o->instance_last,
                        .hta = t->hta_compat };
}

static bool record_steps(const cp_graph *g, const uint8_t *cls, const cp_path *path, bool hta, cp_partial *p)
{
    p->steps = malloc((path->ne ? path->ne : 1) * sizeof *p->steps);
    if (!p->steps) return false;
    for (size_t k = 0; k < path->ne; k++) {
        uint32_t e = path->edges[k], u = g->src[e], v = g->dst[e];
        int64_t w = cp_edge_weight(g, e);
        if (!hta && w < 0) w = 0; /* HTA keeps the negative weight in its tables */
        p->steps[k] = (cp_step){ u, v, g->ev[u], g->ev[v], g->attr[e], g->ts[u], g->ts[v], w, g->type[e], cls[e],
                                 (g->flags[u] & CP_NODE_START) != 0, (g->flags[v] & CP_NODE_START) != 0 };
        p->by_class[cls[e]] += w;
    }
    p->nsteps = path->ne;
    return true;
}

/* Nodes some edge touches: networkx (and HTA's statistics) knows no other. */
static size_t connected_nodes(const cp_graph *g)
{
    uint8_t *seen = calloc(g->n ? g->n : 1, 1);
    if (!seen) return g->n; /* an upper bound will do for a statistic */
    size_t n = 0;
    for (size_t e = 0; e < g->m; e++) {
        n += !seen[g->src[e]] + !seen[g->dst[e]];
        seen[g->src[e]] = seen[g->dst[e]] = 1;
    }
    free(seen);
    return n;
}

static void record_graph(const cp_graph *g, const cp_path *path, cp_partial *p)
{
    p->nodes = connected_nodes(g);
    p->edges = g->m;
    for (size_t e = 0; e < g->m; e++) p->by_type[g->type[e]]++;
    p->negative = path->negative;
    p->cycle_edges = path->cycle_edges;
    p->unreached = g->no_edge_kernels;
    p->win_first = g->win_first;
    p->win_last = g->win_last;
    p->length = path->length;
}

static kt_status predict(const cp_graph *g, const uint8_t *cls, cp_partial *p)
{
    p->scen_length = malloc((p->nscen ? p->nscen : 1) * sizeof *p->scen_length);
    if (!p->scen_length) return KT_ENOMEM;
    for (size_t k = 0; k < p->nscen; k++) {
        cp_path alt;
        kt_status s = cp_longest_path(g, cls, p->scen[k].scale, &alt);
        if (s != KT_OK) return s;
        p->scen_length[k] = alt.length;
        cp_path_free(&alt);
    }
    return KT_OK;
}

static kt_status write_overlay(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r, const cp_graph *g,
                               const cp_path *path, const kt_critical_path_options *o, kt_overlay_write_fn write,
                               cp_partial *p, char *err, size_t errlen)
{
    cp_overlay_request rq = { .t = t, .r = r, .g = g, .path = path, .out_dir = o->out_dir,
                              .only_critical = o->only_critical != 0, .all_edges = o->all_edges != 0,
                              .tag_rank = kt_file_name_shared(t, sel, r) };
    kt_status s = cp_write_overlay(&rq, write, &p->overlay, err, errlen);
    p->wrote_overlay = s == KT_OK;
    return s;
}

static kt_status rank_map(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r,
                          const kt_critical_path_options *o, kt_overlay_write_fn write, cp_partial *p, char *err,
                          size_t errlen)
{
    p->r = r;
    kt_status s = check_rank(r, err, errlen);
    if (s != KT_OK) return s;
    cp_config cfg = config_of(t, r, o);
    cp_graph g;
    s = cp_graph_build(r, t->strs, &cfg, &g, err, errlen);
    if (s != KT_OK) return s;
    if (g.m == 0) {
        snprintf(err, errlen, "rank %d: no CPU op or GPU event in the window %.3f-%.3f us of \"%s\" instance "
                 "%lld", r->rank, (double)(g.win_first - t->min_ts) / 1e3, (double)(g.win_last - t->min_ts) / 1e3,
                 cfg.annotation, (long long)cfg.inst_first);
        cp_graph_free(&g);
        return KT_EANALYSIS;
    }
    uint8_t *cls = malloc(g.m); /* the classes, of the path's edges only unless what-if rescales them all */
    cp_path path = { 0 };
    s = cls ? cp_longest_path(&g, NULL, NULL, &path) : KT_ENOMEM;
    bool all = p->nscen > 0;
    if (s == KT_OK && !cp_classify_edges(r, t->strs, &g, all ? NULL : path.edges, all ? g.m : path.ne, cls))
        s = KT_ENOMEM;
    if (s == KT_OK && !record_steps(&g, cls, &path, cfg.hta, p)) s = KT_ENOMEM;
    if (s == KT_OK) record_graph(&g, &path, p);
    if (s == KT_OK && p->nscen) s = predict(&g, cls, p);
    if (s == KT_OK && o->out_dir) s = write_overlay(t, sel, r, &g, &path, o, write, p, err, errlen);
    cp_path_free(&path);
    free(cls);
    cp_graph_free(&g);
    return s;
}

/* ---- reduce ----------------------------------------------------------------- */
typedef struct cp_tables {
    kt_table *summary, *breakdown, *edges, *graph, *what_if, *files;
    size_t longest; /* breakdown rows per rank, 0 = every path edge */
    char **short_names; /* by string id, made on first use: a path repeats names */
    size_t nnames;
} cp_tables;

static kt_table *new_table(const char *name, const char *const *cols, const kt_col_type *types, size_t n)
{
    kt_table *t = kt_table_new(name);
    for (size_t i = 0; t && i < n; i++) kt_table_add_col(t, cols[i], types[i], types[i] == KT_COL_FLOAT ? 3 : 0);
    return t;
}

#define NEW_TABLE(name, cols, types) new_table(name, cols, types, sizeof cols / sizeof *cols)

#define I KT_COL_INT
#define F KT_COL_FLOAT
#define S KT_COL_STR
static bool make_tables(cp_tables *tb, const kt_critical_path_options *o)
{
    static const char *const sc[] = { "rank", "bound_by", "pct_of_critical_path_duration", "duration_us" };
    static const kt_col_type st[] = { I, S, F, F };
    static const char *const bc[] = { "rank", "event_idx", "duration", "type", "s_name", "cat",
                                      "pid", "tid", "stream", "bound_by", "edge" };
    static const kt_col_type bt[] = { I, I, F, S, S, S, I, I, I, S, I };
    size_t nbc = sizeof bc / sizeof *bc - (o->longest_edges ? 0 : 1); /* "edge" only with longest_edges */
    static const char *const ec[] = { "rank", "u", "v", "u_ev", "v_ev", "u_ts", "v_ts", "u_is_start", "v_is_start",
                                      "type", "weight", "attributed_ev" };
    static const kt_col_type et[] = { I, I, I, I, I, F, F, I, I, S, F, I };
    static const char *const gc[] = { "rank", "window_start_us", "window_end_us", "nodes", "edges",
                                      "critical_path_operator", "critical_path_dependency",
                                      "critical_path_kernel_launch_delay", "critical_path_kernel_kernel_delay",
                                      "critical_path_sync_dependency", "path_nodes", "path_length_us",
                                      "negative_weight_edges", "cycle_edges_ignored", "unreached_gpu_events" };
    static const kt_col_type gt[] = { I, F, F, I, I, I, I, I, I, I, I, F, I, I, I };
    static const char *const wc[] = { "rank", "scenario", "path_length_us", "predicted_us", "change_pct" };
    static const kt_col_type wt[] = { I, S, F, F, F };
    static const char *const fc[] = { "rank", "input", "output", "events_marked", "arrows" };
    static const kt_col_type ft[] = { I, S, S, I, I };
    tb->summary = NEW_TABLE("summary", sc, st);
    bool edges = !o->no_edges, what_if = o->what_if != NULL, files = o->out_dir != NULL;
    tb->longest = o->longest_edges;
    tb->breakdown = new_table("breakdown", bc, bt, nbc);
    tb->edges = edges ? NEW_TABLE("edges", ec, et) : NULL;
    tb->graph = NEW_TABLE("graph", gc, gt);
    tb->what_if = what_if ? NEW_TABLE("what_if", wc, wt) : NULL;
    tb->files = files ? NEW_TABLE("files", fc, ft) : NULL;
    return tb->summary && tb->breakdown && (!edges || tb->edges) && tb->graph && (!what_if || tb->what_if) &&
           (!files || tb->files);
}
#undef I
#undef F
#undef S

static double us(int64_t ns)
{
    return (double)ns / 1000.0;
}

/* hta: HTA's rows, with its "" row of the dependency / sync edges, which
 * weigh nothing (a blank 0% row everywhere else).                       */
static void add_summary(kt_table *tb, const cp_partial *p, bool hta)
{
    int64_t total = 0;
    for (int c = 0; c < CP__NCLASSES; c++) total += p->by_class[c];
    /* HTA's groupby order: bound_by sorted, only the classes on the path */
    static const cp_class order[] = { CP_CLASS_NONE, CP_CLASS_CPU, CP_CLASS_COMM, CP_CLASS_GPU,
                                      CP_CLASS_KERNEL_GAP, CP_CLASS_LAUNCH };
    bool present[CP__NCLASSES] = { 0 };
    for (size_t k = 0; k < p->nsteps; k++) present[p->steps[k].cls] = true;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        if (!present[order[i]] || (order[i] == CP_CLASS_NONE && !hta)) continue;
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, p->r->rank);
        kt_table_set_str(tb, 1, cp_class_name(order[i]));
        kt_table_set_float(tb, 2, total ? 100.0 * (double)p->by_class[order[i]] / (double)total : 0.0);
        kt_table_set_float(tb, 3, us(p->by_class[order[i]]));
    }
}

/* s_name: HTA's shorten_name under --hta-compat (the breakdown equals
 * HTA's, "<forward op>" becoming ""), else kineta's short kernel name.     */
static const char *short_name(cp_tables *tb, const kt_trace *t, uint32_t name)
{
    if (name == KT_NONE) return "";
    if (name < tb->nnames && !tb->short_names[name]) {
        const char *full = kt_strtab_get(t->strs, name);
        tb->short_names[name] = t->hta_compat ? kt_hta_short_name(full) : kt_kernel_short_name(full);
    }
    const char *s = name < tb->nnames ? tb->short_names[name] : NULL;
    return s ? s : kt_strtab_get(t->strs, name);
}

static void add_breakdown_row(cp_tables *tbs, const kt_trace *t, const cp_partial *p, size_t k)
{
    const kt_rank *r = p->r;
    const cp_step *s = &p->steps[k];
    kt_table *tb = tbs->breakdown;
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, r->rank);
    if (tbs->longest) kt_table_set_int(tb, 10, (int64_t)k);
    kt_table_set_float(tb, 2, us(s->weight));
    kt_table_set_str(tb, 3, cp_type_name(s->type));
    kt_table_set_str(tb, 9, cp_class_name(s->cls));
    if (s->attr == KT_NONE) return;
    kt_table_set_int(tb, 1, s->attr);
    kt_table_set_str(tb, 4, short_name(tbs, t, r->ev.name[s->attr]));
    uint32_t cat = r->ev.cat[s->attr];
    kt_table_set_str(tb, 5, cat == KT_NONE ? "" : kt_strtab_get(t->strs, cat));
    kt_table_set_int(tb, 6, kt_event_pid(r, s->attr));
    kt_table_set_int(tb, 7, kt_event_tid(r, s->attr));
    kt_table_set_int(tb, 8, kt_ev_stream(&r->ev, s->attr));
}

static void add_edge_row(kt_table *tb, const kt_trace *t, const cp_partial *p, const cp_step *s)
{
    kt_table_add_row(tb);
    int64_t vals[] = { p->r->rank, s->u, s->v, s->u_ev, s->v_ev };
    for (size_t c = 0; c < 5; c++) kt_table_set_int(tb, c, vals[c]);
    kt_table_set_float(tb, 5, us(s->u_ts - t->min_ts));
    kt_table_set_float(tb, 6, us(s->v_ts - t->min_ts));
    kt_table_set_int(tb, 7, s->u_start);
    kt_table_set_int(tb, 8, s->v_start);
    kt_table_set_str(tb, 9, cp_type_name(s->type));
    kt_table_set_float(tb, 10, us(s->weight));
    if (s->attr != KT_NONE) kt_table_set_int(tb, 11, s->attr);
}

static void add_graph_row(kt_table *tb, const kt_trace *t, const cp_partial *p)
{
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, p->r->rank);
    kt_table_set_float(tb, 1, us(p->win_first - t->min_ts));
    kt_table_set_float(tb, 2, us(p->win_last - t->min_ts));
    kt_table_set_int(tb, 3, (int64_t)p->nodes);
    kt_table_set_int(tb, 4, (int64_t)p->edges);
    for (int k = 0; k < CP__NTYPES; k++) kt_table_set_int(tb, 5 + k, (int64_t)p->by_type[k]);
    kt_table_set_int(tb, 10, (int64_t)(p->nsteps ? p->nsteps + 1 : 0));
    kt_table_set_float(tb, 11, us(p->length));
    kt_table_set_int(tb, 12, (int64_t)p->negative);
    kt_table_set_int(tb, 13, (int64_t)p->cycle_edges);
    kt_table_set_int(tb, 14, (int64_t)p->unreached);
}

static void add_what_if_rows(kt_table *tb, const cp_partial *p)
{
    for (size_t k = 0; k < p->nscen; k++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, p->r->rank);
        kt_table_set_str(tb, 1, p->scen[k].text);
        kt_table_set_float(tb, 2, us(p->length));
        kt_table_set_float(tb, 3, us(p->scen_length[k]));
        double change = (double)(p->scen_length[k] - p->length);
        kt_table_set_float(tb, 4, p->length ? 100.0 * change / (double)p->length : 0.0);
    }
}

static void add_file_row(kt_table *tb, const cp_partial *p)
{
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, p->r->rank);
    kt_table_set_str(tb, 1, p->r->file ? p->r->file : "");
    kt_table_set_str(tb, 2, p->overlay.output ? p->overlay.output : "");
    kt_table_set_int(tb, 3, (int64_t)p->overlay.marked);
    kt_table_set_int(tb, 4, (int64_t)p->overlay.arrows);
}

/* The positions of the n longest steps, longest first, ties in path order
 * (durations compared as the table shows them): one pass keeping a short
 * sorted list.  Returns how many: n or fewer.                            */
static size_t longest_steps(const cp_partial *p, size_t n, size_t *pos)
{
    size_t kept = 0;
    for (size_t k = 0; k < p->nsteps; k++) {
        double d = us(p->steps[k].weight);
        if (kept == n && d <= us(p->steps[pos[kept - 1]].weight)) continue;
        size_t at = kept < n ? kept++ : kept - 1;
        for (; at > 0 && d > us(p->steps[pos[at - 1]].weight); at--) pos[at] = pos[at - 1];
        pos[at] = k;
    }
    return kept;
}

/* A row per path step: room made once per rank, not by doubling (its
 * copies were 1% of the command); half again more, so that many ranks
 * still grow the tables geometrically.                                   */
static void reserve_rows(kt_table *tb, size_t more)
{
    size_t have = kt_table_nrows(tb), rows = have + more;
    kt_table_reserve(tb, have ? rows + rows / 2 : rows);
}

static bool add_path_rows(const kt_trace *t, const cp_partial *p, cp_tables *tb)
{
    size_t *pos = tb->longest ? malloc(tb->longest * sizeof *pos) : NULL;
    if (tb->longest && !pos) return false;
    size_t n = pos ? longest_steps(p, tb->longest, pos) : p->nsteps;
    reserve_rows(tb->breakdown, n);
    for (size_t i = 0; i < n; i++) add_breakdown_row(tb, t, p, pos ? pos[i] : i);
    free(pos);
    if (!tb->edges) return true;
    reserve_rows(tb->edges, p->nsteps);
    for (size_t k = 0; k < p->nsteps; k++) add_edge_row(tb->edges, t, p, &p->steps[k]);
    return true;
}

static kt_status reduce(const kt_trace *t, const cp_partial *p, cp_tables *tb)
{
    add_summary(tb->summary, p, t->hta_compat);
    if (!add_path_rows(t, p, tb)) return KT_ENOMEM;
    add_graph_row(tb->graph, t, p);
    if (tb->what_if) add_what_if_rows(tb->what_if, p);
    if (tb->files && p->wrote_overlay) add_file_row(tb->files, p);
    return KT_OK;
}

kt_status kt_critical_path_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_critical_path_options *opt,
                                   kt_overlay_write_fn write, kt_tables **out, kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_critical_path_options o = kt_critical_path_defaults();
    if (!kt_options_take(&o, sizeof o, opt) || (o.out_dir && !write)) return KT_EUSAGE;
    char err[512] = "";
    cp_scenario scen[CP_MAX_SCENARIOS];
    size_t nscen = 0;
    kt_status s = cp_parse_what_if(o.what_if, scen, &nscen, err, sizeof err);
    if (s != KT_OK) {
        kt_diags_fail(diags, NULL, "%s", err);
        return s;
    }
    cp_tables tb = { .nnames = kt_strtab_count(t->strs) };
    tb.short_names = calloc(tb.nnames ? tb.nnames : 1, sizeof *tb.short_names);
    if (!tb.short_names || !make_tables(&tb, &o)) s = KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++) {
        if (!kt_rank_selected(sel, t->ranks[i]->rank)) continue;
        cp_partial p = { .scen = scen, .nscen = nscen };
        s = rank_map(t, sel, t->ranks[i], &o, write, &p, err, sizeof err);
        if (s == KT_OK) s = reduce(t, &p, &tb);
        partial_free(&p);
    }
    for (size_t k = 0; tb.short_names && k < tb.nnames; k++) free(tb.short_names[k]);
    free(tb.short_names);
    kt_table *all[6] = { tb.summary, tb.breakdown };
    size_t n = 2;
    if (tb.edges) all[n++] = tb.edges;
    all[n++] = tb.graph;
    if (tb.what_if) all[n++] = tb.what_if;
    if (tb.files) all[n++] = tb.files;
    if (s != KT_OK) {
        for (size_t k = 0; k < n; k++) kt_table_free(all[k]);
        kt_diags_fail(diags, NULL, "%s", err);
        return s;
    }
    return kt_tables_from(all, n, out);
}
