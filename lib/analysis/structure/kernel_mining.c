/*
 * kernel_mining.c — `kineta patterns --mine`: frequent contiguous kernel
 * sequences on each GPU stream, found without naming an op, ranked by the
 * launch overhead fusing them would save (see kt_mine_sequences).
 *
 * Users hunting fusion candidates ask HTA for this and get only the
 * op-rooted patterns.  Counting every distinct n-gram is done per length
 * with a rolling polynomial hash of the name ids (a window's hash in O(1)
 * from prefix hashes) placing it in a table where it is told apart by an
 * exact key (the slot of its first length−1 ids, its last id), so a
 * stream of n kernels costs O(n · max_len) — no pairwise comparison.
 * Occurrences are counted greedily left to right without overlap, each
 * linked to the next occurrence of its window.  The median gap needs the
 * gaps of each occurrence: the counting keeps, per stream, the candidates
 * with the largest total gap (count × (length−1) × mean gap) with their
 * occurrences read off the links, and the gaps of those occurrences (the
 * first MEDIAN_SAMPLE of each candidate) give the median.
 *
 * The table starts small and grows (a length counted again from its
 * start in the larger one) when half full: streams repeat few distinct
 * windows, and a table of two slots per kernel was fresh pages the size
 * of the stream, probed at random.  Which candidates are kept does not
 * depend on where they sit in it: ties go to the earlier first occurrence.
 */
#include "analysis/common/stats.h"
#include "model/index.h"
#include "model/radix.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BASE 0x9E3779B97F4A7C15ull
#define PRESELECT 4 /* candidates kept per stream: PRESELECT × top */
#define MEDIAN_SAMPLE 65536 /* gaps per candidate the median is taken over */
#define FIRST_SLOTS 4096    /* the window table's first size (128 KiB)      */

void kt_mine_options_init(kt_mine_options *o, size_t size)
{
    const kt_mine_options d = { .max_len = 8, .top = 10, .min_count = 2 };
    kt_options_init(o, size, &d, sizeof d);
}

/* One stream's kernels as arrays. */
typedef struct seq {
    const kt_gpu_stream *gs;
    const int64_t *dur;    /* the rank's event durations (ns)             */
    uint32_t *ev, *name;
    uint32_t *at;          /* at[i]: kernel i's position in gs->ev        */
    uint32_t *next;        /* next[i]: the window counted at i's next
                              occurrence (for the length being counted)  */
    int64_t *frequent;     /* slots reaching min_count (that length)     */
    uint32_t *win;         /* win[i]: the slot of the window at i of the
                              last length counted (at first its name):
                              the next length's keys                     */
    int64_t *gap_prefix;   /* gap_prefix[i] = Σ gap(j), j < i, where gap(j)
                              = kernel j+1 start − kernel j end, ≥ 0      */
    uint64_t *h;           /* prefix hashes                                */
    size_t n;
} seq;

typedef struct cand {
    size_t stream, len, first;
    size_t first_at;       /* the first kernel's position in its stream   */
    int64_t count, gap_sum;
    double median_gap_ns, saving_ns;
    double kernel_ns;      /* Σ durations of the occurrences' kernels     */
    uint32_t *occ;         /* the occurrences' starts, count of them      */
} cand;

typedef struct slot {      /* 32 bytes: the table has two slots a kernel */
    uint64_t window;       /* the prefix window's slot, the last name id  */
    int64_t gap_sum;
    uint32_t first, last_end;
    uint32_t count;        /* occurrences (at most the kernels, < 2^32)   */
    uint32_t len;          /* the window length counted here (0: never used):
                              the table serves every length without clearing */
} slot;

static void seq_free(seq *s)
{
    free(s->ev);
    free(s->name);
    free(s->at);
    free(s->next);
    free(s->frequent);
    free(s->win);
    free(s->gap_prefix);
    free(s->h);
}

