/*
 * perf_rank.c — the map step of `kineta perf` (perf_rank.h): one rank's
 * kernel launchers grouped by name and category, its modelled ops
 * evaluated from their shapes and grouped by name and parameters, and the
 * FLOPs per family and per step.
 */
#include "analysis/perf/perf_rank.h"

#include "analysis/perf/op_kernels.h"
#include "model/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- process and thread names of the first call (metadata events) ------- */

typedef struct meta_names {
    uint32_t *ev;  /* M events naming processes, threads and labels */
    size_t n;
} meta_names;

static bool meta_collect(const kt_trace *t, const kt_rank *r, meta_names *m)
{
    uint32_t pn = kt_strtab_find(t->strs, "process_name", 12), tn = kt_strtab_find(t->strs, "thread_name", 11),
             pl = kt_strtab_find(t->strs, "process_labels", 14);
    m->n = 0;
    m->ev = NULL;
    size_t cap = 0;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint32_t name = r->ev.name[ev];
        if (r->ev.ph[ev] != 'M' || name == KT_NONE || (name != pn && name != tn && name != pl)) continue;
        if (m->n == cap) {
            cap = cap ? cap * 2 : 16;
            uint32_t *p = realloc(m->ev, cap * sizeof *p);
            if (!p) return false;
            m->ev = p;
        }
        m->ev[m->n++] = ev;
    }
    return true;
}

/* "labels" of a process_labels event, read from its raw args. */
static char *label_of(const kt_rank *r, uint32_t ev)
{
    char *text;
    size_t len;
    if (kt_event_args_json(r, ev, &text, &len) != KT_OK) return NULL;
    kt_jtree jt = { 0 };
    const char *err;
    char *out = NULL;
    if (kt_jtree_parse(&jt, text, len, &err)) {
        const kt_jnode *l = kt_jobj_get(&jt, &jt.n[0], "labels");
        if (l && l->type == KT_J_STR) out = strdup(l->s);
    }
    kt_jtree_free(&jt);
    free(text);
    return out;
}

static void meta_fill(const kt_trace *t, const kt_rank *r, const meta_names *m, uint32_t op, kt_pgroup *g)
{
    for (size_t i = 0; i < m->n; i++) {
        uint32_t ev = m->ev[i];
        if (r->ev.pid[ev] != r->ev.pid[op]) continue;
        const char *what = kt_strtab_get(t->strs, r->ev.name[ev]);
        uint32_t s = kt_event_arg_str(r, ev, KT_ARG_META_NAME);
        const char *val = s == KT_NONE ? NULL : kt_strtab_get(t->strs, s);
        if (!strcmp(what, "process_name") && val && !g->process_name) g->process_name = strdup(val);
        else if (!strcmp(what, "thread_name") && val && !g->thread_name && r->ev.tid[ev] == r->ev.tid[op])
            g->thread_name = strdup(val);
        else if (!strcmp(what, "process_labels") && !g->process_label) g->process_label = label_of(r, ev);
    }
}

/* ---- launchers ---------------------------------------------------------------- */

static const char *first_direct_kernel(const kt_trace *t, const kt_rank *r, const kt_op_map *m, const kt_op_rec *o)
{
    for (uint32_t j = 0; j < o->nk; j++)
        if (m->kdirect[o->kfirst + j]) {
            uint32_t name = r->ev.name[m->kev[o->kfirst + j]];
            return name == KT_NONE ? NULL : kt_strtab_get(t->strs, name);
        }
    return NULL;
}

static bool add_launcher(const kt_trace *t, const kt_rank *r, const kt_op_map *m, const kt_op_rec *o,
                         kt_perf_partial *p)
{
    const char *name = r->ev.name[o->ev] == KT_NONE ? "" : kt_strtab_get(t->strs, r->ev.name[o->ev]);
    const char *cat = kt_tl_op_category(name, first_direct_kernel(t, r, m, o));
    size_t len = strlen(name) + strlen(cat) + 2;
    char *key = malloc(len);
    if (!key) return false;
    snprintf(key, len, "%s\x1f%s", name, cat);
    bool created;
    kt_pgroup *g = kt_pgroups_get(&p->launchers, key, &created);
    free(key);
    if (!g) return false;
    if (created) {
        g->name = r->ev.name[o->ev];
        g->rank = r->rank;
        g->first_ev = o->ev;
        g->category = strdup(cat);
        if (!g->category) return false;
    }
    g->direct_sum_us += o->direct_us;
    g->subtree_sum_us += o->subtree_us;
    return kt_pgroup_add_call(g, o->direct_us);
}

/* ---- modelled ops --------------------------------------------------------------- */

