/* memory_events.c — see memory_events.h. */
#include "analysis/memory/memory_events.h"
#include "model/radix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The [memory] args read, in the order mem_args returns them. */
enum { MA_TYPE, MA_ID, MA_BYTES, MA_ADDR, MA_ALLOC, MA_RESERVED, MA_COUNT };

static uint32_t dyn_key(const kt_trace *t, const char *s)
{
    uint32_t id = kt_strtab_find(t->strs, s, strlen(s));
    return id == KT_NONE ? KT_NONE : KT_ARG_DYNAMIC + id;
}

typedef struct tagged {
    int64_t type, id;
    kt_mem_event m;
} tagged;

/* The memory args of event ev (defaults where absent or not numbers):
 * one pass over its args, the first arg of each key counting as
 * kt_event_arg would find it — six lookups per event were most of the
 * analysis.                                                              */
static void mem_args(const kt_rank *r, uint32_t ev, const uint32_t key[MA_COUNT], int64_t v[MA_COUNT])
{
    static const int64_t dflt[MA_COUNT] = { -1, -1, 0, 0, -1, -1 };
    bool seen[MA_COUNT] = { 0 };
    for (int j = 0; j < MA_COUNT; j++) v[j] = dflt[j];
    uint32_t first = r->ev.argi[ev];
    for (uint32_t a = 0; first != KT_NONE && a < r->ev.nargs[ev]; a++) {
        const kt_arg *x = &r->args[first + a];
        for (int j = 0; j < MA_COUNT; j++) {
            if (seen[j] || x->key != key[j]) continue;
            seen[j] = true;
            if (x->type == KT_ARGT_INT) v[j] = x->v.i;
            else if (x->type == KT_ARGT_FLOAT) v[j] = (int64_t)x->v.f;
            break;
        }
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

kt_status kt_mem_rank_collect(const kt_trace *t, const kt_rank *r, kt_mem_rank *out)
{
    memset(out, 0, sizeof *out);
    const kt_events *e = &r->ev;
    uint32_t name = kt_strtab_find(t->strs, "[memory]", 8);
    if (name == KT_NONE) return KT_OK;
    const uint32_t key[MA_COUNT] = { dyn_key(t, "Device Type"), dyn_key(t, "Device Id"), dyn_key(t, "Bytes"),
                                     dyn_key(t, "Addr"), dyn_key(t, "Total Allocated"),
                                     dyn_key(t, "Total Reserved") };
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += e->kind[i] == KT_K_INSTANT && e->name[i] == name;
    tagged *tg = malloc((n ? n : 1) * sizeof *tg);
    if (!tg) return KT_ENOMEM;
    n = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        if (e->kind[i] != KT_K_INSTANT || e->name[i] != name) continue;
        int64_t v[MA_COUNT];
        mem_args(r, i, key, v);
        tg[n++] = (tagged){ v[MA_TYPE], v[MA_ID],
                            { i, e->ts[i], v[MA_BYTES], v[MA_ADDR], v[MA_ALLOC], v[MA_RESERVED] } };
    }
    bool ok = sort_by_device_time(tg, n) && split_devices(out, tg, n);
    free(tg);
    if (!ok) kt_mem_rank_free(out);
    return ok ? KT_OK : KT_ENOMEM;
}

void kt_mem_rank_free(kt_mem_rank *m)
{
    free(m->dev);
    free(m->storage);
    memset(m, 0, sizeof *m);
}
