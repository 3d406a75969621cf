/*
 * overlay.c — the builders of kt_overlay (overlay.h): arrays that grow by
 * doubling, a failure remembered in the plan.
 */
#include "table/overlay.h"

#include <stdlib.h>
#include <string.h>

/* Room for one more of size bytes in *items (n used, *cap allotted). */
static void *grow(kt_overlay *o, void **items, size_t n, size_t *cap, size_t size, size_t more)
{
    if (o->failed) return NULL;
    if (n + more > *cap) {
        size_t c = *cap ? *cap : 64;
        while (c < n + more) c *= 2;
        void *p = realloc(*items, c * size);
        if (!p) {
            o->failed = true;
            return NULL;
        }
        *items = p, *cap = c;
    }
    return (char *)*items + n * size;
}

size_t kt_overlay_text(kt_overlay *o, const char *s, size_t n)
{
    char *at = grow(o, (void **)&o->text, o->ntext, &o->cap_text, 1, n + 1);
    size_t start = o->ntext;
    if (!at) return 0;
    memcpy(at, s, n);
    at[n] = '\0';
    o->ntext += n;
    return start;
}

kt_overlay_edit *kt_overlay_add_edit(kt_overlay *o, uint64_t args_off)
{
    kt_overlay_edit *e = grow(o, (void **)&o->edits, o->nedits, &o->cap_edits, sizeof *e, 1);
    if (!e) return NULL;
    o->nedits++;
    *e = (kt_overlay_edit){ .args_off = args_off };
    return e;
}

void kt_overlay_reserve_edits(kt_overlay *o, size_t n)
{
    if (n == 0) return; /* nothing to make room for: no array yet to point into (NULL + 0 is undefined) */
    kt_overlay_edit *at = grow(o, (void **)&o->edits, o->nedits, &o->cap_edits, sizeof *at, n);
    if (at) kt_prefault(at, n * sizeof *at);
}

kt_overlay_arrow *kt_overlay_add_arrow(kt_overlay *o)
{
    kt_overlay_arrow *a = grow(o, (void **)&o->arrows, o->narrows, &o->cap_arrows, sizeof *a, 1);
    if (!a) return NULL;
    o->narrows++;
    *a = (kt_overlay_arrow){ 0 };
    return a;
}

uint32_t kt_overlay_add_track(kt_overlay *o, const char *name, size_t n, kt_counter_track how)
{
    how.name = kt_overlay_text(o, name, n);
    how.name_len = n;
    kt_counter_track *t = grow(o, (void **)&o->tracks, o->ntracks, &o->cap_tracks, sizeof *t, 1);
    if (!t) return 0;
    *t = how;
    return (uint32_t)o->ntracks++;
}

void kt_overlay_reserve_samples(kt_overlay *o, size_t n)
{
    if (n == 0) return; /* nothing to make room for: no array yet to point into */
    grow(o, (void **)&o->samples, o->nsamples, &o->cap_samples, sizeof *o->samples, n);
}

kt_counter_sample *kt_overlay_add_sample(kt_overlay *o)
{
    kt_counter_sample *s = grow(o, (void **)&o->samples, o->nsamples, &o->cap_samples, sizeof *s, 1);
    if (!s) return NULL;
    o->nsamples++;
    *s = (kt_counter_sample){ 0 };
    return s;
}

void kt_overlay_free(kt_overlay *o)
{
    free(o->edits);
    free(o->text);
    free(o->arrows);
    free(o->tracks);
    free(o->samples);
    *o = (kt_overlay){ 0 };
}