/* name, then each parameter, unit-separated. */
static char *model_key(const char *name, const kt_perf_eval *e, const char *why)
{
    size_t len = strlen(name) + 2 + (why ? strlen(why) + 2 : 0);
    for (size_t i = 0; i < e->nparams; i++) len += strlen(e->p[i].s) + 24;
    char *key = malloc(len), *o = key;
    if (!key) return NULL;
    o += sprintf(o, "%s", name);
    if (why) sprintf(o, "\x1f!%s", why);
    for (size_t i = 0; !why && i < e->nparams; i++)
        o += e->p[i].is_int ? sprintf(o, "\x1f%lld", (long long)e->p[i].i) : sprintf(o, "\x1f%s", e->p[i].s);
    return key;
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

static bool first_call_strings(const kt_op_args *a, kt_pgroup *g)
{
    g->dims = kt_py_repr(&a->tree, a->dims, false);
    g->types = kt_py_repr(&a->tree, a->types, false);
    g->strides = kt_py_repr(&a->tree, a->strides, false);
    g->concrete = kt_py_repr(&a->tree, a->concrete, false);
    return g->dims && g->types && g->strides && g->concrete;
}

typedef struct model_ctx {
    const kt_trace *t;
    const kt_rank *r;
    const kt_op_map *m;
    kt_args_reader *rd;
    kt_op_args args;
    meta_names meta;
    kt_perf_partial *p;
} model_ctx;

static bool add_model(model_ctx *c, const kt_op_rec *o)
{
    const kt_rank *r = c->r;
    const char *name = kt_strtab_get(c->t->strs, r->ev.name[o->ev]);
    kt_perf_eval e;
    const char *text = NULL;
    size_t len = 0;
    bool have = c->rd && r->ev.args_off[o->ev] && kt_args_reader_get(c->rd, o->ev, &text, &len) == KT_OK &&
                kt_op_args_parse(&c->args, text, len);
    if (!have) kt_op_args_free(&c->args);
    bool ok = kt_perf_eval_op(o->family, name, &c->args, &e);
    c->p->modelled_calls++;
    if (!ok && !c->args.has_dims) c->p->no_shapes++;
    else if (!ok) c->p->bad_shapes++;
    char *key = model_key(name, &e, ok ? NULL : e.why);
    bool created;
    kt_pgroup *g = key ? kt_pgroups_get(&c->p->models, key, &created) : NULL;
    free(key);
    if (!g) return false;
    double busy_us = o->subtree_us;
    if (created) {
        g->name = r->ev.name[o->ev];
        g->family = o->family;
        g->rank = r->rank;
        g->first_ev = o->ev;
        g->modelled = ok;
        g->eval = e;
        if (!first_call_strings(&c->args, g)) return false;
        meta_fill(c->t, r, &c->meta, o->ev, g);
    }
    for (uint32_t j = 0; j < o->nk; j++) kt_pgroup_note_kernel(g, r->ev.name[c->m->kev[o->kfirst + j]]);
    g->subtree_sum_us += busy_us;
    if (ok) {
        c->p->fam_calls[o->family]++;
        c->p->fam_flops[o->family] += e.flops;
        c->p->fam_busy_us[o->family] += busy_us;
        if (!add_step(c->p, kt_event_step(r, o->ev), e.flops, busy_us)) return false;
    }
    return kt_pgroup_add_call(g, busy_us);
}

typedef struct family_memo {
    const kt_trace *t;
    int8_t *fam;     /* by strtab id: -2 not looked up yet */
    size_t n;
} family_memo;

static int family_of(void *ctx, uint32_t name)
{
    family_memo *f = ctx;
    if (name >= f->n) return kt_perf_family_of(kt_strtab_get(f->t->strs, name));
    if (f->fam[name] == -2) f->fam[name] = (int8_t)kt_perf_family_of(kt_strtab_get(f->t->strs, name));
    return f->fam[name];
}

kt_status kt_perf_map_rank(const kt_trace *t, const kt_rank *r, kt_perf_partial *out)
{
    memset(out, 0, sizeof *out);
    family_memo fm = { t, NULL, kt_strtab_count(t->strs) };
    fm.fam = malloc(fm.n ? fm.n : 1);
    if (!fm.fam) return KT_ENOMEM;
    memset(fm.fam, -2, fm.n);
    kt_op_map m;
    kt_status st = kt_op_map_build(t, r, family_of, &fm, &m);
    free(fm.fam);
    if (st != KT_OK) return st;
    model_ctx c = { .t = t, .r = r, .m = &m, .p = out };
    bool any_model = false;
    for (size_t i = 0; i < m.n; i++) any_model |= (m.ops[i].role & KT_OPK_MODELLED) != 0;
    if (any_model && kt_args_reader_open(r, &c.rd) != KT_OK) out->args_unreadable = true;
    bool ok = !any_model || meta_collect(t, r, &c.meta);
    for (size_t i = 0; ok && i < m.n; i++) {
        const kt_op_rec *o = &m.ops[i];
        if (o->role & KT_OPK_LAUNCHER) ok = add_launcher(t, r, &m, o, out);
        if (ok && (o->role & KT_OPK_MODELLED)) ok = add_model(&c, o);
    }
    kt_args_reader_close(c.rd);
    kt_op_args_free(&c.args);
    free(c.meta.ev);
    kt_op_map_free(&m);
    if (!ok) {
        kt_perf_partial_free(out);
        return KT_ENOMEM;
    }
    return KT_OK;
}

bool kt_perf_partial_merge(kt_perf_partial *dst, kt_perf_partial *src)
{
    bool ok = kt_pgroups_merge(&dst->launchers, &src->launchers) && kt_pgroups_merge(&dst->models, &src->models);
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
    kt_perf_partial_free(src);
    return ok;
}

void kt_perf_partial_free(kt_perf_partial *p)
{
    kt_pgroups_free(&p->launchers);
    kt_pgroups_free(&p->models);
    free(p->steps);
    memset(p, 0, sizeof *p);
}
