/*
 * events.c — growing the columnar event table and looking up typed args.
 *
 * The loader appends events one at a time; every column grows together so an
 * event index is valid in all of them.  Typed args are stored as a flat run
 * per event because most events have none and a few have a dozen.
 */
#include "model.h"
#include "hta_rows.h"
#include "index.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

kt_rank *kt_rank_new(void)
{
    kt_rank *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->world_size = -1;
    r->schema_version = -1;
    r->backend = KT_NONE;
    kt_summary_reset(&r->summary);
    return r;
}

static void events_free(kt_events *e)
{
    if (e->threads_owned) free(e->threads), free(e->thread_slots);
    if (!e->mapped) {
        free(e->ts); free(e->dur); free(e->name); free(e->cat); free(e->ph);
        free(e->kind); free(e->nargs); free(e->thread);
        free(e->corr); free(e->ext_id); free(e->argi); free(e->args_at);
    }
    memset(e, 0, sizeof *e);
}

void kt_rank_free(kt_rank *r)
{
    if (!r) return;
    events_free(&r->ev);
    kt_idtab_free(&r->ids);
    if (r->cache_map) munmap(r->cache_map, r->cache_map_len);
    else free(r->args);
    free(r->file);
    free(r->xcat_id);
    free(r->xcat_count);
    free(r->meta_json);
    free(r->device_names);
    if (r->idx) kt_index_free(r->idx);
    kt_hta_rows_free(r->hta_rows);
    free(r);
}

static bool grow(void **p, size_t elem, size_t cap)
{
    void *q = realloc(*p, elem * cap);
    if (!q) return false;
    *p = q;
    return true;
}

bool kt_events_reserve(kt_events *e, size_t want)
{
    if (want <= e->cap) return true;
    if (e->mapped || want > KT_EVENTS_MAX) return false;
    size_t cap = e->cap ? e->cap : 1024;
    while (cap < want) cap *= 2;
    if (cap > KT_EVENTS_MAX) cap = KT_EVENTS_MAX;
#define G(col) grow((void **)&e->col, sizeof *e->col, cap)
    if (!(G(ts) && G(dur) && G(name) && G(cat) && G(ph) && G(kind) && G(nargs) &&
          G(thread) && G(corr) && G(ext_id) && G(argi) &&
          G(args_at)))
        return false;
#undef G
    e->cap = cap;
    return true;
}

bool kt_events_ready_written(kt_events *e, size_t want)
{
    if (!kt_events_ready(e, want)) return false;
    size_t n = want - e->n;
#define P(col) kt_prefault(e->col + e->n, n * sizeof *e->col)
    P(ts); P(dur); P(name); P(cat); P(ph); P(kind); P(thread);
#undef P
    return true;
}

bool kt_events_ready(kt_events *e, size_t want)
{
    if (!kt_events_reserve(e, want)) return false;
    size_t n = want - e->n; /* one memset a column instead of seven stores an event */
    memset(e->nargs + e->n, 0, n * sizeof *e->nargs);
    memset(e->corr + e->n, 0xff, n * sizeof *e->corr);
    memset(e->ext_id + e->n, 0xff, n * sizeof *e->ext_id);
    memset(e->argi + e->n, 0xff, n * sizeof *e->argi);     /* KT_NONE */
    memset(e->args_at + e->n, 0, n * sizeof *e->args_at);
    return true;
}

static uint32_t thread_hash(const kt_thread *t, uint32_t mask)
{
    uint64_t h = ((uint64_t)(uint32_t)t->pid << 32 | (uint32_t)t->tid) * 0x9e3779b97f4a7c15u;
    h = (h ^ (uint32_t)t->stream) * 0x9e3779b97f4a7c15u;
    return (uint32_t)(h >> 32) & mask;
}

/* Room for twice the threads (a table of its own, also when it was a
 * cache mapping's) and its hash at half load.                          */
static bool grow_threads(kt_events *e)
{
    uint32_t cap = e->cap_threads > 8 ? 2 * e->cap_threads : 16;
    uint32_t *slots = calloc((size_t)2 * cap, sizeof *slots);
    if (!slots) return false;
    kt_thread *threads = e->threads_owned ? realloc(e->threads, cap * sizeof *threads) : malloc(cap * sizeof *threads);
    if (!threads) {
        free(slots);
        return false;
    }
    if (!e->threads_owned && e->nthreads) memcpy(threads, e->threads, e->nthreads * sizeof *threads);
    if (e->threads_owned) free(e->thread_slots);
    e->threads = threads, e->thread_slots = slots, e->threads_owned = true;
    e->cap_threads = cap, e->thread_mask = 2 * cap - 1;
    for (uint32_t k = 0; k < e->nthreads; k++) {
        uint32_t h = thread_hash(&threads[k], e->thread_mask);
        while (slots[h]) h = (h + 1) & e->thread_mask;
        slots[h] = k + 1;
    }
    return true;
}

