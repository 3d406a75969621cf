/*
 * perf_meta.c — process and thread names of the perf groups (perf_meta.h).
 *
 * One pass over the metadata events in event order: an entry takes the
 * first value it is offered, so later repeats cost a lookup only, and a
 * process's labels are parsed from the raw args only until one has them.
 */
#include "analysis/perf/perf_meta.h"

#include "analysis/kernels/kernel_stats.h"
#include "load/json_tree.h"

#include <stdlib.h>
#include <string.h>

/* The position of (pid, tid) in l, or where it would go. */
static size_t lower_bound(const kt_perf_meta_list *l, int32_t pid, int32_t tid)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kt_perf_meta_entry *e = &l->e[mid];
        if (e->pid < pid || (e->pid == pid && e->tid < tid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static const kt_perf_meta_entry *find(const kt_perf_meta_list *l, int32_t pid, int32_t tid)
{
    size_t i = lower_bound(l, pid, tid);
    return i < l->n && l->e[i].pid == pid && l->e[i].tid == tid ? &l->e[i] : NULL;
}

/* The entry of (pid, tid), added without a value when new; NULL on OOM. */
static kt_perf_meta_entry *slot(kt_perf_meta_list *l, int32_t pid, int32_t tid)
{
    size_t i = lower_bound(l, pid, tid);
    if (i < l->n && l->e[i].pid == pid && l->e[i].tid == tid) return &l->e[i];
    if (!kt_grow((void **)&l->e, &l->cap, l->n + 1, sizeof *l->e)) return NULL;
    memmove(&l->e[i + 1], &l->e[i], (l->n - i) * sizeof *l->e);
    l->n++;
    l->e[i] = (kt_perf_meta_entry){ pid, tid, NULL };
    return &l->e[i];
}

/* Reads process_labels args with one reader for all of them (reading a
 * gzip file's args afresh per event was quadratic); none once the file
 * cannot be read.                                                         */
typedef struct label_reader {
    const kt_rank *r;
    kt_args_reader *rd;
    bool unreadable;
} label_reader;

/* "labels" of a process_labels event, from its raw args. */
static char *label_of(label_reader *lr, uint32_t ev)
{
    const char *text;
    size_t len;
    if (lr->unreadable || (!lr->rd && kt_args_reader_open(lr->r, &lr->rd) != KT_OK)) {
        lr->unreadable = true;
        return NULL;
    }
    if (kt_args_reader_get(lr->rd, ev, &text, &len) != KT_OK) return NULL;
    kt_jtree jt = { 0 };
    const char *err;
    char *out = NULL;
    if (kt_jtree_parse(&jt, text, len, &err)) {
        const kt_jnode *l = kt_jobj_get(&jt, &jt.n[0], "labels");
        if (l && l->type == KT_J_STR) out = strdup(l->s);
    }
    kt_jtree_free(&jt);
    return out;
}

/* Offers ev's name to (pid, tid) of l (its args looked at only while the
 * entry has none: the repeats are most of the events).                   */
static bool note_name(const kt_trace *t, const kt_rank *r, uint32_t ev, kt_perf_meta_list *l, int32_t tid)
{
    kt_perf_meta_entry *e = slot(l, kt_ev_pid(&r->ev, ev), tid);
    if (!e) return false;
    uint32_t s = e->val ? KT_NONE : kt_event_arg_str(r, ev, KT_ARG_META_NAME);
    if (s != KT_NONE) e->val = strdup(kt_strtab_get(t->strs, s));
    return true;
}

static bool note_label(label_reader *lr, uint32_t ev, kt_perf_meta_list *l)
{
    kt_perf_meta_entry *e = slot(l, kt_ev_pid(&lr->r->ev, ev), 0);
    if (!e) return false;
    if (!e->val) e->val = label_of(lr, ev);
    return true;
}

/* The string ids of the three metadata event names (KT_NONE: absent). */
typedef struct meta_names {
    uint32_t process_name, thread_name, process_labels;
} meta_names;

static bool note_event(const kt_trace *t, const meta_names *mn, label_reader *lr, uint32_t ev, kt_perf_meta *m)
{
    const kt_rank *r = lr->r;
    uint32_t name = r->ev.name[ev];
    if (name == KT_NONE) return true;
    if (name == mn->process_name) return note_name(t, r, ev, &m->process_names, 0);
    if (name == mn->thread_name) return note_name(t, r, ev, &m->thread_names, kt_ev_tid(&r->ev, ev));
    return name != mn->process_labels || note_label(lr, ev, &m->labels);
}

bool kt_perf_meta_collect(const kt_trace *t, const kt_rank *r, kt_perf_meta *m)
{
    meta_names mn = { kt_strtab_find(t->strs, "process_name", 12), kt_strtab_find(t->strs, "thread_name", 11),
                      kt_strtab_find(t->strs, "process_labels", 14) };
    *m = (kt_perf_meta){ 0 };
    label_reader lr = { .r = r };
    bool ok = true;
    const uint8_t *ph = r->ev.ph;
    for (uint32_t ev = 0; ok && ev < r->ev.n; ev++) {
        if (ph[ev] != 'M') { /* memchr to the next: most traces write their few M events together */
            const uint8_t *next = memchr(ph + ev, 'M', r->ev.n - ev);
            if (!next) break;
            ev = (uint32_t)(next - ph);
        }
        ok = note_event(t, &mn, &lr, ev, m);
    }
    kt_args_reader_close(lr.rd);
    return ok;
}

static char *copy_of(const kt_perf_meta_list *l, int32_t pid, int32_t tid)
{
    const kt_perf_meta_entry *e = find(l, pid, tid);
    return e && e->val ? strdup(e->val) : NULL;
}

void kt_perf_meta_fill(const kt_perf_meta *m, const kt_rank *r, uint32_t op, kt_pgroup *g)
{
    int32_t pid = kt_ev_pid(&r->ev, op);
    g->process_name = copy_of(&m->process_names, pid, 0);
    g->thread_name = copy_of(&m->thread_names, pid, kt_ev_tid(&r->ev, op));
    g->process_label = copy_of(&m->labels, pid, 0);
}

static void list_free(kt_perf_meta_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->e[i].val);
    free(l->e);
}

void kt_perf_meta_free(kt_perf_meta *m)
{
    list_free(&m->process_names);
    list_free(&m->thread_names);
    list_free(&m->labels);
    *m = (kt_perf_meta){ 0 };
}
