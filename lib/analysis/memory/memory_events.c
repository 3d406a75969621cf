/* memory_events.c — see memory_events.h.  The events come in file order,
 * the devices interleaved and each mostly in time order already: their
 * ids are dealt out to their devices in that order, and only a device
 * whose events are out of time order has its ids sorted (a trace naming
 * more than FEW_DEVICES devices is sorted as a whole).                    */
#include "analysis/memory/memory_events.h"
#include "analysis/kernels/kernel_stats.h"
#include "model/radix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The [memory] args read, in the order mem_args returns them. */
enum { MA_TYPE, MA_ID, MA_BYTES, MA_ADDR, MA_ALLOC, MA_RESERVED, MA_COUNT };

#define FEW_DEVICES 64

static uint32_t dyn_key(const kt_trace *t, const char *s)
{
    uint32_t id = kt_strtab_find(t->strs, s, strlen(s));
    return id == KT_NONE ? KT_NONE : KT_ARG_DYNAMIC + id;
}

typedef struct tagged {
    int64_t type, id;
    kt_mem_event m;
} tagged;

/* Which of the args read an arg key is (MA_COUNT: none).  Arg keys are
 * never KT_NONE and the keys read are distinct strings, so at most one
 * matches.                                                               */
static int read_as(const uint32_t key[MA_COUNT], uint32_t k)
{
    int j = 0;
    while (j < MA_COUNT && key[j] != k) j++;
    return j;
}

/* Where the args read sit among an event's args: the profiler writes
 * every [memory] event's args with the same keys and types in the same
 * order, so an event's args are only compared with the last event's (the
 * key and type of each, one 32-bit word), and the places are found again
 * when they differ.                                                      */
#define LAYOUT_ARGS 16
typedef struct arg_layout {
    size_t n;                   /* args of the events it is for; SIZE_MAX: none */
    uint32_t head[LAYOUT_ARGS]; /* their key and type */
    int at[MA_COUNT];           /* the first arg of each key read, -1 absent */
    uint8_t type[MA_COUNT];     /* its type */
} arg_layout;

static uint32_t arg_head(const kt_arg *a)
{
    uint32_t w;
    memcpy(&w, a, sizeof w); /* the key and type bit-fields */
    return w;
}

static bool same_layout(const arg_layout *l, const kt_arg *a, size_t n)
{
    if (n != l->n) return false;
    for (size_t i = 0; i < n; i++)
        if (arg_head(&a[i]) != l->head[i]) return false;
    return true;
}

/* The layout of args a[0..n); more than LAYOUT_ARGS make one that no
 * event matches (found again each time).                                */
static void learn_layout(arg_layout *l, const uint32_t key[MA_COUNT], const kt_arg *a, size_t n)
{
    l->n = n > LAYOUT_ARGS ? SIZE_MAX : n;
    for (int j = 0; j < MA_COUNT; j++) l->at[j] = -1;
    for (size_t i = 0; i < n; i++) {
        if (i < LAYOUT_ARGS) l->head[i] = arg_head(&a[i]);
        int j = read_as(key, a[i].key);
        if (j < MA_COUNT && l->at[j] < 0) l->at[j] = (int)i, l->type[j] = (uint8_t)a[i].type;
    }
}

/* The memory args of event ev (defaults where absent or not numbers), the
 * first arg of each key counting as kt_event_arg would find it — six
 * lookups per event were most of the analysis.                           */
static void mem_args(const kt_rank *r, uint32_t ev, const uint32_t key[MA_COUNT], arg_layout *l,
                     int64_t v[MA_COUNT])
{
    static const int64_t dflt[MA_COUNT] = { -1, -1, 0, 0, -1, -1 };
    uint32_t first = r->ev.argi[ev];
    size_t n = first == KT_NONE ? 0 : r->ev.nargs[ev];
    const kt_arg *a = n ? &r->args[first] : NULL;
    if (!same_layout(l, a, n)) learn_layout(l, key, a, n);
    for (int j = 0; j < MA_COUNT; j++) {
        if (l->at[j] < 0) v[j] = dflt[j];
        else if (l->type[j] == KT_ARGT_INT) v[j] = a[l->at[j]].v.i;
        else if (l->type[j] == KT_ARGT_FLOAT) v[j] = (int64_t)a[l->at[j]].v.f;
        else v[j] = dflt[j];
    }
}