void kt_events_clear_threads(kt_events *e)
{
    if (e->thread_slots) memset(e->thread_slots, 0, ((size_t)e->thread_mask + 1) * sizeof *e->thread_slots);
    e->nthreads = 0;
}

uint32_t kt_events_thread_add(kt_events *e, int32_t pid, int32_t tid, int32_t stream)
{
    bool full = e->nthreads == e->cap_threads || !e->threads_owned;
    if (full && (e->nthreads >= KT_THREADS_MAX || !grow_threads(e))) return KT_NONE;
    kt_thread t = { pid, tid, stream };
    uint32_t *memo = &e->thread_memo[kt_thread_memo_of(tid, stream)];
    uint32_t h = thread_hash(&t, e->thread_mask);
    for (uint32_t s; (s = e->thread_slots[h]) != 0; h = (h + 1) & e->thread_mask)
        if (kt_thread_is(&e->threads[s - 1], pid, tid, stream)) return *memo = s - 1;
    e->threads[e->nthreads] = t;
    e->thread_slots[h] = e->nthreads + 1;
    return *memo = e->nthreads++;
}

bool kt_events_set_stream(kt_events *e, size_t i, int32_t stream)
{
    const kt_thread *t = &e->threads[e->thread[i]];
    uint32_t s = kt_events_thread(e, t->pid, t->tid, stream);
    if (s == KT_NONE) return false;
    e->thread[i] = s;
    return true;
}

bool kt_rank_reserve_args(kt_rank *r, size_t n)
{
    if (n <= r->cap_args) return true;
    if (r->cache_map || n > KT_ARGS_MAX) return false;
    size_t cap = r->cap_args ? r->cap_args * 2 : 1024;
    while (cap < n) cap *= 2;
    if (cap > KT_ARGS_MAX) cap = KT_ARGS_MAX;
    if (!grow((void **)&r->args, sizeof *r->args, cap)) return false;
    r->cap_args = cap;
    return true;
}

/* src's id references point into src's table: re-put them in dst's. */
static bool rebase_ids(kt_rank *dst, const kt_rank *src, size_t base)
{
    kt_events *d = &dst->ev;
    for (size_t i = 0; i < src->ev.n; i++)
        if (!kt_rank_id_put(dst, kt_event_corr(src, (uint32_t)i), &d->corr[base + i]) ||
            !kt_rank_id_put(dst, kt_event_ext_id(src, (uint32_t)i), &d->ext_id[base + i]))
            return false;
    return true;
}

/* dst's slot for each of src's threads, their values put in dst's id
 * table (NULL on OOM).                                                  */
static uint32_t *thread_map(kt_rank *dst, const kt_rank *src)
{
    uint32_t *map = malloc((src->ev.nthreads ? src->ev.nthreads : 1) * sizeof *map);
    for (uint32_t k = 0; map && k < src->ev.nthreads; k++) {
        int32_t pid, tid;
        if (!kt_rank_id_put(dst, kt_rank_id_get(src, src->ev.threads[k].pid), &pid) ||
            !kt_rank_id_put(dst, kt_rank_id_get(src, src->ev.threads[k].tid), &tid) ||
            (map[k] = kt_events_thread(&dst->ev, pid, tid, src->ev.threads[k].stream)) == KT_NONE) {
            free(map);
            return NULL;
        }
    }
    return map;
}

bool kt_rank_append(kt_rank *dst, const kt_rank *src)
{
    const kt_events *s = &src->ev;
    kt_events *d = &dst->ev;
    size_t base = d->n, abase = dst->nargs;
    if (s->n == 0) return true; /* its columns may not even be allocated */
    if (!kt_rank_fits(dst, s->n, src->nargs)) return false;
    if (!kt_events_reserve(d, base + s->n)) return false;
    if (dst->cap_args < abase + src->nargs) {
        if (!grow((void **)&dst->args, sizeof *dst->args, abase + src->nargs)) return false;
        dst->cap_args = abase + src->nargs;
    }
    if (src->nargs) {
        kt_prefault(dst->args + abase, src->nargs * sizeof *src->args);
        memcpy(dst->args + abase, src->args, src->nargs * sizeof *src->args);
    }
    dst->nargs += src->nargs;
#define C(col) (kt_prefault(d->col + base, s->n * sizeof *s->col), memcpy(d->col + base, s->col, s->n * sizeof *s->col))
    C(ts); C(dur); C(name); C(cat); C(ph); C(kind); C(nargs);
    C(corr); C(ext_id); C(args_at);
#undef C
    kt_prefault(d->argi + base, s->n * sizeof *d->argi);
    for (size_t i = 0; i < s->n; i++)
        d->argi[base + i] = s->argi[i] == KT_NONE ? KT_NONE : s->argi[i] + (uint32_t)abase;
    uint32_t *map = thread_map(dst, src);
    if (!map) return false;
    kt_prefault(d->thread + base, s->n * sizeof *d->thread);
    for (size_t i = 0; i < s->n; i++) d->thread[base + i] = map[s->thread[i]];
    free(map);
    if (src->ids.n && !rebase_ids(dst, src, base)) return false;
    d->n += s->n;
    return true;
}