static bool seq_build(const kt_rank *r, const kt_gpu_stream *gs, seq *s)
{
    memset(s, 0, sizeof *s);
    s->gs = gs;
    s->dur = r->ev.dur;
    size_t n = gs->n;
    s->ev = kt_alloc_written(n * sizeof *s->ev);
    s->name = kt_alloc_written(n * sizeof *s->name);
    s->at = kt_alloc_written(n * sizeof *s->at);
    s->next = kt_alloc_written(n * sizeof *s->next);
    s->frequent = kt_alloc_written(n * sizeof *s->frequent);
    s->win = kt_alloc_written(n * sizeof *s->win);
    s->gap_prefix = kt_alloc_written((n + 1) * sizeof *s->gap_prefix);
    s->h = kt_alloc_written((n + 1) * sizeof *s->h);
    if (!s->ev || !s->name || !s->at || !s->next || !s->frequent || !s->win || !s->gap_prefix || !s->h)
        return false;
    const kt_events *e = &r->ev;
    for (size_t i = 0; i < gs->n; i++)
        if (e->kind[gs->ev[i]] == KT_K_KERNEL) {
            s->at[s->n] = (uint32_t)i;
            s->ev[s->n++] = gs->ev[i];
        }
    s->h[0] = 0;
    s->gap_prefix[0] = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t ev = s->ev[i];
        s->name[i] = e->name[ev];
        s->win[i] = s->name[i];
        s->h[i + 1] = s->h[i] * HASH_BASE + (uint64_t)s->name[i] + 1;
        int64_t g = 0;
        if (i + 1 < s->n) {
            int64_t end = e->ts[ev] + (e->dur[ev] > 0 ? e->dur[ev] : 0);
            g = e->ts[s->ev[i + 1]] - end;
        }
        s->gap_prefix[i + 1] = s->gap_prefix[i] + (g > 0 ? g : 0);
    }
    return true;
}

/* pow_len: HASH_BASE^len (mod 2^64). */
static uint64_t window_hash(const seq *s, size_t i, size_t len, uint64_t pow_len)
{
    uint64_t h = s->h[i + len] - s->h[i] * pow_len;
    return h ^ (h >> 31);
}

/* Slot of the window with key `window` and hash h (existing or the empty
 * one to fill).                                                          */
static slot *find_slot(slot *tab, size_t mask, uint64_t window, size_t len, uint64_t h)
{
    size_t k = (size_t)h & mask;
    while (tab[k].len == len && tab[k].window != window) k = (k + 1) & mask;
    return &tab[k];
}

/* Larger total gap first, then more kernels in occurrences, then the
 * earlier first occurrence and the shorter: a total order, so the set
 * kept does not depend on the order of the offers.                      */
static int by_gap_sum(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->gap_sum != y->gap_sum) return x->gap_sum > y->gap_sum ? -1 : 1;
    int64_t wx = x->count * (int64_t)(x->len - 1), wy = y->count * (int64_t)(y->len - 1);
    if (wx != wy) return wx > wy ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return (x->len > y->len) - (x->len < y->len);
}

/* A stream's best candidates so far, at most keep of them. */
typedef struct kept_set {
    cand *c;
    size_t n, keep;
    size_t worst;          /* index of the worst, SIZE_MAX: not known     */
} kept_set;

/* The first of the worst of the full set k (the one an offer replaces). */
static size_t worst_of(const kept_set *k)
{
    size_t worst = 0;
    for (size_t i = 1; i < k->n; i++)
        if (by_gap_sum(&k->c[i], &k->c[worst]) > 0) worst = i;
    return worst;
}

/* Keep the best candidates (by_gap_sum) of the set + the new one: where
 * the new one is kept, or NULL.  The worst is found again only after a
 * replacement: most offers are turned away.                              */
static cand *offer(kept_set *k, const cand *nc)
{
    if (k->n < k->keep) {
        k->c[k->n] = *nc;
        return &k->c[k->n++];
    }
    if (k->worst == SIZE_MAX) k->worst = worst_of(k);
    if (by_gap_sum(nc, &k->c[k->worst]) >= 0) return NULL;
    cand *at = &k->c[k->worst];
    free(at->occ);
    *at = *nc;
    k->worst = SIZE_MAX;
    return at;
}

