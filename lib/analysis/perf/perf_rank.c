/*
 * perf_rank.c — the map step of `kineta perf` (perf_rank.h): one rank's
 * kernel launchers grouped by name and category, its modelled ops
 * evaluated from their shapes and grouped by name and parameters, and the
 * FLOPs per family and per step.
 */
#include "analysis/perf/perf_rank.h"

#include "analysis/common/stats.h"
#include "analysis/kernels/kernel_stats.h"
#include "analysis/perf/op_class.h"
#include "analysis/perf/op_kernels.h"
#include "analysis/perf/perf_meta.h"
#include "model/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one op, read once ------------------------------------------------------ */

/* What the tables need of one op record: its name, and its class (shapes,
 * model and the four shape lists as compact JSON, the grouping keys); the
 * Python reprs of the lists are made from its args only for a group's
 * first call.                                                             */
typedef struct op_view {
    const kt_op_rec *o;
    const char *name;
    const char *text;         /* its args text; NULL: none, or no shapes  */
    size_t len;
    bool parsed;              /* the context's args hold this op's parse  */
    kt_op_class *cl;
} op_view;

typedef struct map_ctx {
    const kt_trace *t;
    const kt_rank *r;
    const kt_op_map *m;
    kt_args_reader *rd;
    kt_perf_meta meta;
    kt_perf_partial *p;
    kt_op_classes *classes;
    unsigned flags;           /* kt_perf_map_flags                        */
    kt_perf_cover_pass cover;
    char *bytes;              /* the op's shape bytes                     */
    size_t nbytes, bytes_cap;
    kt_op_args args;          /* reused for every op                      */
    char *keys;               /* a new class's keys, before the copy      */
    size_t keys_cap;
    char *key;                /* the group key being looked up           */
    size_t key_cap;
    uint32_t *kd_name;        /* one op's GPU events for kernel_details  */
    int32_t *kd_stream;
    double *kd_dur;
    struct by_dur_item *kd_items;
    size_t kd_cap;
    uint8_t *summed;          /* bit per event: a kernel in a kernels group */
    struct category_memo {    /* kt_tl_op_category by (op name, kernel)   */
        uint32_t name, kernel;
        const char *category; /* NULL: slot empty                        */
    } categories[256];
    struct model_memo {       /* kt_perf_model_of by op name              */
        uint32_t name;        /* KT_NONE: slot empty                      */
        const kt_op_model *model;
    } models[256];
} map_ctx;

/* The op's model, looked up once per name (the search compares the name
 * with every model's: 7% of perf).                                        */
static const kt_op_model *model_for(map_ctx *c, uint32_t name, const char *text)
{
    struct model_memo *m = &c->models[(name * 0x9E3779B1u) >> 24];
    if (m->name != name || name == KT_NONE) *m = (struct model_memo){ name, kt_perf_model_of(text) };
    return m->model;
}

/* The op's args, parsed on first need (the calls of a known class need
 * them only for the reprs of a new group).                               */
static const kt_op_args *view_args(map_ctx *c, op_view *v)
{
    if (!v->parsed && !(v->text && kt_op_args_parse(&c->args, v->text, v->len))) kt_op_args_clear(&c->args);
    v->parsed = true;
    return &c->args;
}

static bool class_keys(map_ctx *c, op_view *v)
{
    const kt_jnode *lists[4] = { c->args.dims, c->args.types, c->args.strides, c->args.concrete };
    const char *key[4];
    size_t len = v->len, need = 4 * (len + 1);
    if (!kt_grow((void **)&c->keys, &c->keys_cap, need, 1)) return false;
    for (int i = 0; i < 4; i++) {
        char *out = c->keys + (size_t)i * (len + 1);
        key[i] = lists[i] && kt_json_compact(v->text, lists[i], out, len + 1) ? out : NULL;
    }
    return kt_op_class_set_keys(v->cl, key);
}

