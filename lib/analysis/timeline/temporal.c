/*
 * temporal.c — kt_temporal: how a GPU's time splits into idle, computation
 * and everything else (HTA A4.1), optionally per device and ProfilerStep,
 * and TraceLens's GPU timeline table (tracelens-and-peers §1.3).
 *
 * Both are lengths of unions of GPU event intervals (gpu_busy.h); they
 * differ in which events count and how kernels are bucketed.
 */
#include "analysis/common/gpu_busy.h"
#include "analysis/common/kernel_type.h"
#include "analysis/common/stats.h"
#include "analysis/common/type_differences.h"
#include "analysis/timeline/temporal_overlap.h"
#include "model/i64map.h"
#include "model/index.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

/* ---- HTA temporal breakdown ---------------------------------------------- */

kt_table *kt_temporal_table_new(const kt_temporal_options *o)
{
    kt_table *tb = kt_table_new("temporal_breakdown");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    if (o->by_device) kt_table_add_col(tb, "device", KT_COL_INT, 0);
    if (o->by_step) kt_table_add_col(tb, "step", KT_COL_INT, 0);
    static const char *const us[] = { "idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                      "kernel_time(us)" };
    static const char *const pctg[] = { "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg" };
    for (size_t i = 0; i < 4; i++) kt_table_add_col(tb, us[i], KT_COL_FLOAT, -1);
    for (size_t i = 0; i < 3; i++) kt_table_add_col(tb, pctg[i], KT_COL_FLOAT, 2);
    return tb;
}

static void temporal_row(kt_table *tb, const kt_temporal_options *o, bool compat, int rank,
                         const kt_busy_group *g)
{
    int64_t kernel = kt_intervals_span(g->iv[0], g->n[0]);
    int64_t idle = kernel - kt_intervals_length(g->iv[0], g->n[0]);
    int64_t compute = kt_intervals_length(g->iv[1 + KT_TYPE_COMPUTATION], g->n[1 + KT_TYPE_COMPUTATION]);
    int64_t parts[4] = { idle, compute, kernel - compute - idle, kernel };
    size_t c = 0;
    kt_table_add_row(tb);
    kt_table_set_int(tb, c++, rank);
    if (o->by_device) kt_table_set_int(tb, c++, g->device);
    if (o->by_step) kt_table_set_int(tb, c++, g->step);
    for (size_t i = 0; i < 4; i++) kt_table_set_float(tb, c++, (double)parts[i] / 1e3);
    for (size_t i = 0; i < 3; i++) {
        double p = kt_pct((double)parts[i], (double)kernel);
        kt_table_set_float(tb, c++, compat ? kt_np_round(p, 2) : p);
    }
}

typedef struct temporal_ctx {
    kt_table *tb;
    const kt_temporal_options *o;
    bool compat, with_rank;
} temporal_ctx;

void kt_temporal_add_rows(kt_table *tb, const kt_temporal_options *o, bool compat, int rank, const kt_busy *b)
{
    for (size_t g = 0; g < b->ng; g++) temporal_row(tb, o, compat, rank, &b->g[g]);
}

static kt_status temporal_rows(void *ctx, const kt_rank *r, const kt_busy *b)
{
    temporal_ctx *c = ctx;
    kt_temporal_add_rows(c->tb, c->o, c->compat, r->rank, b);
    return KT_OK;
}

static kt_status hta_temporal(const kt_trace *t, const kt_rank_sel *sel, const kt_temporal_options *o,
                              kt_table *tb)
{
    kt_type_cache *types = kt_type_cache_new(t->strs, t->hta_compat);
    if (!types) return KT_ENOMEM;
    kt_busy_query q = { .hta_events = t->hta_compat, .by_device = o->by_device, .by_step = o->by_step,
                        .classify = kt_busy_kernel_type, .ctx = types };
    temporal_ctx c = { tb, o, t->hta_compat, false };
    kt_status s = kt_busy_each_rank(t, sel, &q, temporal_rows, &c);
    kt_type_cache_free(types);
    return s;
}

/* ---- TraceLens GPU timeline ---------------------------------------------- */

enum { TL_COMP = 1, TL_COMM, TL_MEMCPY };


/* ^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|
 *   __amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$                     */
static bool rocclr_copy(const char *n)
{
    static const char *const copies[] = {
        "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE",
        "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBufferAligned", "__amd_rocclr_copyBufferRect",
        "__amd_rocclr_copyBufferRectAligned",
    };
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
        size_t l = strlen(copies[i]);
        if (kt_starts_with(n, copies[i]) && (!n[l] || !strcmp(n + l, ".kd"))) return true;
    }
    return false;
}