/* A kept candidate's occurrences, read off the links of its length. */
static bool read_occurrences(const seq *s, cand *c)
{
    c->occ = malloc((size_t)c->count * sizeof *c->occ);
    if (!c->occ) return false;
    uint32_t at = (uint32_t)c->first;
    for (int64_t k = 0; k < c->count; k++, at = s->next[at]) c->occ[k] = at;
    return true;
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n) p *= 2;
    return p;
}

/* A table of cap slots, none used yet: only each slot's len is cleared (a
 * calloc cleared all 32 bytes of each whenever the allocator handed back
 * used memory: a fifth of the analysis).                                 */
static slot *new_table(size_t cap)
{
    slot *tab = malloc(cap * sizeof *tab);
    for (size_t k = 0; tab && k < cap; k++) tab[k].len = 0;
    return tab;
}

/* The window table: slots for mask + 1 (a power of two), used of them
 * holding windows of the length being counted.                          */
typedef struct table {
    slot *s;
    size_t mask, used;
} table;

/* Pass 1 for one length: count every window without overlap, noting the
 * slots that reach min_count; false (tb->used past half the slots) when
 * the table must grow first — then the pass left s->win half rewritten.  */
static bool count_windows(const seq *s, size_t len, const kt_mine_options *o, table *tb, size_t *nfrequent)
{
    uint64_t pow_len = 1;
    for (size_t k = 0; k < len; k++) pow_len *= HASH_BASE;
    slot *tab = tb->s;
    *nfrequent = 0;
    tb->used = 0;
    for (size_t i = 0; i + len <= s->n; i++) {
        uint64_t window = (uint64_t)s->win[i] << 32 | s->name[i + len - 1];
        slot *sl = find_slot(tab, tb->mask, window, len, window_hash(s, i, len, pow_len));
        if (sl->len != len) {
            if (2 * ++tb->used > tb->mask + 1) return false;
            *sl = (slot){ .window = window, .first = (uint32_t)i, .len = (uint32_t)len };
        }
        s->win[i] = (uint32_t)(sl - tab);
        if (i < sl->last_end) continue;
        if (sl->count) s->next[sl->last_end - len] = (uint32_t)i;
        if ((size_t)++sl->count == o->min_count) s->frequent[(*nfrequent)++] = sl - tab;
        sl->last_end = (uint32_t)(i + len);
        sl->gap_sum += s->gap_prefix[i + len - 1] - s->gap_prefix[i];
    }
    return true;
}

/* A table four times as large, every slot unused; false without memory. */
static bool grow(table *tb)
{
    size_t cap = 4 * (tb->mask + 1);
    slot *bigger = new_table(cap);
    if (!bigger) return false;
    free(tb->s);
    *tb = (table){ bigger, cap - 1, 0 };
    return true;
}

/* One length counted (again from its start, on keys[] kept aside, while
 * the table grows), its frequent windows offered as candidates.        */
static bool count_length(const seq *s, size_t len, const kt_mine_options *o, table *tb, uint32_t *keys,
                         kept_set *best, size_t stream)
{
    size_t nfrequent, most = s->n - len + 1; /* distinct windows at most */
    bool may_grow = 2 * most > tb->mask + 1;
    if (may_grow) memcpy(keys, s->win, s->n * sizeof *keys);
    while (!count_windows(s, len, o, tb, &nfrequent)) {
        if (!grow(tb)) return false;
        memcpy(s->win, keys, s->n * sizeof *keys);
    }
    for (size_t f = 0; f < nfrequent; f++) {
        const slot *sl = &tb->s[s->frequent[f]];
        cand cand_new = { .stream = stream, .len = len, .first = sl->first, .count = sl->count,
                          .gap_sum = sl->gap_sum };
        cand *kept = offer(best, &cand_new);
        if (kept && !read_occurrences(s, kept)) return false;
    }
    return true;
}

/* Pass 2 for a kept candidate: the gaps inside its occurrences and
 * their kernels' time, then the median and saving.                      */
