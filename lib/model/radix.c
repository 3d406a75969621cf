/* radix.c — see radix.h. */
#include "radix.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* Kineto writes events almost in time order (a handful of descents per
 * rank), so key sequences are usually a few ascending runs: merging those
 * is a couple of sequential passes, cheaper than radix scatters.  Traces
 * merged or tiled by tools repeat that pattern once per part: even 256
 * runs (8 sequential passes) merge in a third of the radix sort's time on
 * millions of keys, whose scatters miss the cache (bench/sort.sh).        */
#define MERGE_MAX_RUNS 256

/* One stable merge of the runs [a, m) and [m, b) from one buffer (set) to
 * the other: from the first to the second when !flip, back when flip.   */
typedef void (*merge_step)(void *ctx, bool flip, size_t a, size_t m, size_t b);

/* Runs [r0, r1) (bounds[r0] ... bounds[r1]), which start in the first
 * buffers, merged into the second (to true) or the first: the halves
 * merged into the other buffer first, depth first, so the merges of a
 * part that fits in the cache run there before the next part is read.  A
 * lone run is copied when it has to change buffers.                      */
static void merge_range(const size_t *bounds, size_t r0, size_t r1, bool to, merge_step step, void *ctx)
{
    if (r1 - r0 == 1) {
        if (to) step(ctx, false, bounds[r0], bounds[r1], bounds[r1]); /* no right run: a copy */
        return;
    }
    size_t mid = r0 + (r1 - r0) / 2;
    merge_range(bounds, r0, mid, !to, step, ctx);
    merge_range(bounds, mid, r1, !to, step, ctx);
    step(ctx, !to, bounds[r0], bounds[mid], bounds[r1]);
}

/* The runs ascending runs of n items (bounds[0] = 0 ... bounds[runs] = n)
 * merged into one, ending in the first buffers; every sort below merges
 * this way, only what it merges differs.                                 */
static void merge_all_runs(const size_t *bounds, size_t runs, merge_step step, void *ctx)
{
    if (runs > 1) merge_range(bounds, 0, runs, false, step, ctx);
}

/* item_less(ctx, buf, x, y): item x of buffer buf goes before item y. */
typedef bool (*item_less)(const void *ctx, const void *buf, size_t x, size_t y);

/* The part of a merge of runs [a, m) and [m, b) of buf that needs
 * comparing, [*lo, *hi): the left run's items up to the right run's first
 * and the right run's items from the left run's last on are in place
 * already.  The runs of a trace tiled or merged by tools, or of a profile
 * of several windows, overlap in a small part: the rest is copied.  Found
 * by binary search, a few calls of less per merge.                       */
static void overlap_of(item_less less, const void *ctx, const void *buf, size_t a, size_t m, size_t b, size_t *lo,
                       size_t *hi)
{
    if (m == b) { /* no right run: the left is copied */
        *lo = *hi = m;
        return;
    }
    size_t l = a, h = m; /* first left item after the right's first (ties: the left first) */
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (less(ctx, buf, m, mid)) h = mid;
        else l = mid + 1;
    }
    *lo = l;
    l = m, h = b; /* first right item not before the left's last */
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (less(ctx, buf, mid, m - 1)) l = mid + 1;
        else h = mid;
    }
    *hi = l;
}

/* Run boundaries of col[ids[]] (bounds[0] = 0 ... bounds[runs] = n); 0 if
 * too many.                                                               */
static size_t find_runs(const uint32_t *ids, size_t n, const int64_t *col, size_t *bounds)
{
    size_t runs = 0;
    bounds[0] = 0;
    for (size_t i = 1; i < n; i++)
        if (col[ids[i]] < col[ids[i - 1]]) {
            if (++runs == MERGE_MAX_RUNS) return 0;
            bounds[runs] = i;
        }
    bounds[++runs] = n;
    return runs;
}

/* Ids merged by their column's values. */
typedef struct col_merge {
    const int64_t *col;
    uint32_t *buf[2];
} col_merge;

static bool col_less(const void *ctx, const void *buf, size_t x, size_t y)
{
    const int64_t *col = ((const col_merge *)ctx)->col;
    const uint32_t *ids = buf;
    return col[ids[x]] < col[ids[y]];
}

/* An ids_merge(ctx, src, dst, i, m, b) merges src's [i, m) and [m, b)
 * into dst from i on: a loop with its order inlined.                     */
typedef void (*ids_merge)(const void *ctx, const uint32_t *src, uint32_t *dst, size_t i, size_t m, size_t b);