/* A new class, from its first call: args parsed, model evaluated, keys. */
static bool class_fill(map_ctx *c, op_view *v)
{
    kt_op_class *cl = v->cl;
    const kt_op_args *a = view_args(c, v);
    cl->has_dims = a->has_dims;
    kt_perf_eval_reset(&cl->eval);
    cl->modelled = (v->o->role & KT_OPK_MODELLED) &&
                   kt_perf_eval_model(model_for(c, cl->name, v->name), v->o->family, v->name, a, &cl->eval);
    return class_keys(c, v);
}

/* Whether args text may hold the shape lists: each of their keys has
 * "Input" in it ("Input Dims", "Input type", "Input Strides", "Concrete
 * Inputs"); a backslash could spell it escaped.  Ops recorded without
 * shapes then skip the parse: it was a fourth of kineta perf on top of
 * the load on traces without record_shapes.                              */
static bool may_have_shapes(const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; (p = memchr(p, 'I', (size_t)(end - p))) != NULL; p++) /* memmem: 4% of perf */
        if (end - p >= 5 && !memcmp(p + 1, "nput", 4)) return true;
    return memchr(text, '\\', len);
}

/* The bytes of the op's args that decide its class ("" without shapes),
 * or NULL when the op cannot share one.                                   */
static const char *shape_bytes(map_ctx *c, const op_view *v)
{
    c->nbytes = 0;
    if (!v->text) return "";
    if (!kt_grow((void **)&c->bytes, &c->bytes_cap, 3 * v->len + 16, 1)) return NULL;
    return kt_op_args_shape_bytes(v->text, v->len, c->bytes, &c->nbytes) ? c->bytes : NULL;
}

static bool view_fill(map_ctx *c, const kt_op_rec *o, op_view *v)
{
    const kt_rank *r = c->r;
    uint32_t name = r->ev.name[o->ev];
    *v = (op_view){ .o = o, .name = name == KT_NONE ? "" : kt_strtab_get(c->t->strs, name) };
    if (!(c->rd && kt_args_off(&r->ev, o->ev) && kt_args_reader_get(c->rd, o->ev, &v->text, &v->len) == KT_OK &&
          may_have_shapes(v->text, v->len))) {
        v->text = NULL;
        v->len = 0;
    }
    const char *bytes = shape_bytes(c, v);
    bool fresh;
    v->cl = kt_op_classes_get(c->classes, name, o->role & KT_OPK_MODELLED, bytes, c->nbytes, &fresh);
    return v->cl && (!fresh || class_fill(c, v));
}

/* TraceLens's kernel_details[0]: its GPUEventAnalyser leaves an op's event
 * list sorted by duration (stably), so the first is the shortest.  Its
 * name id, or KT_NONE.                                                    */
static uint32_t first_kernel(const map_ctx *c, const kt_op_rec *o, bool direct_only)
{
    uint32_t best = KT_NONE;
    for (uint32_t j = 0; j < o->nk; j++) {
        uint32_t k = c->m->kev[o->kfirst + j];
        if ((!direct_only || c->m->kdirect[o->kfirst + j]) && (best == KT_NONE || c->r->ev.dur[k] < c->r->ev.dur[best]))
            best = k;
    }
    return best == KT_NONE ? KT_NONE : c->r->ev.name[best];
}

/* The op's TraceLens category: a function of its name and first kernel,
 * remembered per pair (string comparisons against every op list were a
 * seventh of kineta perf on top of the load).                             */
static const char *op_category(map_ctx *c, const op_view *v, bool direct_only)
{
    uint32_t name = c->r->ev.name[v->o->ev], kernel = first_kernel(c, v->o, direct_only);
    struct category_memo *m = &c->categories[(name * 31u + kernel) & 255];
    if (m->category && m->name == name && m->kernel == kernel) return m->category;
    const char *kname = kernel == KT_NONE ? NULL : kt_strtab_get(c->t->strs, kernel);
    *m = (struct category_memo){ name, kernel, kt_tl_op_category(v->name, kname) };
    return m->category;
}

typedef struct by_dur_item {
    int64_t dur; /* ns */
    uint32_t pos, ev;
} by_dur_item;

