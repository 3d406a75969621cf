/* radix.c — see radix.h. */
#include "radix.h"

#include <stdlib.h>
#include <string.h>

bool kt_sort_ids_by_i64(uint32_t *ids, size_t n, const int64_t *col)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return false;
    for (size_t i = 0; i < n; i++) keys[i] = kt_radix_key_i64(col[ids[i]]);
    bool ok = kt_radix_sort(keys, ids, n);
    free(keys);
    return ok;
}

bool kt_radix_sort(uint64_t *keys, uint32_t *ids, size_t n)
{
    if (n < 2) return true;
    size_t (*count)[256] = calloc(8, sizeof *count);
    uint64_t *k2 = malloc(n * sizeof *k2);
    uint32_t *i2 = malloc(n * sizeof *i2);
    if (!count || !k2 || !i2) {
        free(count); free(k2); free(i2);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) count[b][(keys[i] >> (8 * b)) & 0xff]++;
    uint64_t *ks = keys, *kd = k2;
    uint32_t *is = ids, *id = i2;
    for (int b = 0; b < 8; b++) {
        size_t *c = count[b];
        if (c[(ks[0] >> (8 * b)) & 0xff] == n) continue; /* every key shares this byte */
        size_t pos = 0;
        for (int v = 0; v < 256; v++) {
            size_t k = c[v];
            c[v] = pos;
            pos += k;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = c[(ks[i] >> (8 * b)) & 0xff]++;
            kd[at] = ks[i];
            id[at] = is[i];
        }
        uint64_t *kt = ks; ks = kd; kd = kt;
        uint32_t *it = is; is = id; id = it;
    }
    if (ks != keys) {
        memcpy(keys, ks, n * sizeof *keys);
        memcpy(ids, is, n * sizeof *ids);
    }
    free(count); free(k2); free(i2);
    return true;
}