/* Buckets of GPUEventAnalyser.get_gpu_event_lists: gpu_memcpy → memcpy;
 * kernels and memsets: legacy ROCm copies → memcpy, nccl/rccl (any case)
 * and vLLM's cross_device_reduce → communication, anything else (memsets
 * and ROCm fills included) → computation.                                  */
static int tracelens_bucket(const char *name, uint8_t kind)
{
    if (kind == KT_K_MEMCPY) return TL_MEMCPY;
    if (rocclr_copy(name)) return TL_MEMCPY;
    if (kt_is_tracelens_comm_name(name)) return TL_COMM;
    return TL_COMP;
}

typedef struct tl_ctx {
    const kt_strtab *strs;
    uint8_t *bucket; /* memo by name id and kind class; 0 = not yet */
    size_t n;
    const kt_rank *rank; /* whose ac2g flow ids are in flows */
    kt_i64map flows;
    kt_status status;
} tl_ctx;

/* The ids of the rank's ac2g flows that have both a start and an end, in
 * any file order (Kineto may write the end first; TraceLens keys both by
 * id).  Value bits: 1 start seen, 2 end seen.                              */
static bool load_flows(tl_ctx *c, const kt_rank *r)
{
    kt_i64map_free(&c->flows);
    c->rank = r;
    uint32_t ac2g = kt_strtab_find(c->strs, "ac2g", 4);
    size_t n = 0;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) n += r->ev.cat[ev] == ac2g;
    if (!kt_i64map_init(&c->flows, n + 1)) return false;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint8_t k = r->ev.kind[ev];
        if (r->ev.cat[ev] == ac2g && (k == KT_K_FLOW_START || k == KT_K_FLOW_END))
            *kt_i64map_slot(&c->flows, r->ev.corr[ev], 0) |= k == KT_K_FLOW_START ? 1 : 2;
    }
    return true;
}

/* TraceLens attaches a GPU event to the tree through the ac2g flow of its
 * launch (graph launches: every event with the launch's correlation);
 * unattached events are left out of its timeline.                          */
static bool tracelens_linked(tl_ctx *c, const kt_rank *r, uint32_t ev)
{
    uint32_t launch = kt_gpu_launcher(r, ev);
    if (launch == KT_NONE) return false;
    if (kt_is_graph_launch(r, c->strs, launch)) return true;
    return kt_i64map_get(&c->flows, r->ev.corr[ev], 0) == 3;
}

static int tracelens_class(void *ctx, const kt_rank *r, uint32_t ev)
{
    tl_ctx *c = ctx;
    if (c->rank != r && !load_flows(c, r)) c->status = KT_ENOMEM;
    if (c->status != KT_OK || !tracelens_linked(c, r, ev)) return -1;
    uint32_t name = r->ev.name[ev];
    uint8_t kind = r->ev.kind[ev];
    if (name >= c->n) return tracelens_bucket("", kind);
    uint8_t *memo = &c->bucket[2 * (size_t)name + (kind == KT_K_MEMCPY)];
    if (!*memo) *memo = (uint8_t)tracelens_bucket(kt_strtab_get(c->strs, name), kind);
    return *memo;
}

static kt_table *gpu_timeline_table(bool with_rank)
{
    kt_table *tb = kt_table_new("gpu_timeline");
    if (!tb) return NULL;
    if (with_rank) kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "type", KT_COL_STR, 0);
    kt_table_add_col(tb, "time ms", KT_COL_FLOAT, -1);
    kt_table_add_col(tb, "percent", KT_COL_FLOAT, -1);
    return tb;
}