/* Duration, then the time order they came in (a stable sort). */
static int by_dur(const void *a, const void *b)
{
    const by_dur_item *x = a, *y = b;
    if (x->dur != y->dur) return (x->dur > y->dur) - (x->dur < y->dur);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sorts items by duration, stably: by insertion for the usual few (qsort
 * was a tenth of the kernel_details work).                               */
static void sort_by_dur(by_dur_item *it, size_t n)
{
    if (n > 16) {
        qsort(it, n, sizeof *it, by_dur);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        by_dur_item x = it[i];
        size_t j = i;
        for (; j > 0 && it[j - 1].dur > x.dur; j--) it[j] = it[j - 1];
        it[j] = x;
    }
}

/* How many GPU events the op's kernel_details call has. */
static uint32_t detail_count(const map_ctx *c, const kt_op_rec *o, bool direct_only)
{
    if (!direct_only) return o->nk;
    uint32_t n = 0;
    for (uint32_t j = 0; j < o->nk; j++) n += c->m->kdirect[o->kfirst + j];
    return n;
}

/* add_kernel_details for a call with one GPU event (most calls). */
static bool add_one_kernel(map_ctx *c, kt_pgroup *g, const kt_op_rec *o, bool direct_only)
{
    uint32_t j = o->kfirst;
    while (direct_only && !c->m->kdirect[j]) j++;
    const kt_events *e = &c->r->ev;
    uint32_t k = c->m->kev[j];
    double dur_us = (double)(e->dur[k] > 0 ? e->dur[k] : 0) / 1e3;
    int32_t stream = kt_ev_stream(e, k);
    return kt_pgroup_add_kernels(g, &e->name[k], &stream, &dur_us, 1);
}

/* The op's GPU events (its own, or all below it) into g's kernel_details,
 * in TraceLens's order (by duration).                                    */
static bool add_kernel_details(map_ctx *c, kt_pgroup *g, const kt_op_rec *o, bool direct_only)
{
    if (!(c->flags & KT_PERF_KERNEL_DETAILS)) return true;
    const kt_rank *r = c->r;
    uint32_t want = detail_count(c, o, direct_only);
    if (g->kd_set && (want != g->kd_n || !want)) return true; /* a call kt_pgroup_add_kernels skips */
    if (want == 1) return add_one_kernel(c, g, o, direct_only);
    if (o->nk > c->kd_cap) {
        size_t cap = o->nk * 2;
        uint32_t *nm = realloc(c->kd_name, cap * sizeof *nm);
        if (nm) c->kd_name = nm;
        int32_t *st = nm ? realloc(c->kd_stream, cap * sizeof *st) : NULL;
        if (st) c->kd_stream = st;
        double *du = st ? realloc(c->kd_dur, cap * sizeof *du) : NULL;
        if (du) c->kd_dur = du;
        by_dur_item *it = du ? realloc(c->kd_items, cap * sizeof *it) : NULL;
        if (!it) return false;
        c->kd_items = it;
        c->kd_cap = cap;
    }
    size_t n = 0;
    for (uint32_t j = 0; j < o->nk; j++) {
        if (direct_only && !c->m->kdirect[o->kfirst + j]) continue;
        uint32_t k = c->m->kev[o->kfirst + j];
        c->kd_items[n] = (by_dur_item){ r->ev.dur[k] > 0 ? r->ev.dur[k] : 0, (uint32_t)n, k };
        n++;
    }
    sort_by_dur(c->kd_items, n);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = c->kd_items[i].ev;
        c->kd_name[i] = r->ev.name[k];
        c->kd_stream[i] = kt_ev_stream(&r->ev, k);
        c->kd_dur[i] = (double)c->kd_items[i].dur / 1e3;
    }
    return kt_pgroup_add_kernels(g, c->kd_name, c->kd_stream, c->kd_dur, n);
}

/* key = parts joined by the unit separator; NULL parts read "None".  In
 * c's buffer, reused for every op call (valid until the next key).       */
#define KEY_PARTS_MAX (KT_PERF_MAX_PARAMS + 2)
static const char *join_key(map_ctx *c, const char *const *parts, size_t n)
{
    size_t lens[KEY_PARTS_MAX], len = 1;
    for (size_t i = 0; i < n; i++) len += (lens[i] = parts[i] ? strlen(parts[i]) : 4) + 1;
    if (len > c->key_cap) {
        char *k = realloc(c->key, len);
        if (!k) return NULL;
        c->key = k;
        c->key_cap = len;
    }
    char *o = c->key;
    for (size_t i = 0; i < n; i++) {
        if (i) *o++ = '\x1f';
        memcpy(o, parts[i] ? parts[i] : "None", lens[i]);
        o += lens[i];
    }
    *o = '\0';
    return c->key;
}

