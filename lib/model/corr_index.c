/* corr_index.c — see corr_index.h. */
#include "corr_index.h"
#include "model.h"

#include <stdlib.h>

#define KT_CORR_PAGE_BITS 10
#define PAGE ((size_t)1 << KT_CORR_PAGE_BITS)

/* Pages are used while they take no more memory than the map would (4
 * bytes an id, against 12 a map slot): the directory and the pages the
 * ids touch together within 3 slots of the map per id.                  */
static bool pages_fit(size_t ndir, size_t npages, size_t n)
{
    size_t budget = 3 * kt_i64map_capacity(n);
    return ndir <= budget && npages <= budget / PAGE;
}

/* The directory, each touched page numbered in id order; false when the
 * pages would not fit (ci->ndir stays 0) or on OOM.                      */
static bool number_pages(kt_corr_index *ci, const int32_t *corr, const uint32_t *ev, size_t n, size_t *npages)
{
    int64_t max = -1;
    for (size_t k = 0; k < n; k++) {
        int64_t c = corr[ev[k]];
        ci->min = c < ci->min ? c : ci->min;
        max = c > max ? c : max;
    }
    size_t ndir = (size_t)((uint64_t)(max - ci->min) >> KT_CORR_PAGE_BITS) + 1;
    if (!pages_fit(ndir, 0, n) || !(ci->dir = kt_none_array(ndir))) return false;
    for (size_t k = 0; k < n; k++) ci->dir[(uint64_t)(corr[ev[k]] - ci->min) >> KT_CORR_PAGE_BITS] = 0;
    size_t p = 0;
    for (size_t d = 0; d < ndir; d++)
        if (ci->dir[d] == 0) ci->dir[d] = (uint32_t)p++;
    *npages = p;
    if (!pages_fit(ndir, p, n)) return false;
    ci->ndir = ndir;
    return true;
}

bool kt_corr_index_init(kt_corr_index *ci, const int32_t *corr, const uint32_t *ev, size_t n)
{
    *ci = (kt_corr_index){ .min = INT64_MAX };
    size_t npages = 0;
    if (n && number_pages(ci, corr, ev, n, &npages)) {
        if (!(ci->pages = kt_none_array(npages * PAGE))) return false;
        for (size_t k = 0; k < n; k++) {
            uint64_t off = (uint64_t)(corr[ev[k]] - ci->min);
            uint32_t *slot = &ci->pages[((size_t)ci->dir[off >> KT_CORR_PAGE_BITS] << KT_CORR_PAGE_BITS) | (off & (PAGE - 1))];
            if (*slot == KT_NONE) *slot = (uint32_t)k; /* the first wins */
        }
        return true;
    }
    free(ci->dir);
    ci->dir = NULL;
    if (!kt_i64map_init(&ci->map, n)) return false;
    for (size_t k = 0; k < n; k++) kt_i64map_slot(&ci->map, corr[ev[k]], (uint32_t)k); /* the first wins */
    return true;
}

uint32_t kt_corr_index_get(const kt_corr_index *ci, int64_t corr)
{
    if (!ci->ndir) return ci->map.key ? kt_i64map_get(&ci->map, corr, KT_NONE) : KT_NONE;
    if (corr < ci->min) return KT_NONE;
    uint64_t off = (uint64_t)corr - (uint64_t)ci->min;
    if ((off >> KT_CORR_PAGE_BITS) >= ci->ndir) return KT_NONE;
    uint32_t p = ci->dir[off >> KT_CORR_PAGE_BITS];
    return p == KT_NONE ? KT_NONE : ci->pages[((size_t)p << KT_CORR_PAGE_BITS) | (off & (PAGE - 1))];
}

void kt_corr_index_free(kt_corr_index *ci)
{
    free(ci->dir);
    free(ci->pages);
    kt_i64map_free(&ci->map);
    *ci = (kt_corr_index){ 0 };
}