/* New columns holding rows ids[0..n) of e (ids may repeat). */
static bool ascending(const uint32_t *ids, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (ids[k] <= ids[k - 1]) return false;
    return true;
}

/* Rows ids[0..n), ascending, moved down in place: ids[k] >= k, so no row is
 * overwritten before it is read, and no new columns are faulted in (on a
 * VM a fresh page costs microseconds; --hta-compat selects twice a load).
 * The columns fall in two parts of about the same bytes a row, which two
 * threads move at once (a column is only ever read and written by one).  */
typedef struct select_part {
    kt_events c; /* the column pointers, in registers: e's could alias the byte columns */
    const uint32_t *ids;
    size_t n;
    int part;
} select_part;

static void *select_part_in_place(void *arg)
{
    select_part *s = arg;
    kt_events c = s->c;
    const uint32_t *ids = s->ids;
#define C(col) c.col[k] = c.col[ids[k]]
    if (s->part == 0)
        for (size_t k = 0; k < s->n; k++) {
            C(ts); C(dur); C(name); C(cat); C(ph); C(kind); C(nargs);
        }
    else
        for (size_t k = 0; k < s->n; k++) {
            C(thread); C(corr); C(ext_id); C(argi); C(args_at);
        }
#undef C
    return NULL;
}

/* Ranks with more rows than this move their columns on two threads: below
 * it a thread costs more than it saves.                                   */
#define SELECT_TWO_THREADS_MIN 200000

static void select_in_place(kt_events *e, const uint32_t *ids, size_t n, int threads)
{
    select_part p[2] = { { *e, ids, n, 0 }, { *e, ids, n, 1 } };
    kt_run_pair(select_part_in_place, &p[0], &p[1], threads >= 2 && n > SELECT_TWO_THREADS_MIN);
    e->n = n;
}

bool kt_events_select(kt_events *e, const uint32_t *ids, size_t n, int threads)
{
    if (!e->mapped && ascending(ids, n)) {
        select_in_place(e, ids, n, threads);
        return true;
    }
    kt_events out = { 0 };
    if (!kt_events_reserve(&out, n ? n : 1)) {
        events_free(&out);
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ids[k];
#define C(col) out.col[k] = e->col[i]
        C(ts); C(dur); C(name); C(cat); C(ph); C(kind); C(nargs); C(thread);
        C(corr); C(ext_id); C(argi); C(args_at);
#undef C
    }
    out.n = n;
    /* the same slots, in a table of out's own (e's may be a mapping) */
    for (uint32_t k = 0; k < e->nthreads; k++)
        if (kt_events_thread_add(&out, e->threads[k].pid, e->threads[k].tid, e->threads[k].stream) != k) {
            events_free(&out);
            return false;
        }
    events_free(e);
    *e = out;
    return true;
}

const kt_arg *kt_event_arg(const kt_rank *r, uint32_t ev, uint32_t key)
{
    uint32_t first = r->ev.argi[ev];
    if (first == KT_NONE) return NULL;
    for (uint32_t k = 0; k < r->ev.nargs[ev]; k++)
        if (r->args[first + k].key == key) return &r->args[first + k];
    return NULL;
}

int64_t kt_event_arg_int(const kt_rank *r, uint32_t ev, uint32_t key, int64_t dflt)
{
    const kt_arg *a = kt_event_arg(r, ev, key);
    if (!a) return dflt;
    if (a->type == KT_ARGT_FLOAT) /* integers beyond int64 are stored as floats */
        return a->v.f > -9.2e18 && a->v.f < 9.2e18 ? (int64_t)a->v.f : dflt;
    return a->type == KT_ARGT_INT ? a->v.i : dflt;
}

double kt_event_arg_float(const kt_rank *r, uint32_t ev, uint32_t key, double dflt)
{
    const kt_arg *a = kt_event_arg(r, ev, key);
    if (!a) return dflt;
    return a->type == KT_ARGT_FLOAT ? a->v.f : a->type == KT_ARGT_INT ? (double)a->v.i : dflt;
}

uint32_t kt_event_arg_str(const kt_rank *r, uint32_t ev, uint32_t key)
{
    const kt_arg *a = kt_event_arg(r, ev, key);
    return a && a->type == KT_ARGT_STR ? a->v.s : KT_NONE;
}