/* The group the op's class found in gs before (*memo: its index, KT_NONE
 * none yet), or NULL: a class's later calls skip writing and hashing the
 * key (that was most of the grouping on traces without shapes).          */
static kt_pgroup *known_group(kt_pgroups *gs, const uint32_t *memo)
{
    return *memo != KT_NONE ? &gs->g[*memo] : NULL;
}

/* key's group in gs, its index remembered in *memo. */
static kt_pgroup *find_group(kt_pgroups *gs, uint32_t *memo, const char *key, bool *created)
{
    kt_pgroup *g = key ? kt_pgroups_get(gs, key, created) : NULL;
    if (g) *memo = (uint32_t)(g - gs->g);
    return g;
}

/* The group of key parts in gs; a new one is set up from the op. */
static kt_pgroup *group_for(map_ctx *c, kt_pgroups *gs, uint32_t *memo, const char *const *parts, size_t n,
                            const op_view *v, bool *created)
{
    *created = false;
    kt_pgroup *g = known_group(gs, memo);
    if (g) return g;
    g = find_group(gs, memo, join_key(c, parts, n), created);
    if (!g || !*created) return g;
    g->name = c->r->ev.name[v->o->ev];
    g->rank = c->r->rank;
    g->first_ev = v->o->ev;
    return g;
}

static bool set_category(kt_pgroup *g, const char *cat)
{
    return (g->category = strdup(cat)) != NULL;
}

/* Tuple reprs as the group's shape strings ("" when absent). */
static bool take_tuples(map_ctx *c, kt_pgroup *g, op_view *v)
{
    const kt_op_args *a = view_args(c, v);
    const kt_jnode *lists[4] = { a->dims, a->types, a->strides, a->concrete };
    char **dst[4] = { &g->dims, &g->types, &g->strides, &g->concrete };
    for (int i = 0; i < 4; i++)
        if (!(*dst[i] = lists[i] ? kt_py_repr(&a->tree, lists[i], true) : strdup(""))) return false;
    return true;
}

/* ---- launchers: ops_summary, ops_unique_args, short kernels ----------------- */

static bool add_launcher(map_ctx *c, op_view *v, const char *cat)
{
    const kt_op_rec *o = v->o;
    bool created;
    uint32_t *memo = kt_op_class_memo_for(&v->cl->launcher, (uintptr_t)cat);
    kt_pgroup *g = group_for(c, &c->p->launchers, memo, (const char *[]){ v->name, cat }, 2, v, &created);
    if (!g || (created && !set_category(g, cat))) return false;
    g->direct_sum_us += o->direct_us;
    g->subtree_sum_us += o->subtree_us;
    return kt_pgroup_add_call(g, o->direct_us, o->subtree_us);
}

static bool add_unique(map_ctx *c, op_view *v, const char *cat)
{
    const kt_op_rec *o = v->o;
    bool created;
    const char *parts[5] = { v->name, v->cl->key[0], v->cl->key[1], v->cl->key[2], v->cl->key[3] };
    kt_pgroup *g = group_for(c, &c->p->unique, &v->cl->unique, parts, 5, v, &created);
    if (!g) return false;
    if (created) {
        if (!set_category(g, cat) || !take_tuples(c, g, v)) return false;
        kt_perf_meta_fill(&c->meta, c->r, o->ev, g);
    }
    g->direct_sum_us += o->direct_us;
    g->subtree_sum_us += o->subtree_us;
    return kt_pgroup_add_call(g, o->direct_us, o->subtree_us) && add_kernel_details(c, g, o, true);
}

/* TraceLens's short-kernel study: kernels under 10 µs by launching op,
 * its shapes and the kernel. */