/* One merge step of ids from buf[flip] to buf[!flip]: what is in place
 * copied, the overlap merged.                                            */
static void merge_id_step(item_less less, ids_merge merge, const void *ctx, uint32_t *const buf[2], bool flip,
                          size_t a, size_t m, size_t b)
{
    const uint32_t *src = buf[flip];
    uint32_t *dst = buf[!flip];
    size_t lo, hi;
    overlap_of(less, ctx, src, a, m, b, &lo, &hi);
    memcpy(dst + a, src + a, (lo - a) * sizeof *dst);
    merge(ctx, src, dst, lo, m, hi);
    memcpy(dst + hi, src + hi, (b - hi) * sizeof *dst);
}

static void merge_ids(const void *ctx, const uint32_t *src, uint32_t *dst, size_t i, size_t m, size_t b)
{
    const int64_t *col = ((const col_merge *)ctx)->col;
    size_t j = m, o = i;
    while (i < m && j < b) {
        bool right = col[src[j]] < col[src[i]]; /* ties: the left (earlier) run first */
        dst[o++] = right ? src[j++] : src[i++];
    }
    for (; i < m; i++) dst[o++] = src[i];
    for (; j < b; j++) dst[o++] = src[j];
}

static void merge_by_col(void *ctx, bool flip, size_t a, size_t m, size_t b)
{
    merge_id_step(col_less, merge_ids, ctx, ((col_merge *)ctx)->buf, flip, a, m, b);
}

/* Merges ids only, reading keys from the column: one spare id array is
 * all the memory it needs (keys would cost three times that).             */
static void merge_runs(uint32_t *ids, const int64_t *col, const size_t *bounds, size_t runs, uint32_t *spare)
{
    col_merge c = { col, { ids, spare } };
    merge_all_runs(bounds, runs, merge_by_col, &c);
}

/* One radix sort of ids by a column of either width (the other is NULL). */
static bool radix_sort_by(uint32_t *ids, size_t n, const int64_t *col64, const int32_t *col32)
{
    uint64_t *keys = kt_alloc_written(n * sizeof *keys);
    if (!keys) return false;
    for (size_t i = 0; i < n; i++) keys[i] = kt_radix_key_i64(col64 ? col64[ids[i]] : col32[ids[i]]);
    bool ok = kt_radix_sort(keys, ids, n);
    free(keys);
    return ok;
}

/* An insertion sort gives up once it has moved ids more than this many
 * places per id sorted so far (plus the slack, for a disordered start):
 * a move costs a few instructions where the radix passes of absolute
 * times cost ~60 an id, their keys' memory besides, and giving up early
 * bounds what a disordered input wastes.                                 */
#define NEARLY_SORTED_MOVES 8
#define NEARLY_SORTED_SLACK 4096

/* Stable insertion sort of ids by col while they are only a few places
 * out of order: records written as they complete (rocprofv3's
 * dispatches) come in end order, each a few places after its start's
 * (many descents, few moves).  False when it gave up: the ids are then
 * a stable partial order (a sorted prefix, ids equal in col still in
 * their first order), which a stable sort finishes to the same result as
 * from the start.                                                       */
static bool insertion_sort_nearly(uint32_t *ids, size_t n, const int64_t *col)
{
    size_t moves = 0;
    for (size_t k = 1; k < n; k++) {
        uint32_t id = ids[k];
        int64_t key = col[id];
        if (col[ids[k - 1]] <= key) continue;
        size_t j = k;
        for (; j > 0 && col[ids[j - 1]] > key; j--) ids[j] = ids[j - 1];
        ids[j] = id;
        moves += k - j;
        if (moves > NEARLY_SORTED_MOVES * k + NEARLY_SORTED_SLACK) return false;
    }
    return true;
}

bool kt_sort_ids_by_i64_using(uint32_t *ids, size_t n, const int64_t *col, uint32_t *spare)
{
    if (n < 2) return true;
    size_t bounds[MERGE_MAX_RUNS + 1];
    size_t runs = find_runs(ids, n, col, bounds);
    if (!runs) return insertion_sort_nearly(ids, n, col) || radix_sort_by(ids, n, col, NULL);
    if (runs > 1) {
        kt_prefault(spare, n * sizeof *spare);
        merge_runs(ids, col, bounds, runs, spare);
    }
    return true;
}

static int64_t dur_of(const int64_t *dur, uint32_t id, bool clamp)
{
    return clamp && dur[id] < 0 ? 0 : dur[id];
}