static bool measure(const seq *s, cand *c)
{
    size_t want = (size_t)c->count * (c->len - 1), ngaps = 0;
    double *gaps = malloc((want < MEDIAN_SAMPLE ? (want ? want : 1) : MEDIAN_SAMPLE) * sizeof *gaps);
    if (!gaps) return false;
    c->kernel_ns = 0;
    for (int64_t k = 0; k < c->count; k++) {
        size_t i = c->occ[k];
        for (size_t j = i; j < i + c->len; j++)
            if (s->dur[s->ev[j]] > 0) c->kernel_ns += (double)s->dur[s->ev[j]];
        for (size_t j = i; j + 1 < i + c->len && ngaps < MEDIAN_SAMPLE; j++)
            gaps[ngaps++] = (double)(s->gap_prefix[j + 1] - s->gap_prefix[j]);
    }
    c->median_gap_ns = ngaps ? kt_median_values(gaps, ngaps) : 0;
    c->saving_ns = (double)c->count * (double)(c->len - 1) * c->median_gap_ns;
    c->first_at = s->at[c->first];
    free(gaps);
    return true;
}

/* Candidates of one stream, appended to all[*nall]. */
static kt_status mine_stream(const kt_rank *r, size_t stream, const kt_mine_options *o, cand *all, size_t *nall)
{
    seq s = { 0 };
    kept_set best = { .keep = PRESELECT * (o->top ? o->top : 1), .worst = SIZE_MAX };
    best.c = calloc(best.keep, sizeof *best.c);
    cand *c = best.c;
    bool ok = c && seq_build(r, &r->idx->streams[stream], &s);
    size_t cap = pow2_at_least(2 * (s.n + 1) < FIRST_SLOTS ? 2 * (s.n + 1) : FIRST_SLOTS);
    table tb = { ok ? new_table(cap) : NULL, cap - 1, 0 };
    uint32_t *keys = ok ? malloc((s.n ? s.n : 1) * sizeof *keys) : NULL;
    ok = ok && tb.s && keys;
    for (size_t len = 2; ok && len <= o->max_len && len <= s.n; len++)
        ok = count_length(&s, len, o, &tb, keys, &best, stream);
    free(tb.s);
    free(keys);
    size_t nc = best.n;
    for (size_t k = 0; ok && k < nc; k++) ok = measure(&s, &c[k]);
    for (size_t k = 0; k < nc; k++) {
        free(c[k].occ);
        c[k].occ = NULL;
    }
    if (ok) {
        memcpy(all + *nall, c, nc * sizeof *c);
        *nall += nc;
    }
    seq_free(&s);
    free(c);
    return ok ? KT_OK : KT_ENOMEM;
}

/* ---- reduce: rank's rows ---------------------------------------------------- */

typedef struct text {
    char *p;
    size_t n, cap;
    bool failed;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->failed) return;
    if (t->n + k + 1 > t->cap) {
        size_t c = t->cap ? t->cap * 2 : 256;
        while (c < t->n + k + 1) c *= 2;
        char *q = realloc(t->p, c);
        if (!q) {
            t->failed = true;
            return;
        }
        t->p = q;
        t->cap = c;
    }
    memcpy(t->p + t->n, s, k + 1);
    t->n += k;
}

static const char *name_of(const kt_trace *t, uint32_t id)
{
    return id == KT_NONE ? "" : kt_strtab_get(t->strs, id);
}

/* The candidate's kernel names, or the ops that launched its first
 * occurrence (consecutive repeats once; "(unlinked)" without an op).    */
static void describe(const kt_trace *t, const kt_rank *r, const cand *c, bool launchers, text *out)
{
    const kt_gpu_stream *gs = &r->idx->streams[c->stream];
    out->n = 0;
    put(out, "");
    uint32_t prev = KT_NONE - 1;
    size_t k = 0;
    for (size_t i = c->first_at; i < gs->n && k < c->len; i++) {
        uint32_t ev = gs->ev[i];
        if (r->ev.kind[ev] != KT_K_KERNEL) continue;
        k++;
        uint32_t id = r->ev.name[ev];
        if (launchers) {
            uint32_t op = kt_launcher_op(r, ev);
            id = op == KT_NONE ? KT_NONE : r->ev.name[op];
            if (id == prev) continue;
            prev = id;
        }
        if (out->n) put(out, "|");
        put(out, launchers && id == KT_NONE ? "(unlinked)" : name_of(t, id));
    }
}