static bool add_short_kernels(map_ctx *c, op_view *v)
{
    const kt_op_rec *o = v->o;
    const kt_rank *r = c->r;
    if (r->ev.kind[o->ev] != KT_K_CPU_OP) return true;
    for (uint32_t j = 0; j < o->nk; j++) {
        uint32_t k = c->m->kev[o->kfirst + j];
        if (!c->m->kdirect[o->kfirst + j] || r->ev.kind[k] != KT_K_KERNEL || r->ev.dur[k] >= 10000) continue;
        const char *kname = r->ev.name[k] == KT_NONE ? "" : kt_strtab_get(c->t->strs, r->ev.name[k]);
        const char *parts[5] = { v->name, v->cl->key[0], v->cl->key[2], v->cl->key[3], kname };
        bool created;
        uint32_t *memo = kt_op_class_memo_for(&v->cl->short_kernel, r->ev.name[k]);
        kt_pgroup *g = group_for(c, &c->p->shorts, memo, parts, 5, v, &created);
        if (!g || (created && !take_tuples(c, g, v))) return false;
        if (created) g->kernels[g->nkernels++] = r->ev.name[k];
        double us = (double)(r->ev.dur[k] > 0 ? r->ev.dur[k] : 0) / 1e3;
        g->direct_sum_us += us;
        if (!kt_pgroup_add_call(g, us, 0)) return false;
    }
    return true;
}

/* The kernel's group in kernels: key parts (category, launcher, kernel
 * name, stream) joined; a new one takes name, category and stream.      */
static kt_pgroup *kernel_group(map_ctx *c, const char *cat, const char *launcher, uint32_t name, uint32_t k)
{
    const kt_rank *r = c->r;
    char stream[16];
    snprintf(stream, sizeof stream, "%d", (int)kt_ev_stream(&r->ev, k));
    const char *kname = r->ev.name[k] == KT_NONE ? "" : kt_strtab_get(c->t->strs, r->ev.name[k]);
    const char *parts[4] = { cat ? cat : "\x02", launcher, kname, stream };
    bool created;
    kt_pgroup *g = kt_pgroups_get(&c->p->kernels, join_key(c, parts, 4), &created);
    if (!g || !created) return g;
    g->name = name;
    g->rank = r->rank;
    g->first_ev = k;
    g->stream = kt_ev_stream(&r->ev, k);
    g->kernels[g->nkernels++] = r->ev.name[k];
    if (cat && !set_category(g, cat)) return NULL;
    return g;
}

static bool add_kernel_call(map_ctx *c, kt_pgroup *g, uint32_t k)
{
    double us = (double)(c->r->ev.dur[k] > 0 ? c->r->ev.dur[k] : 0) / 1e3;
    c->summed[k / 8] |= (uint8_t)(1u << (k % 8));
    g->direct_sum_us += us;
    return kt_pgroup_add_call(g, us, 0);
}

/* TraceLens's kernel_summary: each kernel the op launched by the op's
 * category, name and the kernel's stream; a launch call with no cpu_op
 * above it stands for the op, "graph" or "runtime" its category.        */
static bool add_kernels(map_ctx *c, op_view *v, const char *cat)
{
    const kt_op_rec *o = v->o;
    const kt_rank *r = c->r;
    bool cpu_op = r->ev.kind[o->ev] == KT_K_CPU_OP;
    if (!cpu_op) {
        bool graph = strcasestr(v->name, "cudagraph") || strcasestr(v->name, "graphlaunch");
        cat = graph ? "graph" : "runtime";
    }
    for (uint32_t j = 0; j < o->nk; j++) {
        uint32_t k = c->m->kev[o->kfirst + j];
        if (!c->m->kdirect[o->kfirst + j] || r->ev.kind[k] != KT_K_KERNEL) continue;
        kt_pgroup *g = kernel_group(c, cat, v->name, r->ev.name[o->ev], k);
        if (!g || !add_kernel_call(c, g, k)) return false;
        c->p->kernel_cpu_ops |= cpu_op;
    }
    return true;
}

/* The kernels no launcher claimed, under an empty category and op; and
 * the total of every kernel's duration as TraceLens takes it (numpy's
 * sum over the kernels in file order).                                   */