bool kt_sort_ids_longer_first(uint32_t *ids, size_t n, const int64_t *dur, bool clamp)
{
    if (n <= 16) { /* the usual case: insertion sort, no allocation */
        for (size_t k = 1; k < n; k++) {
            uint32_t v = ids[k];
            size_t j = k;
            for (; j > 0 && dur_of(dur, ids[j - 1], clamp) < dur_of(dur, v, clamp); j--) ids[j] = ids[j - 1];
            ids[j] = v;
        }
        return true;
    }
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys) return false;
    for (size_t k = 0; k < n; k++) keys[k] = ~kt_radix_key_i64(dur_of(dur, ids[k], clamp));
    bool ok = kt_radix_sort(keys, ids, n);
    free(keys);
    return ok;
}

bool kt_sort_ids_by_i64(uint32_t *ids, size_t n, const int64_t *col)
{
    uint32_t *spare = malloc((n ? n : 1) * sizeof *spare); /* touched only if merging */
    bool ok = spare && kt_sort_ids_by_i64_using(ids, n, col, spare);
    free(spare);
    return ok;
}

bool kt_sort_ids_by_i32(uint32_t *ids, size_t n, const int32_t *col)
{
    return radix_sort_by(ids, n, NULL, col);
}

/* The bytes (0 = lowest) in which some key differs from keys[0], into
 * byte[]; returns how many.  Only those need counting and a pass: most
 * keys (absolute times, small stream or category numbers) share the rest. */
static int varying_bytes(const uint64_t *keys, size_t n, int byte[8])
{
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++) diff |= keys[i] ^ keys[0];
    int nb = 0;
    for (int b = 0; b < 8; b++)
        if ((diff >> (8 * b)) & 0xff) byte[nb++] = b;
    return nb;
}

/* Ascending runs of keys (bounds as find_runs), or 0 when too many. */
static size_t key_runs(const uint64_t *keys, size_t n, size_t *bounds)
{
    size_t runs = 0;
    bounds[0] = 0;
    for (size_t i = 1; i < n; i++)
        if (keys[i] < keys[i - 1]) {
            if (++runs == MERGE_MAX_RUNS) return 0;
            bounds[runs] = i;
        }
    bounds[++runs] = n;
    return runs;
}

/* Keys merged, their ids (when there are any) travelling with them. */
typedef struct key_merge {
    uint64_t *keys[2];
    uint32_t *ids[2];
} key_merge;

static bool key_less(const void *ctx, const void *buf, size_t x, size_t y)
{
    (void)ctx;
    const uint64_t *keys = buf;
    return keys[x] < keys[y];
}

/* Items [from, end) of the keys (and ids) copied out of the flip buffers. */
static void copy_keys(const key_merge *c, bool flip, size_t from, size_t end)
{
    memcpy(c->keys[!flip] + from, c->keys[flip] + from, (end - from) * sizeof *c->keys[0]);
    if (c->ids[flip]) memcpy(c->ids[!flip] + from, c->ids[flip] + from, (end - from) * sizeof *c->ids[0]);
}

/* ks's [i, m) and [m, b) merged into kd from i on, their ids (when
 * there are any) travelling with them.                                  */
static void merge_keys(const uint64_t *ks, const uint32_t *is, uint64_t *kd, uint32_t *id, size_t i, size_t m,
                       size_t b)
{
    size_t j = m, o = i;
    while (i < m && j < b) {
        size_t from = ks[j] < ks[i] ? j++ : i++; /* ties: the left (earlier) run first */
        kd[o] = ks[from];
        if (is) id[o] = is[from];
        o++;
    }
    for (; i < m; i++, o++) {
        kd[o] = ks[i];
        if (is) id[o] = is[i];
    }
    for (; j < b; j++, o++) {
        kd[o] = ks[j];
        if (is) id[o] = is[j];
    }
}

static void merge_by_key(void *ctx, bool flip, size_t a, size_t m, size_t b)
{
    const key_merge *c = ctx;
    size_t lo, hi;
    overlap_of(key_less, c, c->keys[flip], a, m, b, &lo, &hi);
    copy_keys(c, flip, a, lo);
    merge_keys(c->keys[flip], c->ids[flip], c->keys[!flip], c->ids[!flip], lo, m, hi);
    copy_keys(c, flip, hi, b);
}

/* merge_runs for keys (and their ids) through k2 / i2. */
static void merge_key_runs(uint64_t *keys, uint32_t *ids, const size_t *bounds, size_t runs, uint64_t *k2,
                           uint32_t *i2)
{
    key_merge c = { { keys, k2 }, { ids, i2 } };
    merge_all_runs(bounds, runs, merge_by_key, &c);
}

