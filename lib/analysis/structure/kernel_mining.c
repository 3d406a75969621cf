/*
 * kernel_mining.c — `kineta patterns --mine`: frequent contiguous kernel
 * sequences on each GPU stream, found without naming an op, ranked by the
 * launch overhead fusing them would save (see kt_mine_sequences).
 *
 * Users hunting fusion candidates ask HTA for this and get only the
 * op-rooted patterns.  Counting every distinct n-gram is done per length
 * with a rolling polynomial hash of the name ids (a window's hash in O(1)
 * from prefix hashes, collisions checked by comparing the ids), so a
 * stream of n kernels costs O(n · max_len) — no pairwise comparison.
 * Occurrences are counted greedily left to right without overlap.  The
 * median gap needs the gaps of each occurrence: a first pass keeps, per
 * stream, the candidates with the largest total gap (count × (length−1) ×
 * mean gap), a second pass collects their gaps (the first MEDIAN_SAMPLE
 * of each) for the median.
 */
#include "analysis/common/stats.h"
#include "model/index.h"
#include "output/table.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BASE 0x9E3779B97F4A7C15ull
#define PRESELECT 4 /* candidates kept per stream: PRESELECT × top */
#define MEDIAN_SAMPLE 65536 /* gaps per candidate the median is taken over */

kt_mine_options kt_mine_defaults(void)
{
    return (kt_mine_options){ .max_len = 8, .top = 10, .min_count = 2 };
}

/* One stream's kernels as arrays. */
typedef struct seq {
    const kt_gpu_stream *gs;
    const int64_t *dur;    /* the rank's event durations (ns)             */
    uint32_t *ev, *name;
    int64_t *gap;          /* gap[i]: kernel i+1 start − kernel i end, ≥ 0 */
    int64_t *gap_prefix;   /* gap_prefix[i] = Σ gap[0..i)                  */
    uint64_t *h, *pow;     /* prefix hashes, powers of the base            */
    size_t n;
} seq;

typedef struct cand {
    size_t stream, len, first;
    int64_t count, gap_sum;
    double median_gap_ns, saving_ns;
    double kernel_ns;      /* Σ durations of the occurrences' kernels     */
    /* pass 2 */
    double *gaps;
    size_t ngaps;
    uint32_t last_end;
} cand;

typedef struct slot {
    uint64_t hash;
    uint32_t first, last_end;
    int64_t count, gap_sum;
    uint32_t len;          /* the window length counted here (0: never used):
                              the table serves every length without clearing */
} slot;

static void seq_free(seq *s)
{
    free(s->ev);
    free(s->name);
    free(s->gap);
    free(s->gap_prefix);
    free(s->h);
    free(s->pow);
}

static bool seq_build(const kt_rank *r, const kt_gpu_stream *gs, seq *s)
{
    memset(s, 0, sizeof *s);
    s->gs = gs;
    s->dur = r->ev.dur;
    size_t cap = gs->n ? gs->n : 1;
    s->ev = malloc(cap * sizeof *s->ev);
    s->name = malloc(cap * sizeof *s->name);
    s->gap = malloc(cap * sizeof *s->gap);
    s->gap_prefix = malloc((cap + 1) * sizeof *s->gap_prefix);
    s->h = malloc((cap + 1) * sizeof *s->h);
    s->pow = malloc((cap + 1) * sizeof *s->pow);
    if (!s->ev || !s->name || !s->gap || !s->gap_prefix || !s->h || !s->pow) return false;
    const kt_events *e = &r->ev;
    for (size_t i = 0; i < gs->n; i++)
        if (e->kind[gs->ev[i]] == KT_K_KERNEL) s->ev[s->n++] = gs->ev[i];
    s->h[0] = 0;
    s->pow[0] = 1;
    s->gap_prefix[0] = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t ev = s->ev[i];
        s->name[i] = e->name[ev];
        s->h[i + 1] = s->h[i] * HASH_BASE + (uint64_t)s->name[i] + 1;
        s->pow[i + 1] = s->pow[i] * HASH_BASE;
        int64_t g = 0;
        if (i + 1 < s->n) {
            int64_t end = e->ts[ev] + (e->dur[ev] > 0 ? e->dur[ev] : 0);
            g = e->ts[s->ev[i + 1]] - end;
        }
        s->gap[i] = g > 0 ? g : 0;
        s->gap_prefix[i + 1] = s->gap_prefix[i] + s->gap[i];
    }
    return true;
}

static uint64_t window_hash(const seq *s, size_t i, size_t len)
{
    uint64_t h = s->h[i + len] - s->h[i] * s->pow[len];
    return h ^ (h >> 31);
}

static bool same_window(const seq *s, size_t a, size_t b, size_t len)
{
    return !memcmp(s->name + a, s->name + b, len * sizeof *s->name);
}

/* Slot of the window at i (existing or the empty one to fill). */
static slot *find_slot(slot *tab, size_t mask, const seq *s, size_t i, size_t len, uint64_t h)
{
    size_t k = (size_t)h & mask;
    while (tab[k].len == len && !(tab[k].hash == h && same_window(s, tab[k].first, i, len))) k = (k + 1) & mask;
    return &tab[k];
}