static bool add_unlinked_kernels(map_ctx *c)
{
    const kt_rank *r = c->r;
    size_t n = 0;
    double *dur = malloc((r->ev.n ? r->ev.n : 1) * sizeof *dur);
    bool ok = dur != NULL;
    for (uint32_t k = 0; ok && k < r->ev.n; k++) {
        if (r->ev.kind[k] != KT_K_KERNEL) continue;
        dur[n++] = (double)(r->ev.dur[k] > 0 ? r->ev.dur[k] : 0) / 1e3;
        if (c->summed[k / 8] >> (k % 8) & 1) continue;
        kt_pgroup *g = kernel_group(c, NULL, "", KT_NONE, k);
        ok = g && add_kernel_call(c, g, k);
    }
    if (ok) c->p->kernel_total_us = kt_np_sum(dur, n);
    free(dur);
    return ok;
}

/* ---- modelled ops: the roofline sheets, unified_perf_summary ----------------- */

/* name, then each parameter, unit-separated. */
static const char *model_key(map_ctx *c, const op_view *v)
{
    const char *parts[KEY_PARTS_MAX] = { v->name };
    char ints[KT_PERF_MAX_PARAMS][24];
    size_t n = 1;
    if (!v->cl->modelled) {
        parts[n++] = v->cl->eval.why ? v->cl->eval.why : "";
    } else {
        for (size_t i = 0; i < v->cl->eval.nparams; i++) {
            const kt_perf_param *p = &v->cl->eval.p[i];
            kt_fmt_i64(p->i, ints[i]);
            parts[n++] = p->is_int ? ints[i] : p->s;
        }
    }
    return join_key(c, parts, n);
}

static bool add_step(kt_perf_partial *p, int64_t step, double flops, double busy_us)
{
    size_t i = 0;
    while (i < p->nsteps && p->steps[i].step < step) i++;
    if (i == p->nsteps || p->steps[i].step != step) {
        if (p->nsteps == p->cap_steps) {
            size_t cap = p->cap_steps ? p->cap_steps * 2 : 8;
            kt_perf_step *s = realloc(p->steps, cap * sizeof *s);
            if (!s) return false;
            p->steps = s;
            p->cap_steps = cap;
        }
        memmove(&p->steps[i + 1], &p->steps[i], (p->nsteps - i) * sizeof *p->steps);
        p->steps[i] = (kt_perf_step){ .step = step };
        p->nsteps++;
    }
    p->steps[i].flops += flops;
    p->steps[i].busy_us += busy_us;
    p->steps[i].calls++;
    return true;
}

static bool list_reprs(map_ctx *c, op_view *v, kt_pgroup *g)
{
    const kt_op_args *a = view_args(c, v);
    g->dims = kt_py_repr(&a->tree, a->dims, false);
    g->types = kt_py_repr(&a->tree, a->types, false);
    g->strides = kt_py_repr(&a->tree, a->strides, false);
    g->concrete = kt_py_repr(&a->tree, a->concrete, false);
    return g->dims && g->types && g->strides && g->concrete;
}

static bool add_model(map_ctx *c, op_view *v)
{
    const kt_op_rec *o = v->o;
    kt_perf_partial *p = c->p;
    p->modelled_calls++;
    if (!v->cl->modelled && !v->cl->has_dims) p->no_shapes++;
    else if (!v->cl->modelled) p->bad_shapes++;
    bool created = false;
    kt_pgroup *g = known_group(&p->models, &v->cl->model);
    if (!g) g = find_group(&p->models, &v->cl->model, model_key(c, v), &created);
    if (!g) return false;
    if (created) {
        g->name = c->r->ev.name[o->ev];
        g->family = o->family;
        g->rank = c->r->rank;
        g->first_ev = o->ev;
        g->modelled = v->cl->modelled;
        g->eval = v->cl->eval;
        if (!list_reprs(c, v, g)) return false;
        kt_perf_meta_fill(&c->meta, c->r, o->ev, g);
    }
    for (uint32_t j = 0; j < o->nk; j++) kt_pgroup_note_kernel(g, c->r->ev.name[c->m->kev[o->kfirst + j]]);
    g->subtree_sum_us += o->subtree_us;
    if (v->cl->modelled && (o->role & KT_OPK_UNIFIED)) { /* outermost only: no FLOPs counted twice */
        p->fam_calls[o->family]++;
        p->fam_flops[o->family] += v->cl->eval.flops;
        p->fam_busy_us[o->family] += o->subtree_us;
        if (!add_step(p, kt_event_step(c->r, o->ev), v->cl->eval.flops, o->subtree_us)) return false;
    }
    return kt_pgroup_add_call(g, o->subtree_us, 0) && add_kernel_details(c, g, o, false);
}