/* Merge passes for runs ascending runs: ceil(log2(runs)).  A merge pass
 * reads and writes in sequence; a radix pass scatters, which on millions
 * of keys costs about twice as much (bench/sort.sh).                      */
static int merge_passes(size_t runs)
{
    int p = 0;
    while (((size_t)1 << p) < runs) p++;
    return p;
}

/* The nb byte passes of an LSD radix sort through k2 / i2. */
static bool radix_passes(uint64_t *keys, uint32_t *ids, size_t n, const int *byte, int nb, uint64_t *k2,
                         uint32_t *i2)
{
    size_t (*count)[256] = calloc((size_t)nb, sizeof *count);
    if (!count) return false;
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < nb; p++) count[p][(keys[i] >> (8 * byte[p])) & 0xff]++;
    uint64_t *ks = keys, *kd = k2;
    uint32_t *is = ids, *id = i2;
    for (int p = 0; p < nb; p++) {
        size_t *c = count[p], pos = 0;
        int shift = 8 * byte[p];
        for (int v = 0; v < 256; v++) {
            size_t k = c[v];
            c[v] = pos;
            pos += k;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = c[(ks[i] >> shift) & 0xff]++;
            kd[at] = ks[i];
            if (ids) id[at] = is[i];
        }
        uint64_t *kt = ks; ks = kd; kd = kt;
        uint32_t *it = is; is = id; id = it;
    }
    if (ks != keys) {
        memcpy(keys, ks, n * sizeof *keys);
        if (ids) memcpy(ids, is, n * sizeof *ids);
    }
    free(count);
    return true;
}

/* Keys often arrive as a few ascending runs (events collected stream by
 * stream, each in time order): then merging them takes fewer passes than
 * the varying bytes' radix passes, and sorted keys take none.            */
bool kt_radix_sort(uint64_t *keys, uint32_t *ids, size_t n)
{
    int byte[8], nb = n < 2 ? 0 : varying_bytes(keys, n, byte);
    if (nb == 0) return true;
    size_t bounds[MERGE_MAX_RUNS + 1];
    size_t runs = key_runs(keys, n, bounds);
    if (runs == 1) return true;
    uint64_t *k2 = kt_alloc_written(n * sizeof *k2);
    uint32_t *i2 = ids ? kt_alloc_written(n * sizeof *i2) : NULL;
    bool ok = k2 && (!ids || i2);
    if (ok && runs && merge_passes(runs) <= 2 * nb)
        merge_key_runs(keys, ids, bounds, runs, k2, i2);
    else if (ok)
        ok = radix_passes(keys, ids, n, byte, nb, k2, i2);
    free(k2);
    free(i2);
    return ok;
}

/* Doubles as keys in the same order: positives above negatives, negatives
 * reversed; every NaN last, as numpy sorts (x86 makes negative NaNs).    */
