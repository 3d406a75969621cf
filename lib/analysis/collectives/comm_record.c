/*
 * comm_record.c — the per-rank map: communication kernels → kt_comm_rec.
 *
 * Newer PyTorch copies the collective's metadata (Collective name, sizes,
 * dtype, process group, Seq) onto the NCCL kernel; older traces have it only
 * on the record_param_comms CPU op that launched the kernel, and the oldest
 * only in the kernel name.  The record says which of the three it used, so
 * reports can tell a measured size from a missing one.
 */
#include "analysis/collectives/comm_record.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */
static const char *const kind_names[KT_COLL__COUNT] = {
    "unknown", "allreduce", "allgather", "reducescatter", "alltoall", "alltoallv", "broadcast",
    "reduce", "send", "recv", "sendrecv", "barrier", "gather", "scatter",
};

const char *kt_coll_kind_name(kt_coll_kind k)
{
    return k < KT_COLL__COUNT ? kind_names[k] : kind_names[0];
}

bool kt_coll_implicit_sync(kt_coll_kind k)
{
    return k == KT_COLL_ALLREDUCE || k == KT_COLL_ALLGATHER || k == KT_COLL_REDUCESCATTER ||
           k == KT_COLL_ALLTOALL;
}

/* Lower-case letters only ("_reduce_scatter_base" → "reducescatterbase"). */
static void squeeze(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++)
        if (isalpha((unsigned char)*s)) buf[k++] = (char)tolower((unsigned char)*s);
    buf[k] = 0;
}