static bool add_unified(map_ctx *c, op_view *v)
{
    const kt_op_rec *o = v->o;
    const char *parts[5] = { v->name, v->cl->key[0], v->cl->key[1], v->cl->key[2], v->cl->key[3] };
    bool created;
    kt_pgroup *g = group_for(c, &c->p->unified, &v->cl->unified, parts, 5, v, &created);
    if (!g) return false;
    if (created) {
        bool launcher_only = !(o->role & KT_OPK_MODELLED);
        g->family = o->family;
        g->modelled = v->cl->modelled;
        g->eval = v->cl->eval;
        if (!set_category(g, op_category(c, v, launcher_only)) || !take_tuples(c, g, v))
            return false;
        kt_perf_meta_fill(&c->meta, c->r, o->ev, g);
    }
    g->subtree_sum_us += o->subtree_us;
    for (uint32_t j = 0; j < o->nk; j++) kt_pgroup_note_kernel(g, c->r->ev.name[c->m->kev[o->kfirst + j]]);
    double cpu_us = (double)(c->r->ev.dur[o->ev] > 0 ? c->r->ev.dur[o->ev] : 0) / 1e3;
    return kt_pgroup_add_call(g, o->subtree_us, cpu_us) && add_kernel_details(c, g, o, false);
}

static bool add_op(map_ctx *c, const kt_op_rec *o)
{
    op_view v;
    bool ok = view_fill(c, o, &v), by_shape = c->flags & KT_PERF_SHAPE_GROUPS;
    ok = ok && kt_perf_cover_op(&c->cover, o, v.name, v.cl->modelled, v.cl->eval.why);
    if (ok && (o->role & KT_OPK_LAUNCHER)) {
        const char *cat = op_category(c, &v, true);
        ok = add_launcher(c, &v, cat) &&
             (!by_shape || (add_unique(c, &v, cat) && add_short_kernels(c, &v) && add_kernels(c, &v, cat)));
    }
    if (ok && (o->role & KT_OPK_MODELLED)) ok = add_model(c, &v);
    if (ok && by_shape && (o->role & KT_OPK_UNIFIED)) ok = add_unified(c, &v);
    return ok;
}

static void map_ctx_free(map_ctx *c)
{
    kt_args_reader_close(c->rd);
    if (c->classes) kt_op_classes_free(c->classes);
    free(c->classes);
    free(c->bytes);
    kt_op_args_free(&c->args);
    free(c->keys);
    free(c->key);
    free(c->kd_name);
    free(c->kd_stream);
    free(c->kd_dur);
    free(c->kd_items);
    free(c->summed);
    free(c->cover.owned);
    kt_perf_meta_free(&c->meta);
}

typedef struct family_memo {
    const kt_trace *t;
    int8_t *fam;     /* by strtab id: -2 not looked up yet */
    size_t n;
    bool triton;
} family_memo;

static int family_of(void *ctx, uint32_t name)
{
    family_memo *f = ctx;
    if (name >= f->n) return kt_perf_family_of(kt_strtab_get(f->t->strs, name), f->triton);
    if (f->fam[name] == -2) f->fam[name] = (int8_t)kt_perf_family_of(kt_strtab_get(f->t->strs, name), f->triton);
    return f->fam[name];
}