typedef struct ranked {
    cand *c;
    char **kernels;
} ranked;

static int by_saving(const void *a, const void *b, void *user)
{
    const ranked *rk = user;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const cand *cx = &rk->c[x], *cy = &rk->c[y];
    if (cx->saving_ns != cy->saving_ns) return cx->saving_ns > cy->saving_ns ? -1 : 1;
    int64_t wx = cx->count * (int64_t)(cx->len - 1), wy = cy->count * (int64_t)(cy->len - 1);
    if (wx != wy) return wx > wy ? -1 : 1;
    return strcmp(rk->kernels[x], rk->kernels[y]);
}

static void add_row(kt_table *tb, const kt_rank *r, const cand *c, const char *kernels, const char *launchers)
{
    const kt_gpu_stream *gs = &r->idx->streams[c->stream];
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, r->rank);
    kt_table_set_int(tb, 1, gs->device);
    kt_table_set_int(tb, 2, gs->stream);
    kt_table_set_int(tb, 3, (int64_t)c->len);
    kt_table_set_int(tb, 4, c->count);
    kt_table_set_float(tb, 5, c->median_gap_ns / 1e3);
    kt_table_set_float(tb, 6, c->saving_ns / 1e3);
    kt_table_set_str(tb, 7, kernels);
    kt_table_set_str(tb, 8, launchers);
    kt_table_set_float(tb, 9, c->kernel_ns / 1e3);
}

static kt_status rank_rows(const kt_trace *t, const kt_rank *r, const kt_mine_options *o, kt_table *tb)
{
    kt_status st = kt_index_call_tree(r);
    if (st != KT_OK) return st;
    size_t keep = PRESELECT * (o->top ? o->top : 1), n = 0;
    size_t cap = r->idx->nstreams * keep;
    cand *all = malloc((cap ? cap : 1) * sizeof *all);
    if (!all) return KT_ENOMEM;
    for (size_t s = 0; st == KT_OK && s < r->idx->nstreams; s++) st = mine_stream(r, s, o, all, &n);
    char **kernels = calloc(n ? n : 1, sizeof *kernels);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    text buf = { 0 };
    if (st == KT_OK && (!kernels || !order)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) {
        describe(t, r, &all[i], false, &buf);
        kernels[i] = buf.failed ? NULL : strdup(buf.p);
        order[i] = i;
        if (!kernels[i]) st = KT_ENOMEM;
    }
    if (st == KT_OK) {
        ranked rk = { all, kernels };
        qsort_r(order, n, sizeof *order, by_saving, &rk);
        for (size_t i = 0; i < n && i < o->top; i++) {
            describe(t, r, &all[order[i]], true, &buf);
            add_row(tb, r, &all[order[i]], kernels[order[i]], buf.failed ? "" : buf.p);
        }
        if (buf.failed) st = KT_ENOMEM;
    }
    for (size_t i = 0; kernels && i < n; i++) free(kernels[i]);
    free(kernels);
    free(order);
    free(buf.p);
    free(all);
    return st;
}

kt_status kt_mine_sequences(const kt_trace *t, const kt_rank_sel *sel, const kt_mine_options *opt,
                            kt_tables **out)
{
    *out = NULL;
    kt_mine_options o = kt_mine_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    if (o.max_len < 2) return KT_EUSAGE;
    if (o.min_count < 1) o.min_count = 1;
    static const char *const cols[] = { "rank", "device", "stream", "length", "count", "median_gap_us",
                                        "saving_us", "kernels", "launchers", "kernel_us" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT,
                                         KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_STR, KT_COL_STR, KT_COL_FLOAT };
    kt_table *tb = kt_table_new("sequences");
    for (size_t i = 0; tb && i < 10; i++) kt_table_add_col(tb, cols[i], types[i], 3);
    kt_status st = tb ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) st = rank_rows(t, t->ranks[i], &o, tb);
    if (st != KT_OK) {
        kt_table_free(tb);
        return st;
    }
    return kt_tables_from(&tb, 1, out);
}