static int by_device_time(const void *a, const void *b)
{
    const tagged *x = a, *y = b;
    if (x->type != y->type) return x->type < y->type ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->m.ts != y->m.ts) return x->m.ts < y->m.ts ? -1 : 1;
    return (x->m.ev > y->m.ev) - (x->m.ev < y->m.ev);
}

/* One key for (type, id) in their order, when both fit in 32 bits. */
static bool device_key(const tagged *g, uint64_t *key)
{
    if (g->type < INT32_MIN || g->type > INT32_MAX || g->id < INT32_MIN || g->id > INT32_MAX) return false;
    *key = (uint64_t)((uint32_t)g->type ^ 0x80000000u) << 32 | ((uint32_t)g->id ^ 0x80000000u);
    return true;
}

/* By device, then time, then event: a radix sort on two keys (the events
 * are collected in event order and the sort is stable), qsort when a
 * device number needs more than 32 bits.                                 */
static bool sort_by_device_time(tagged *tg, size_t n)
{
    uint64_t *dev = malloc((n ? n : 1) * sizeof *dev), *ts = malloc((n ? n : 1) * sizeof *ts);
    bool ok = dev && ts, fits = true;
    for (size_t i = 0; ok && fits && i < n; i++) {
        fits = device_key(&tg[i], &dev[i]);
        ts[i] = kt_radix_key_i64(tg[i].m.ts);
    }
    if (ok && fits) ok = kt_radix_sort_records(tg, sizeof *tg, n, dev, ts);
    else if (ok) qsort(tg, n, sizeof *tg, by_device_time);
    free(dev);
    free(ts);
    return ok;
}

static void label_of(kt_mem_device *d)
{
    if (d->type == 0) snprintf(d->label, sizeof d->label, "cpu");
    else if (d->type == 1) snprintf(d->label, sizeof d->label, "cuda:%lld", (long long)d->id);
    else snprintf(d->label, sizeof d->label, "type%lld:%lld", (long long)d->type, (long long)d->id);
}

/* Fallback for many devices: every event sorted, then cut by device. */
static bool split_devices(kt_mem_rank *m, tagged *tg, size_t n)
{
    m->storage = malloc((n ? n : 1) * sizeof *m->storage);
    m->dev = calloc(n ? n : 1, sizeof *m->dev);
    if (!m->storage || !m->dev) return false;
    for (size_t i = 0; i < n; i++) {
        m->storage[i] = tg[i].m;
        if (!m->ndev || m->dev[m->ndev - 1].type != tg[i].type || m->dev[m->ndev - 1].id != tg[i].id) {
            kt_mem_device *d = &m->dev[m->ndev++];
            *d = (kt_mem_device){ .type = tg[i].type, .id = tg[i].id, .e = &m->storage[i] };
            label_of(d);
        }
        m->dev[m->ndev - 1].n++;
    }
    return true;
}

/* The index of device (type, id) in m->dev, added when new (last: the
 * previous event's, tried first); FEW_DEVICES when there would be more.  */
static size_t device_index(kt_mem_rank *m, int64_t type, int64_t id, size_t last)
{
    if (last < m->ndev && m->dev[last].type == type && m->dev[last].id == id) return last;
    size_t d = 0;
    while (d < m->ndev && !(m->dev[d].type == type && m->dev[d].id == id)) d++;
    if (d < FEW_DEVICES && d == m->ndev) m->dev[m->ndev++] = (kt_mem_device){ .type = type, .id = id };
    return d;
}