/* Prefix table shared by both name forms: the longest prefix first. */
static kt_coll_kind kind_of_squeezed(const char *s)
{
    static const struct { const char *prefix; kt_coll_kind kind; } table[] = {
        { "alltoallv", KT_COLL_ALLTOALLV }, { "alltoall", KT_COLL_ALLTOALL },
        { "allreduce", KT_COLL_ALLREDUCE }, { "allgather", KT_COLL_ALLGATHER },
        { "reducescatter", KT_COLL_REDUCESCATTER }, { "broadcast", KT_COLL_BROADCAST },
        { "sendrecv", KT_COLL_SENDRECV }, { "send", KT_COLL_SEND }, { "recv", KT_COLL_RECV },
        { "reduce", KT_COLL_REDUCE }, { "barrier", KT_COLL_BARRIER }, { "gather", KT_COLL_GATHER },
        { "scatter", KT_COLL_SCATTER },
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (kt_starts_with(s, table[i].prefix)) return table[i].kind;
    return KT_COLL_UNKNOWN;
}

kt_coll_kind kt_coll_kind_from_arg(const char *name)
{
    char buf[64];
    squeeze(name, buf, sizeof buf);
    return kind_of_squeezed(buf);
}

/* ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_AllGather_RING_LL,
 * ncclDevKernel_SendRecv, rccl's ncclKernel_...: the word after the first
 * '_'.  ncclDevKernel_Generic says nothing.                               */
kt_coll_kind kt_coll_kind_from_kernel(const char *name)
{
    const char *u = strchr(name, '_');
    if (!u) return KT_COLL_UNKNOWN;
    char word[32];
    size_t k = 0;
    for (u++; *u && *u != '_' && *u != '(' && k + 1 < sizeof word; u++) word[k++] = *u;
    word[k] = 0;
    return kt_coll_kind_from_arg(word);
}

/* ---- metadata ------------------------------------------------------------- */

/* The event carrying the collective's metadata: the kernel itself, else the
 * nearest CPU op above its launching call that has a "Collective name"
 * (record_param_comms), or KT_NONE.                                        */
static uint32_t metadata_event(const kt_rank *r, uint32_t kernel, bool have_tree, kt_meta_source *src)
{
    *src = KT_META_KERNEL;
    if (kt_event_arg(r, kernel, KT_ARG_COLLECTIVE_NAME)) return kernel;
    *src = KT_META_NAME_ONLY;
    uint32_t call = kt_gpu_launcher(r, kernel);
    if (!have_tree || call == KT_NONE) return KT_NONE;
    for (uint32_t p = r->idx->parent[call], depth = 0; p != KT_NONE && depth < 16; p = r->idx->parent[p], depth++)
        if (kt_event_arg(r, p, KT_ARG_COLLECTIVE_NAME)) {
            *src = KT_META_CPU_OP;
            return p;
        }
    return KT_NONE;
}

static uint32_t str_arg(const kt_rank *r, uint32_t ev, uint32_t key)
{
    return ev == KT_NONE ? KT_NONE : kt_event_arg_str(r, ev, key);
}

static int64_t int_arg(const kt_rank *r, uint32_t ev, uint32_t key)
{
    return ev == KT_NONE ? -1 : kt_event_arg_int(r, ev, key, -1);
}

static void fill_record(const kt_trace *t, const kt_rank *r, uint32_t ev, bool have_tree, kt_comm_rec *c)
{
    kt_meta_source src;
    uint32_t m = metadata_event(r, ev, have_tree, &src);
    *c = (kt_comm_rec){
        .ts = r->ev.ts[ev], .dur = r->ev.dur[ev] > 0 ? r->ev.dur[ev] : 0, .ev = ev,
        .stream = kt_ev_stream(&r->ev, ev), .meta = (uint8_t)src,
        .seq = int_arg(r, m, KT_ARG_SEQ), .in_nelems = int_arg(r, m, KT_ARG_IN_MSG_NELEMS),
        .out_nelems = int_arg(r, m, KT_ARG_OUT_MSG_NELEMS), .group_size = (int32_t)int_arg(r, m, KT_ARG_GROUP_SIZE),
        .pg = str_arg(r, m, KT_ARG_PG_NAME), .pg_desc = str_arg(r, m, KT_ARG_PG_DESC),
        .pg_ranks = str_arg(r, m, KT_ARG_PG_RANKS), .dtype = str_arg(r, m, KT_ARG_DTYPE),
        .coll_name = str_arg(r, m, KT_ARG_COLLECTIVE_NAME), .in_split = str_arg(r, m, KT_ARG_IN_SPLIT_SIZE),
    };
    /* a kernel with metadata but no Seq: the record_param_comms op may have it */
    if (src == KT_META_KERNEL && c->seq < 0 && have_tree) {
        uint32_t call = kt_gpu_launcher(r, ev);
        for (uint32_t p = call == KT_NONE ? KT_NONE : r->idx->parent[call]; p != KT_NONE; p = r->idx->parent[p])
            if (kt_event_arg(r, p, KT_ARG_SEQ)) {
                c->seq = kt_event_arg_int(r, p, KT_ARG_SEQ, -1);
                break;
            }
    }
    kt_coll_kind k = KT_COLL_UNKNOWN;
    if (c->coll_name != KT_NONE) k = kt_coll_kind_from_arg(kt_strtab_get(t->strs, c->coll_name));
    if (k == KT_COLL_UNKNOWN) k = kt_coll_kind_from_kernel(kt_strtab_get(t->strs, r->ev.name[ev]));
    /* all_to_all with per-rank splits is all-to-all-v */
    if (k == KT_COLL_ALLTOALL && c->in_split != KT_NONE && strcmp(kt_strtab_get(t->strs, c->in_split), "[]"))
        k = KT_COLL_ALLTOALLV;
    c->kind = (uint8_t)k;
}

/* ---- the map -------------------------------------------------------------- */

static int rec_cmp(const void *a, const void *b)
{
    const kt_comm_rec *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Per name id: 1 communication kernel, 2 not; filled on first sight. */
static bool is_comm(const kt_trace *t, uint32_t name, uint8_t *memo, size_t nmemo)
{
    if (name == KT_NONE) return false;
    if (name < nmemo && memo[name]) return memo[name] == 1;
    bool yes = kt_is_comm_kernel_name(kt_strtab_get(t->strs, name));
    if (name < nmemo) memo[name] = yes ? 1 : 2;
    return yes;
}

/* Does any record_param_comms op carry collective metadata? */
static bool cpu_ops_have_metadata(const kt_trace *t, const kt_rank *r)
{
    uint32_t rpc = kt_strtab_find(t->strs, "record_param_comms", 18);
    if (rpc == KT_NONE) return false;
    for (size_t i = 0; i < r->ev.n; i++)
        if (r->ev.name[i] == rpc && kt_event_arg(r, (uint32_t)i, KT_ARG_COLLECTIVE_NAME)) return true;
    return false;
}

static kt_status collect(const kt_trace *t, const kt_rank *r, kt_comm_recs *out, bool have_tree)
{
    size_t nmemo = kt_strtab_count(t->strs), cap = 0;
    uint8_t *memo = calloc(nmemo ? nmemo : 1, 1);
    if (!memo) return KT_ENOMEM;
    const kt_index *idx = r->idx;
    for (size_t s = 0; s < idx->nstreams; s++)
        for (size_t i = 0; i < idx->streams[s].n; i++) {
            uint32_t ev = idx->streams[s].ev[i];
            if (r->ev.kind[ev] != KT_K_KERNEL || !is_comm(t, r->ev.name[ev], memo, nmemo)) continue;
            if (out->n == cap) {
                cap = cap ? 2 * cap : 256;
                kt_comm_rec *nr = realloc(out->r, cap * sizeof *nr);
                if (!nr) {
                    free(memo);
                    return KT_ENOMEM;
                }
                out->r = nr;
            }
            fill_record(t, r, ev, have_tree, &out->r[out->n]);
            out->from_cpu_op += out->r[out->n].meta == KT_META_CPU_OP;
            out->name_only += out->r[out->n].meta == KT_META_NAME_ONLY;
            out->n++;
        }
    free(memo);
    return KT_OK;
}

/* pos: index among the rank's records of the same process group (records
 * without a group count per stream).                                       */
static kt_status number_positions(kt_comm_recs *c)
{
    typedef struct { uint32_t pg; int32_t stream; uint32_t next; } slot;
    slot *seen = NULL;
    size_t nseen = 0;
    for (size_t i = 0; i < c->n; i++) {
        kt_comm_rec *x = &c->r[i];
        int32_t st = x->pg == KT_NONE ? x->stream : 0;
        size_t k = 0;
        while (k < nseen && !(seen[k].pg == x->pg && seen[k].stream == st)) k++;
        if (k == nseen) {
            slot *ns = realloc(seen, (nseen + 1) * sizeof *ns);
            if (!ns) {
                free(seen);
                return KT_ENOMEM;
            }
            seen = ns;
            seen[nseen++] = (slot){ x->pg, st, 0 };
        }
        x->pos = seen[k].next++;
    }
    free(seen);
    return KT_OK;
}

/* Records the kernel args left incomplete (no metadata, or no Seq). */
static bool some_incomplete(const kt_comm_recs *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].meta != KT_META_KERNEL || c->r[i].seq < 0) return true;
    return false;
}