kt_status kt_perf_map_rank(const kt_trace *t, const kt_rank *r, unsigned flags, kt_perf_partial *out)
{
    memset(out, 0, sizeof *out);
    family_memo fm = { t, NULL, kt_strtab_count(t->strs), flags & KT_PERF_TRITON };
    fm.fam = malloc(fm.n ? fm.n : 1);
    if (!fm.fam) return KT_ENOMEM;
    memset(fm.fam, -2, fm.n);
    kt_op_map m;
    kt_status st = kt_op_map_build(t, r, family_of, &fm, &m);
    free(fm.fam);
    if (st != KT_OK) return st;
    out->gpu_first_us = m.gpu_first_us;
    out->gpu_last_us = m.gpu_last_us;
    map_ctx c = { .t = t, .r = r, .m = &m, .p = out, .classes = calloc(1, sizeof *c.classes),
                  .flags = flags, .cover = { t, r, &m, calloc(r->ev.n / 8 + 1, 1), &out->cover } };
    for (size_t i = 0; i < sizeof c.models / sizeof *c.models; i++) c.models[i].name = KT_NONE;
    /* without a shape key anywhere (model.h) every op's text would be dropped by may_have_shapes */
    if (m.n && r->shape_args && kt_args_reader_open(r, &c.rd) != KT_OK) out->args_unreadable = true;
    c.summed = flags & KT_PERF_SHAPE_GROUPS ? calloc(r->ev.n / 8 + 1, 1) : NULL;
    bool ok = c.classes && c.cover.owned && kt_perf_meta_collect(t, r, &c.meta) &&
              (c.summed || !(flags & KT_PERF_SHAPE_GROUPS));
    for (size_t i = 0; ok && i < m.n; i++) ok = add_op(&c, &m.ops[i]);
    if (ok && c.summed) ok = add_unlinked_kernels(&c);
    ok = ok && kt_perf_cover_rest(&c.cover);
    map_ctx_free(&c);
    kt_op_map_free(&m);
    if (!ok) {
        kt_perf_partial_free(out);
        return KT_ENOMEM;
    }
    return KT_OK;
}

bool kt_perf_partial_merge(kt_perf_partial *dst, kt_perf_partial *src)
{
    bool ok = kt_pgroups_merge(&dst->launchers, &src->launchers) && kt_pgroups_merge(&dst->unique, &src->unique) &&
              kt_pgroups_merge(&dst->unified, &src->unified) && kt_pgroups_merge(&dst->models, &src->models) &&
              kt_pgroups_merge(&dst->shorts, &src->shorts) && kt_pgroups_merge(&dst->kernels, &src->kernels);
    dst->gpu_first_us = src->gpu_first_us < dst->gpu_first_us ? src->gpu_first_us : dst->gpu_first_us;
    dst->gpu_last_us = src->gpu_last_us > dst->gpu_last_us ? src->gpu_last_us : dst->gpu_last_us;
    for (int f = 0; f < KT_PF__COUNT; f++) {
        dst->fam_calls[f] += src->fam_calls[f];
        dst->fam_flops[f] += src->fam_flops[f];
        dst->fam_busy_us[f] += src->fam_busy_us[f];
    }
    for (size_t i = 0; ok && i < src->nsteps; i++) {
        const kt_perf_step *s = &src->steps[i];
        size_t calls = s->calls;
        ok = add_step(dst, s->step, s->flops, s->busy_us);
        for (size_t j = 0; ok && j < dst->nsteps; j++)
            if (dst->steps[j].step == s->step) dst->steps[j].calls += calls - 1;
    }
    dst->modelled_calls += src->modelled_calls;
    dst->no_shapes += src->no_shapes;
    dst->bad_shapes += src->bad_shapes;
    dst->args_unreadable |= src->args_unreadable;
    dst->kernel_cpu_ops |= src->kernel_cpu_ops;
    dst->kernel_total_us += src->kernel_total_us;
    ok = ok && kt_perf_cover_merge(&dst->cover, &src->cover);
    kt_perf_partial_free(src);
    return ok;
}

void kt_perf_partial_free(kt_perf_partial *p)
{
    kt_pgroups_free(&p->launchers);
    kt_pgroups_free(&p->unique);
    kt_pgroups_free(&p->unified);
    kt_pgroups_free(&p->models);
    kt_pgroups_free(&p->shorts);
    kt_pgroups_free(&p->kernels);
    kt_perf_cover_free(&p->cover);
    free(p->steps);
    memset(p, 0, sizeof *p);
}