/* The distinct devices of events evs[0..n) into m->dev (counts in .n, not
 * yet in order) and each event's device in dev_of; false past FEW_DEVICES. */
static bool find_devices(kt_mem_rank *m, const kt_rank *r, const uint32_t *evs, size_t n,
                         const uint32_t key[MA_COUNT], uint8_t *dev_of)
{
    arg_layout layout = { .n = SIZE_MAX };
    size_t d = FEW_DEVICES;
    for (size_t i = 0; i < n; i++) {
        int64_t v[MA_COUNT];
        mem_args(r, evs[i], key, &layout, v);
        if ((d = device_index(m, v[MA_TYPE], v[MA_ID], d)) == FEW_DEVICES) return false;
        m->dev[d].n++;
        dev_of[i] = (uint8_t)d;
    }
    return true;
}

static bool device_before(const kt_mem_device *a, const kt_mem_device *b)
{
    return a->type < b->type || (a->type == b->type && a->id < b->id);
}

/* Order m->dev by (type, id), its slice of m->storage after the previous
 * one's; rank[d]: where device d of find_devices went.                  */
static void order_devices(kt_mem_rank *m, uint8_t *rank)
{
    uint8_t by_rank[FEW_DEVICES];
    for (size_t d = 0; d < m->ndev; d++) {
        size_t at = d;
        for (; at > 0 && device_before(&m->dev[d], &m->dev[by_rank[at - 1]]); at--) by_rank[at] = by_rank[at - 1];
        by_rank[at] = (uint8_t)d;
    }
    kt_mem_device sorted[FEW_DEVICES];
    size_t start = 0;
    for (size_t k = 0; k < m->ndev; k++) {
        sorted[k] = m->dev[by_rank[k]];
        sorted[k].e = m->storage + start;
        start += sorted[k].n;
        rank[by_rank[k]] = (uint8_t)k;
    }
    memcpy(m->dev, sorted, m->ndev * sizeof *sorted);
}

/* Each event dealt to its device's slice of order (file order within),
 * then each slice sorted by time: events dealt in file order and sorted
 * stably are in (time, event) order.  A trace tiled or of several
 * profiling windows has a few runs per device, which the sort merges.   */
static bool order_by_device_time(const kt_mem_rank *m, const kt_rank *r, const uint32_t *evs, size_t n,
                                 const uint8_t *dev_of, const uint8_t *rank, uint32_t *order)
{
    size_t at[FEW_DEVICES];
    for (size_t d = 0; d < m->ndev; d++) at[d] = (size_t)(m->dev[rank[d]].e - m->storage);
    for (size_t i = 0; i < n; i++) order[at[dev_of[i]]++] = evs[i];
    bool ok = true;
    for (size_t d = 0; ok && d < m->ndev; d++)
        ok = kt_sort_ids_by_i64(order + (m->dev[d].e - m->storage), m->dev[d].n, r->ev.ts);
    return ok;
}

/* The events' records by device, each device's by time and file order
 * at equal times: the event ids are dealt out and sorted (a record is
 * twelve times an id's size), then each record is read once, in its place
 * (an event's args read twice: once for the device, once for the record,
 * so no per-event record is kept beside the slices); false when there
 * are too many devices (m left empty) or without memory.                */