/* Fill them again from the record_param_comms ops, if the rank has any with
 * metadata: only then is the call tree worth building.                    */
static void complete_from_cpu_ops(const kt_trace *t, const kt_rank *r, kt_comm_recs *c)
{
    if (!some_incomplete(c) || !cpu_ops_have_metadata(t, r) || kt_index_call_tree(r) != KT_OK) return;
    c->name_only = 0;
    for (size_t i = 0; i < c->n; i++) {
        kt_comm_rec *x = &c->r[i];
        if (x->meta == KT_META_KERNEL && x->seq >= 0) continue;
        fill_record(t, r, x->ev, true, x);
        c->from_cpu_op += x->meta == KT_META_CPU_OP;
    }
    for (size_t i = 0; i < c->n; i++) c->name_only += c->r[i].meta == KT_META_NAME_ONLY;
}

kt_status kt_comm_map(const kt_trace *t, const kt_rank *r, kt_comm_recs *out)
{
    *out = (kt_comm_recs){ .rank = r->rank, .src = r };
    if (!r->idx) return KT_EANALYSIS;
    kt_status s = collect(t, r, out, false);
    if (s == KT_OK) complete_from_cpu_ops(t, r, out);
    if (s == KT_OK && out->n) qsort(out->r, out->n, sizeof *out->r, rec_cmp);
    if (s == KT_OK) s = number_positions(out);
    if (s != KT_OK) kt_comm_recs_free(out);
    return s;
}

void kt_comm_recs_free(kt_comm_recs *c)
{
    free(c->r);
    c->r = NULL;
    c->n = 0;
}