static kt_status gpu_timeline_rows(void *ctx, const kt_rank *r, const kt_busy *b)
{
    kt_table *tb = ((temporal_ctx *)ctx)->tb;
    bool with_rank = ((temporal_ctx *)ctx)->with_rank;
    const kt_busy_group *g = &b->g[0];
    const kt_interval *comp = g->iv[TL_COMP], *comm = g->iv[TL_COMM], *mcp = g->iv[TL_MEMCPY];
    size_t ncomp = g->n[TL_COMP], ncomm = g->n[TL_COMM], nmcp = g->n[TL_MEMCPY];
    kt_interval *comp_comm = malloc((ncomp + ncomm + 1) * sizeof *comp_comm);
    if (!comp_comm) return KT_ENOMEM;
    size_t ncc = kt_intervals_union(comp, ncomp, comm, ncomm, comp_comm);
    int64_t total = kt_intervals_span(g->iv[0], g->n[0]), busy = kt_intervals_length(g->iv[0], g->n[0]);
    int64_t comm_total = kt_intervals_length(comm, ncomm), mcp_total = kt_intervals_length(mcp, nmcp);
    int64_t v[] = {
        kt_intervals_length(comp, ncomp),
        comm_total - kt_intervals_overlap(comm, ncomm, comp, ncomp),
        mcp_total - kt_intervals_overlap(mcp, nmcp, comp_comm, ncc),
        busy, total - busy, total, comm_total, mcp_total,
    };
    free(comp_comm);
    static const char *const names[] = { "computation_time", "exposed_comm_time", "exposed_memcpy_time",
                                         "busy_time", "idle_time", "total_time", "total_comm_time",
                                         "total_memcpy_time" };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t c = 0;
        kt_table_add_row(tb);
        if (with_rank) kt_table_set_int(tb, c++, r->rank);
        kt_table_set_str(tb, c++, names[i]);
        kt_table_set_float(tb, c++, (double)v[i] / 1e6);
        kt_table_set_float(tb, c++, kt_pct((double)v[i], (double)total));
    }
    return KT_OK;
}

static size_t count_selected(const kt_trace *t, const kt_rank_sel *sel)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nranks; i++) n += kt_rank_selected(sel, t->ranks[i]->rank);
    return n;
}

static kt_status tracelens_timeline(const kt_trace *t, const kt_rank_sel *sel, kt_table **tbp)
{
    bool with_rank = count_selected(t, sel) > 1;
    if (!(*tbp = gpu_timeline_table(with_rank))) return KT_ENOMEM;
    tl_ctx ctx = { .strs = t->strs, .n = kt_strtab_count(t->strs), .status = KT_OK };
    if (!(ctx.bucket = calloc(2 * ctx.n + 1, 1))) return KT_ENOMEM;
    kt_busy_query q = { .classify = tracelens_class, .ctx = &ctx };
    temporal_ctx c = { *tbp, NULL, false, with_rank };
    kt_status s = kt_busy_each_rank(t, sel, &q, gpu_timeline_rows, &c);
    if (s == KT_OK) s = ctx.status;
    free(ctx.bucket);
    kt_i64map_free(&ctx.flows);
    return s;
}

void kt_temporal_options_init(kt_temporal_options *o, size_t size)
{
    const kt_temporal_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_temporal(const kt_trace *t, const kt_rank_sel *sel, const kt_temporal_options *opt,
                      kt_tables **out)
{
    kt_temporal_options given = kt_temporal_defaults();
    const kt_temporal_options *o = &given;
    *out = NULL;
    if (!kt_options_take(&given, sizeof given, opt)) return KT_EUSAGE;
    kt_table *tb = NULL;
    kt_status s;
    if (o->tracelens) {
        s = tracelens_timeline(t, sel, &tb);
    } else {
        s = (tb = kt_temporal_table_new(o)) ? hta_temporal(t, sel, o, tb) : KT_ENOMEM;
    }
    if (s == KT_OK)
        s = kt_note_comm_differences(tb, t, sel, o->tracelens ? KT_REF_TRACELENS : KT_REF_HTA,
                                     o->tracelens || t->hta_compat);
    if (s != KT_OK) {
        kt_table_free(tb);
        return s;
    }
    return kt_tables_from(&tb, 1, out);
}