static bool deal_devices(kt_mem_rank *m, const kt_rank *r, const uint32_t *evs, size_t n,
                         const uint32_t key[MA_COUNT], bool *few)
{
    m->storage = kt_alloc_written(n * sizeof *m->storage);
    m->dev = calloc(FEW_DEVICES, sizeof *m->dev);
    uint8_t *dev_of = kt_alloc_written(n), rank[FEW_DEVICES];
    uint32_t *order = kt_alloc_written(n * sizeof *order);
    bool ok = m->storage && m->dev && dev_of && order;
    *few = ok && find_devices(m, r, evs, n, key, dev_of);
    if (*few) {
        order_devices(m, rank);
        ok = order_by_device_time(m, r, evs, n, dev_of, rank, order);
        arg_layout layout = { .n = SIZE_MAX };
        for (size_t k = 0; ok && k < n; k++) {
            int64_t v[MA_COUNT];
            mem_args(r, order[k], key, &layout, v);
            m->storage[k] = (kt_mem_event){ order[k], r->ev.ts[order[k]], v[MA_BYTES], v[MA_ADDR], v[MA_ALLOC],
                                            v[MA_RESERVED] };
        }
        for (size_t d = 0; d < m->ndev; d++) label_of(&m->dev[d]);
    }
    free(dev_of);
    free(order);
    if (ok && !*few) kt_mem_rank_free(m);
    return ok;
}

/* The [memory] events named name, in file order; NULL without memory.
 * Found first, 4 bytes each to grow, then read into records of their own
 * size: growing the records as they were read copied most of them.      */
static uint32_t *find_memory_events(const kt_events *e, uint32_t name, size_t *n)
{
    size_t cap = 0;
    uint32_t *evs = NULL;
    *n = 0;
    if (!kt_grow((void **)&evs, &cap, 1, sizeof *evs)) return NULL; /* a list even when empty */
    const uint8_t *at;
    for (size_t i = 0; i < e->n && (at = memchr(e->kind + i, KT_K_INSTANT, e->n - i)); i++) {
        i = (size_t)(at - e->kind); /* the next instant: memchr skips the rest many at a time */
        if (e->name[i] != name) continue;
        if (!kt_grow((void **)&evs, &cap, *n + 1, sizeof *evs)) {
            free(evs);
            return NULL;
        }
        evs[(*n)++] = (uint32_t)i;
    }
    return evs;
}

/* Events evs[0..n) with their args read, tagged with their device. */
static tagged *read_events(const kt_rank *r, const uint32_t *evs, size_t n, const uint32_t key[MA_COUNT])
{
    tagged *tg = malloc((n ? n : 1) * sizeof *tg);
    arg_layout layout = { .n = SIZE_MAX };
    for (size_t k = 0; tg && k < n; k++) {
        int64_t v[MA_COUNT];
        mem_args(r, evs[k], key, &layout, v);
        tg[k] = (tagged){ v[MA_TYPE], v[MA_ID],
                          { evs[k], r->ev.ts[evs[k]], v[MA_BYTES], v[MA_ADDR], v[MA_ALLOC], v[MA_RESERVED] } };
    }
    return tg;
}

kt_status kt_mem_rank_collect(const kt_trace *t, const kt_rank *r, kt_mem_rank *out)
{
    memset(out, 0, sizeof *out);
    uint32_t name = kt_strtab_find(t->strs, "[memory]", 8);
    if (name == KT_NONE) return KT_OK;
    const uint32_t key[MA_COUNT] = { dyn_key(t, "Device Type"), dyn_key(t, "Device Id"), dyn_key(t, "Bytes"),
                                     dyn_key(t, "Addr"), dyn_key(t, "Total Allocated"),
                                     dyn_key(t, "Total Reserved") };
    size_t n;
    uint32_t *evs = find_memory_events(&r->ev, name, &n);
    bool few = false;
    bool ok = evs && deal_devices(out, r, evs, n, key, &few);
    if (ok && !few) { /* many devices: every event tagged and sorted at once */
        tagged *tg = read_events(r, evs, n, key);
        ok = tg && sort_by_device_time(tg, n) && split_devices(out, tg, n);
        free(tg);
    }
    free(evs);
    if (!ok) kt_mem_rank_free(out);
    return ok ? KT_OK : KT_ENOMEM;
}

void kt_mem_rank_free(kt_mem_rank *m)
{
    free(m->dev);
    free(m->storage);
    memset(m, 0, sizeof *m);
}
