/*
 * comm_match.c — matching every rank's communication records into
 * collective instances (see comm_match.h for the rules).
 *
 * One sort does it: every record becomes an entry keyed by (group, stream,
 * seq-or-position, rank), equal keys are one instance.  The cost is a sort of
 * 24-byte entries, so it grows with the number of collectives, never with
 * the number of events.
 */
#include "analysis/collectives/comm_match.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    uint32_t pg;
    int32_t stream;
    int64_t key;
    uint32_t rank_i, rec;
} entry;

const char *kt_match_mode_name(kt_match_mode m)
{
    static const char *const n[] = { "seq", "position", "stream" };
    return n[m];
}

const char *kt_inst_status_name(kt_inst_status s)
{
    static const char *const n[] = { "complete", "missing ranks", "duplicate", "metadata differs" };
    return n[s];
}

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->rank_i != y->rank_i) return x->rank_i < y->rank_i ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* A process group matches by seq only if all its records (on every rank)
 * carry one.  Group ids are strtab ids: a byte per id says "some record of
 * this group has no seq".                                                  */
static kt_status groups_without_seq(const kt_trace *t, const kt_comm_recs *ranks, size_t nranks, uint8_t **out)
{
    size_t n = kt_strtab_count(t->strs);
    uint8_t *noseq = calloc(n ? n : 1, 1);
    if (!noseq) return KT_ENOMEM;
    for (size_t i = 0; i < nranks; i++)
        for (size_t k = 0; k < ranks[i].n; k++) {
            const kt_comm_rec *c = &ranks[i].r[k];
            if (c->pg != KT_NONE && c->pg < n && c->seq < 0) noseq[c->pg] = 1;
        }
    *out = noseq;
    return KT_OK;
}

static entry entry_of(const kt_comm_rec *c, const uint8_t *noseq, uint32_t rank_i, uint32_t rec)
{
    entry e = { .pg = c->pg, .rank_i = rank_i, .rec = rec };
    if (c->pg == KT_NONE) {
        e.stream = c->stream;
        e.key = c->pos;
    } else {
        e.key = noseq[c->pg] ? c->pos : c->seq;
    }
    return e;
}

static kt_status sorted_entries(const kt_trace *t, const kt_comm_recs *ranks, size_t nranks, bool position_only,
                                entry **out, size_t *nout, uint8_t **noseq)
{
    size_t n = 0;
    for (size_t i = 0; i < nranks; i++) n += ranks[i].n;
    entry *e = malloc((n ? n : 1) * sizeof *e);
    kt_status s = e ? groups_without_seq(t, ranks, nranks, noseq) : KT_ENOMEM;
    if (s != KT_OK) {
        free(e);
        return s;
    }
    if (position_only) memset(*noseq, 1, kt_strtab_count(t->strs) ? kt_strtab_count(t->strs) : 1);
    size_t k = 0;
    for (size_t i = 0; i < nranks; i++)
        for (size_t j = 0; j < ranks[i].n; j++) e[k++] = entry_of(&ranks[i].r[j], *noseq, (uint32_t)i, (uint32_t)j);
    qsort(e, n, sizeof *e, entry_cmp);
    *out = e;
    *nout = n;
    return KT_OK;
}

/* Loaded ranks named in a "[0, 1, 2]" list, or -1 when there is no list. */
static int ranks_in_list(const char *list, const kt_comm_recs *ranks, size_t nranks)
{
    if (!list || list[0] != '[') return -1;
    int count = 0, items = 0;
    for (const char *p = list + 1; *p && *p != ']';) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) break;
        items++;
        for (size_t i = 0; i < nranks; i++) count += ranks[i].rank == v;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return items ? count : -1;
}

/* All-to-all-v ranks send and receive different amounts by design. */
static bool same_metadata(const kt_comm_rec *a, const kt_comm_rec *b)
{
    if (a->kind != b->kind || a->dtype != b->dtype) return false;
    return a->kind == KT_COLL_ALLTOALLV || (a->in_nelems == b->in_nelems && a->out_nelems == b->out_nelems);
}

static uint8_t instance_status(const kt_comm_match *m, const kt_coll_inst *in)
{
    const kt_coll_member *x = &m->members[in->first];
    for (uint32_t i = 1; i < in->n; i++)
        if (x[i].rank_i == x[i - 1].rank_i) return KT_INST_DUPLICATE;
    const kt_comm_rec *c0 = kt_member_rec(m, &x[0]);
    /* send and recv are the two halves of one transfer */
    bool p2p = c0->kind == KT_COLL_SEND || c0->kind == KT_COLL_RECV;
    for (uint32_t i = 1; i < in->n; i++) {
        const kt_comm_rec *c = kt_member_rec(m, &x[i]);
        if (p2p ? (c->kind != KT_COLL_SEND && c->kind != KT_COLL_RECV) || c->in_nelems != c0->in_nelems
                : !same_metadata(c0, c))
            return KT_INST_MISMATCH;
    }
    return in->n < in->expected ? KT_INST_MISSING : KT_INST_COMPLETE;
}