static uint64_t double_key(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    if (d != d) return UINT64_MAX;
    return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

static double key_double(uint64_t k)
{
    uint64_t b = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The same order, for qsort when there is no memory for the keys. */
static int cmp_double_keys(const void *a, const void *b)
{
    uint64_t x = double_key(*(const double *)a), y = double_key(*(const double *)b);
    return (x > y) - (x < y);
}

void kt_sort_doubles(double *v, size_t n)
{
    if (n < 48) { /* insertion sort: no passes or memory for a few values */
        for (size_t i = 1; i < n; i++) {
            double x = v[i];
            size_t j = i;
            for (; j > 0 && double_key(v[j - 1]) > double_key(x); j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    uint64_t *keys = kt_alloc_written(n * sizeof *keys);
    bool ok = keys != NULL;
    for (size_t i = 0; ok && i < n; i++) keys[i] = double_key(v[i]);
    ok = ok && kt_radix_sort(keys, NULL, n);
    for (size_t i = 0; ok && i < n; i++) v[i] = key_double(keys[i]);
    free(keys);
    if (!ok) qsort(v, n, sizeof *v, cmp_double_keys); /* no memory: in place */
}

bool kt_sort_i64(int64_t *v, size_t n)
{
    uint64_t *k = (uint64_t *)v; /* same size: the keys are made in place */
    for (size_t i = 0; i < n; i++) k[i] = kt_radix_key_i64(v[i]);
    bool ok = kt_radix_sort(k, NULL, n);
    for (size_t i = 0; i < n; i++) v[i] = (int64_t)(k[i] ^ ((uint64_t)1 << 63));
    return ok;
}

/* (major, minor) of record a before that of record b. */
static bool pair_less(const uint64_t *major, const uint64_t *minor, uint32_t a, uint32_t b)
{
    return major[a] < major[b] || (major[a] == major[b] && minor[a] < minor[b]);
}

/* Ascending runs of the (major, minor) pairs in record order, as key_runs. */
static size_t pair_runs(const uint64_t *major, const uint64_t *minor, size_t n, size_t *bounds)
{
    size_t runs = 0;
    bounds[0] = 0;
    for (size_t i = 1; i < n; i++)
        if (pair_less(major, minor, (uint32_t)i, (uint32_t)(i - 1))) {
            if (++runs == MERGE_MAX_RUNS) return 0;
            bounds[runs] = i;
        }
    bounds[++runs] = n;
    return runs;
}

/* Record ids merged by their (major, minor) pairs. */
typedef struct pair_merge {
    const uint64_t *major, *minor;
    uint32_t *buf[2];
} pair_merge;

static bool pair_item_less(const void *ctx, const void *buf, size_t x, size_t y)
{
    const pair_merge *c = ctx;
    const uint32_t *ids = buf;
    return pair_less(c->major, c->minor, ids[x], ids[y]);
}

static void merge_pair_ids(const void *ctx, const uint32_t *src, uint32_t *dst, size_t i, size_t m, size_t b)
{
    const uint64_t *major = ((const pair_merge *)ctx)->major, *minor = ((const pair_merge *)ctx)->minor;
    size_t j = m, o = i;
    while (i < m && j < b) dst[o++] = pair_less(major, minor, src[j], src[i]) ? src[j++] : src[i++];
    for (; i < m; i++) dst[o++] = src[i];
    for (; j < b; j++) dst[o++] = src[j];
}

static void merge_by_pair(void *ctx, bool flip, size_t a, size_t m, size_t b)
{
    merge_id_step(pair_item_less, merge_pair_ids, ctx, ((pair_merge *)ctx)->buf, flip, a, m, b);
}

/* merge_runs for record ids ordered by their (major, minor) pairs. */
static void merge_pair_runs(uint32_t *ids, const uint64_t *major, const uint64_t *minor, const size_t *bounds,
                            size_t runs, uint32_t *spare)
{
    pair_merge c = { major, minor, { ids, spare } };
    merge_all_runs(bounds, runs, merge_by_pair, &c);
}

/* The record order by two stable radix sorts, minor key first. */
static bool radix_pair_order(uint32_t *ids, size_t n, const uint64_t *major, uint64_t *minor)
{
    if (!kt_radix_sort(minor, ids, n)) return false;
    for (size_t i = 0; i < n; i++) minor[i] = major[ids[i]]; /* the minor keys are spent */
    return kt_radix_sort(minor, ids, n);
}

/* recs[i] = the record at ids[i] for every i, in place: each cycle of the
 * permutation followed once through one spare record (a sorted copy of
 * the records was as large as they are, all of it fresh pages); ids is
 * spent (each position set to itself once filled).                      */
static void permute_in_place(char *recs, size_t size, size_t n, uint32_t *ids, char *spare)
{
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == i) continue;
        memcpy(spare, recs + i * size, size);
        size_t j = i;
        for (size_t k; (k = ids[j]) != i; j = k) {
            memcpy(recs + j * size, recs + k * size, size);
            ids[j] = (uint32_t)j;
        }
        memcpy(recs + j * size, spare, size);
        ids[j] = (uint32_t)j;
    }
}

/* Records gathered stream by stream come as a few runs already in (major,
 * minor) order: merging their ids then beats two radix sorts, and sorted
 * records are left as they are.                                           */
bool kt_radix_sort_records(void *recs, size_t size, size_t n, const uint64_t *major, uint64_t *minor)
{
    size_t bounds[MERGE_MAX_RUNS + 1];
    size_t runs = n < 2 ? 1 : pair_runs(major, minor, n, bounds);
    if (runs == 1) return true;
    bool merge = runs && merge_passes(runs) <= 6; /* two radix sorts take 4-10 scattering passes */
    uint32_t *ids = malloc(n * sizeof *ids), *spare = merge ? malloc(n * sizeof *spare) : NULL;
    char *rec = malloc(size);
    bool ok = ids && rec && (!merge || spare);
    for (size_t i = 0; ok && i < n; i++) ids[i] = (uint32_t)i;
    if (ok && merge)
        merge_pair_runs(ids, major, minor, bounds, runs, spare);
    else
        ok = ok && radix_pair_order(ids, n, major, minor);
    if (ok) permute_in_place(recs, size, n, ids, rec);
    free(ids);
    free(spare);
    free(rec);
    return ok;
}