static int by_gap_sum(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->gap_sum != y->gap_sum) return x->gap_sum > y->gap_sum ? -1 : 1;
    int64_t wx = x->count * (int64_t)(x->len - 1), wy = y->count * (int64_t)(y->len - 1);
    return wx > wy ? -1 : wx < wy;
}

/* Keep the best `keep` candidates (by total gap) of c[0..*n) + new one. */
static void offer(cand *c, size_t *n, size_t keep, const cand *nc)
{
    if (*n < keep) {
        c[(*n)++] = *nc;
        return;
    }
    size_t worst = 0;
    for (size_t i = 1; i < *n; i++)
        if (by_gap_sum(&c[i], &c[worst]) > 0) worst = i;
    if (by_gap_sum(nc, &c[worst]) < 0) c[worst] = *nc;
}

/* Pass 1 for one length: count every window without overlap, offer the
 * frequent ones as candidates.                                           */
static void count_length(const seq *s, size_t len, const kt_mine_options *o, slot *tab, size_t mask,
                         cand *c, size_t *nc, size_t keep, size_t stream)
{
    for (size_t i = 0; i + len <= s->n; i++) {
        uint64_t h = window_hash(s, i, len);
        slot *sl = find_slot(tab, mask, s, i, len, h);
        if (sl->len != len) *sl = (slot){ .hash = h, .first = (uint32_t)i, .len = (uint32_t)len };
        if (i < sl->last_end) continue;
        sl->count++;
        sl->last_end = (uint32_t)(i + len);
        sl->gap_sum += s->gap_prefix[i + len - 1] - s->gap_prefix[i];
    }
    for (size_t k = 0; k <= mask; k++) {
        if (tab[k].len != len || (size_t)tab[k].count < o->min_count) continue;
        cand cand_new = { .stream = stream, .len = len, .first = tab[k].first, .count = tab[k].count,
                          .gap_sum = tab[k].gap_sum };
        offer(c, nc, keep, &cand_new);
    }
}

/* Pass 2: the gaps inside each candidate's occurrences (same greedy,
 * non-overlapping occurrences as pass 1) and their kernels' time, then
 * the median and saving.                                                */
static bool collect_gaps(const seq *s, cand *c, size_t nc)
{
    for (size_t k = 0; k < nc; k++) {
        size_t want = (size_t)c[k].count * (c[k].len - 1);
        c[k].gaps = malloc((want < MEDIAN_SAMPLE ? (want ? want : 1) : MEDIAN_SAMPLE) * sizeof *c[k].gaps);
        if (!c[k].gaps) {
            while (k-- > 0) free(c[k].gaps);
            return false;
        }
        c[k].ngaps = 0;
        c[k].last_end = 0;
        c[k].kernel_ns = 0;
    }
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < nc; k++) {
            cand *x = &c[k];
            if (i < x->last_end || i + x->len > s->n || s->name[i] != s->name[x->first] ||
                !same_window(s, x->first, i, x->len))
                continue;
            x->last_end = (uint32_t)(i + x->len);
            for (size_t j = i; j < i + x->len; j++)
                if (s->dur[s->ev[j]] > 0) x->kernel_ns += (double)s->dur[s->ev[j]];
            for (size_t j = i; j + 1 < i + x->len && x->ngaps < MEDIAN_SAMPLE; j++)
                x->gaps[x->ngaps++] = (double)s->gap[j];
        }
    for (size_t k = 0; k < nc; k++) {
        kt_describe d = kt_describe_values(c[k].gaps, c[k].ngaps);
        c[k].median_gap_ns = c[k].ngaps ? d.q50 : 0;
        c[k].saving_ns = (double)c[k].count * (double)(c[k].len - 1) * c[k].median_gap_ns;
        free(c[k].gaps);
        c[k].gaps = NULL;
    }
    return true;
}

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n) p *= 2;
    return p;
}

/* Candidates of one stream, appended to all[*nall]. */
static kt_status mine_stream(const kt_rank *r, size_t stream, const kt_mine_options *o, cand *all, size_t *nall)
{
    seq s = { 0 };
    size_t keep = PRESELECT * (o->top ? o->top : 1), nc = 0;
    cand *c = calloc(keep, sizeof *c);
    bool ok = c && seq_build(r, &r->idx->streams[stream], &s);
    size_t mask = pow2_at_least(2 * (s.n + 1)) - 1;
    slot *tab = ok ? calloc(mask + 1, sizeof *tab) : NULL;
    ok = ok && tab;
    for (size_t len = 2; ok && len <= o->max_len && len <= s.n; len++)
        count_length(&s, len, o, tab, mask, c, &nc, keep, stream);
    free(tab);
    /* pass 2 scans once per candidate at each position: only those kept */
    ok = ok && collect_gaps(&s, c, nc);
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
    for (size_t i = 0; i < gs->n && k < c->first + c->len; i++) {
        uint32_t ev = gs->ev[i];
        if (r->ev.kind[ev] != KT_K_KERNEL) continue;
        if (k++ < c->first) continue;
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
    kt_mine_options o = opt ? *opt : kt_mine_defaults();
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