/* Expected ranks of a group without a rank list: the loaded ranks that have
 * any record of it (counted over its instances).                           */
static void default_expected(kt_comm_match *m, size_t from, size_t to)
{
    uint8_t *seen = calloc(m->nranks ? m->nranks : 1, 1);
    int count = 0;
    for (size_t i = from; seen && i < to; i++)
        for (uint32_t k = 0; k < m->inst[i].n; k++) {
            uint32_t r = m->members[m->inst[i].first + k].rank_i;
            count += !seen[r];
            seen[r] = 1;
        }
    for (size_t i = from; i < to; i++)
        if (m->inst[i].expected == 0) m->inst[i].expected = (uint32_t)(seen ? count : (int)m->nranks);
    free(seen);
}

static kt_status group_instances(const kt_trace *t, kt_comm_match *m, const entry *e, size_t n,
                                 const uint8_t *noseq)
{
    m->inst = malloc((n ? n : 1) * sizeof *m->inst);
    m->members = malloc((n ? n : 1) * sizeof *m->members);
    if (!m->inst || !m->members) return KT_ENOMEM;
    size_t group_start = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && e[j].pg == e[i].pg && e[j].stream == e[i].stream && e[j].key == e[i].key) j++;
        kt_coll_inst *in = &m->inst[m->ninst];
        *in = (kt_coll_inst){ .first = (uint32_t)i, .n = (uint32_t)(j - i), .pg = e[i].pg,
                              .stream = e[i].stream, .key = e[i].key };
        in->mode = e[i].pg == KT_NONE ? KT_MATCH_STREAM : noseq[e[i].pg] ? KT_MATCH_POSITION : KT_MATCH_SEQ;
        for (size_t k = i; k < j; k++) m->members[k] = (kt_coll_member){ e[k].rank_i, e[k].rec };
        const kt_comm_rec *c0 = kt_member_rec(m, &m->members[i]);
        int listed = ranks_in_list(c0->pg_ranks == KT_NONE ? NULL : kt_strtab_get(t->strs, c0->pg_ranks),
                                   m->ranks, m->nranks);
        in->expected = (uint32_t)(listed > 0 ? listed : 0);
        m->ninst++;
        bool group_ends = j == n || e[j].pg != e[i].pg || e[j].stream != e[i].stream;
        if (group_ends) {
            default_expected(m, group_start, m->ninst);
            group_start = m->ninst;
        }
        i = j;
    }
    m->nmembers = n;
    for (size_t i = 0; i < m->ninst; i++) m->inst[i].status = instance_status(m, &m->inst[i]);
    return KT_OK;
}

static int64_t inst_start(const kt_comm_match *m, const kt_coll_inst *in)
{
    int64_t s = INT64_MAX;
    for (uint32_t k = 0; k < in->n; k++) {
        int64_t ts = kt_member_rec(m, &m->members[in->first + k])->ts;
        s = ts < s ? ts : s;
    }
    return s;
}

typedef struct order_key {
    int64_t start;
    size_t i;
} order_key;

static int order_cmp(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Report order: by earliest start (rank clocks as written), ties by key. */
static kt_status order_instances(kt_comm_match *m)
{
    order_key *o = malloc((m->ninst ? m->ninst : 1) * sizeof *o);
    kt_coll_inst *sorted = malloc((m->ninst ? m->ninst : 1) * sizeof *sorted);
    if (!o || !sorted) {
        free(o);
        free(sorted);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < m->ninst; i++) o[i] = (order_key){ .start = inst_start(m, &m->inst[i]), .i = i };
    qsort(o, m->ninst, sizeof *o, order_cmp);
    for (size_t i = 0; i < m->ninst; i++) sorted[i] = m->inst[o[i].i];
    free(o);
    free(m->inst);
    m->inst = sorted;
    return KT_OK;
}

kt_status kt_comm_match_build(const kt_trace *t, const kt_comm_recs *ranks, size_t nranks, bool position_only,
                              kt_comm_match *out)
{
    *out = (kt_comm_match){ .ranks = ranks, .nranks = nranks };
    entry *e = NULL;
    uint8_t *noseq = NULL;
    size_t n = 0;
    kt_status s = sorted_entries(t, ranks, nranks, position_only, &e, &n, &noseq);
    if (s == KT_OK) s = group_instances(t, out, e, n, noseq);
    if (s == KT_OK) s = order_instances(out);
    free(e);
    free(noseq);
    if (s != KT_OK) kt_comm_match_free(out);
    return s;
}

void kt_comm_match_free(kt_comm_match *m)
{
    free(m->members);
    free(m->inst);
    m->members = NULL;
    m->inst = NULL;
    m->ninst = m->nmembers = 0;
}
