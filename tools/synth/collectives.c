/*
 * collectives.c — --collectives across ranks: the schedule of collectives and their
 * process groups, the lock-step run that resolves when each member leaves, and their
 * ground truth.
 */
#include "synth.h"

const CollKindInfo COLL_KINDS[] = {
    [C_BROADCAST] = {"broadcast", "c10d::broadcast_", "nccl:broadcast", "Float", K_BROADCAST, 4, PG_WORLD},
    [C_ALLGATHER] = {"_allgather_base", "c10d::_allgather_base_", "nccl:_all_gather_base", "BFloat16",
                     K_ALLGATHER, 2, PG_WORLD},
    [C_ALLREDUCE] = {"allreduce", "c10d::allreduce_", "nccl:all_reduce", "Float", K_ALLREDUCE, 4, PG_WORLD},
    [C_REDUCESCATTER] = {"_reduce_scatter_base", "c10d::_reduce_scatter_base_", "nccl:_reduce_scatter_base",
                         "Float", K_REDUCESCATTER, 4, PG_HALF},
    [C_ALLTOALLV] = {"all_to_allv", "c10d::alltoall_base_", "nccl:all_to_all", "BFloat16", K_SENDRECV, 2, PG_WORLD},
    [C_SENDRECV] = {"send", "c10d::send", "nccl:send", "BFloat16", K_SENDRECV, 2, PG_PAIR},
};

/* Per step: broadcast, allgather, one allreduce per gradient bucket, reducescatter,
 * all-to-all-v, send/recv. */
static int coll_buckets(const Model *m)
{
    return (m->layers + 1) / 2;
}

static int coll_slots_per_step(const Model *m)
{
    return 5 + coll_buckets(m);
}

CollKind coll_kind_at(const Model *m, uint64_t slot)
{
    int j = (int)(slot % (uint64_t)coll_slots_per_step(m)), b = coll_buckets(m);
    return j == 0 ? C_BROADCAST : j == 1 ? C_ALLGATHER : j < 2 + b ? C_ALLREDUCE
         : j == 2 + b ? C_REDUCESCATTER : j == 3 + b ? C_ALLTOALLV : C_SENDRECV;
}

/* Group of a rank in a slot's process group (-1: not a member: the odd rank out of the
 * send/recv pairs) and the group's first rank and size. */
int coll_group(const Model *m, PgClass pg, int rank, int *first, int *size)
{
    int w = m->world_size;
    if (pg == PG_HALF && w >= 2) {
        int half = w / 2, gid = rank < half ? 0 : 1;
        *first = gid ? half : 0;
        *size = gid ? w - half : half;
        return gid;
    }
    if (pg == PG_PAIR) {
        if (rank / 2 * 2 + 1 >= w)
            return -1;
        *first = rank / 2 * 2;
        *size = 2;
        return rank / 2;
    }
    *first = 0;
    *size = w;
    return 0;
}

/* Process Group Name: "0" the world, "1"/"2" the halves, "3"... the pairs (PyTorch numbers
 * groups in creation order, the same on every rank). */
int coll_pg_number(PgClass pg, int gid)
{
    return pg == PG_WORLD ? 0 : pg == PG_HALF ? 1 + gid : 3 + gid;
}

/* Seq: the group's collectives so far, this one included (ProcessGroupNCCL's seq_). */
uint64_t coll_seq(const Model *m, uint64_t slot)
{
    uint64_t step = slot / (uint64_t)coll_slots_per_step(m);
    int j = (int)(slot % (uint64_t)coll_slots_per_step(m)), b = coll_buckets(m);
    CollKind k = coll_kind_at(m, slot);
    if (COLL_KINDS[k].pg != PG_WORLD)
        return step + 1;
    uint64_t per_step = 3 + (uint64_t)b; /* broadcast, allgather, buckets, all-to-all-v */
    uint64_t idx = k == C_ALLTOALLV ? per_step - 1 : (uint64_t)j;
    return step * per_step + idx + 1;
}

uint64_t coll_nelems(const Model *m, uint64_t slot)
{
    static const uint64_t BASE[] = {[C_BROADCAST] = 262144, [C_ALLGATHER] = 1048576, [C_ALLREDUCE] = 4194304,
                                    [C_REDUCESCATTER] = 2097152, [C_ALLTOALLV] = 65536, [C_SENDRECV] = 524288};
    CollKind k = coll_kind_at(m, slot);
    return BASE[k] + (mix(m->seed, slot + 1000) % 8) * (BASE[k] / 8);
}

/* All-to-all-v: elements rank `from` sends to rank `to`. */
uint64_t a2a_split(const Model *m, uint64_t slot, int from, int to)
{
    return coll_nelems(m, slot) * (1 + (uint64_t)(3 * from + to + (int)(slot % 5)) % 5);
}

static int64_t coll_latency(const Model *m, uint64_t slot)
{
    CollKind k = coll_kind_at(m, slot);
    uint64_t bytes = coll_nelems(m, slot) * (uint64_t)COLL_KINDS[k].dtype_bytes;
    int64_t ns = 15000 + (int64_t)(bytes / 80) + (int64_t)(mix(m->seed, slot + 7) % 20000);
    return ns - ns % m->quantum;
}

CollPlan *plan_new(int nranks)
{
    CollPlan *p = calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    p->nranks = nranks;
    return p;
}

static void plan_reserve(CollPlan *p, uint64_t slot)
{
    if (slot < p->nslots)
        return;
    size_t want = (size_t)slot + 1, cap = p->cap;
    while (cap < want)
        cap = cap ? 2 * cap : 1024;
    if (cap != p->cap) {
        int64_t *a = realloc(p->arrive, cap * (size_t)p->nranks * sizeof *a);
        int64_t *e = a ? realloc(p->end, cap * (size_t)p->nranks * sizeof *e) : NULL;
        if (!a || !e) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
        p->arrive = a;
        p->end = e;
        p->cap = cap;
    }
    for (size_t i = p->nslots * (size_t)p->nranks; i < want * (size_t)p->nranks; i++)
        p->arrive[i] = p->end[i] = INT64_MIN;
    p->nslots = want;
}

void plan_free(CollPlan *p)
{
    if (p) {
        free(p->arrive);
        free(p->end);
        free(p);
    }
}

/* One collective slot: record_param_comms + the NCCL annotation + the kernel on the NCCL
 * stream, which starts at the rank's arrival and ends with its group. */
void coll_slot(Gen *g)
{
    const Model *m = g->m;
    uint64_t slot = g->coll_n++;
    CollKind k = coll_kind_at(m, slot);
    const CollKindInfo *ki = &COLL_KINDS[k];
    int first, size;
    if (coll_group(m, ki->pg, g->rank, &first, &size) < 0)
        return;
    bool recv = k == C_SENDRECV && g->rank % 2 == 1;
    cpu_open(g, EV_CPU_OP, recv ? "c10d::recv_" : ki->op);
    Ev *c = cpu_open(g, EV_CPU_OP, "record_param_comms");
    c->style = ARGS_COMMS;
    c->aux = slot;
    cpu_open(g, EV_USER_ANN, recv ? "nccl:recv" : ki->annotation);
    cpu_busy(g, 3000, 12000);
    for (int s = 1; s <= side_streams(g); s++)
        stream_wait(g, 0, s);
    stream_wait(g, comm_stream(g), 0);
    int64_t gpu_last = g->gpu_last;
    Ev *kern = launch(g, ki->tpl, comm_stream(g));
    g->gpu_last = gpu_last; /* set below from the coordinated end */
    kern->aux = slot;
    int64_t lat = coll_latency(m, slot);
    int64_t arrive = kern->ts + g->straggle_ns, truth_arrive = arrive - g->clock_offset;
    int64_t end = INT64_MIN;
    if (g->plan) {
        plan_reserve(g->plan, slot);
        size_t at = (size_t)slot * (size_t)g->plan->nranks + (size_t)g->rank;
        if (g->plan->recording)
            g->plan->arrive[at] = truth_arrive;
        end = g->plan->end[at];
    }
    if (end < truth_arrive + lat)
        end = truth_arrive + lat;
    kern->ts = arrive;
    kern->dur = end + g->clock_offset - arrive;
    g->stream_free[comm_stream(g)] = kern->ts + kern->dur;
    if (kern->ts + kern->dur > g->gpu_last)
        g->gpu_last = kern->ts + kern->dur;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* ---- --collectives: lock-step resolution and truth ---------------------------------- */

/* Every member of a group leaves at the group's last arrival + the latency; returns
 * whether any end changed. */
static bool update_ends(CollPlan *plan, const Model *m, uint64_t slot0, int nslots, int64_t *scratch)
{
    bool changed = false;
    int n = plan->nranks;
    for (uint64_t slot = slot0; slot < slot0 + (uint64_t)nslots; slot++) {
        PgClass pg = COLL_KINDS[coll_kind_at(m, slot)].pg;
        int64_t lat = coll_latency(m, slot), *a = plan->arrive + slot * (uint64_t)n, *e = plan->end + slot * (uint64_t)n;
        int first, size;
        for (int r = 0; r < n; r++)
            scratch[r] = INT64_MIN;
        for (int r = 0; r < n; r++) {
            int gid = coll_group(m, pg, r, &first, &size);
            if (gid >= 0 && a[r] > scratch[gid])
                scratch[gid] = a[r];
        }
        for (int r = 0; r < n; r++) {
            int gid = coll_group(m, pg, r, &first, &size);
            int64_t end = gid >= 0 ? scratch[gid] + lat : INT64_MIN;
            changed |= e[r] != end;
            e[r] = end;
        }
    }
    return changed;
}

/* Runs every rank step by step, each step until the collectives' ends stop moving (an
 * end can only move later arrivals of the same step, so this takes at most one round per
 * collective of the step). */
void resolve_collectives(RankPlan *plans, int nranks, uint64_t steps, CollPlan *plan)
{
    const Model *m = &plans[0].model;
    int per_step = coll_slots_per_step(m);
    Gen *state = calloc((size_t)nranks, sizeof *state), *next = calloc((size_t)nranks, sizeof *next);
    int64_t *scratch = calloc((size_t)nranks, sizeof *scratch);
    if (!state || !next || !scratch) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < nranks; r++) {
        state[r] = plans[r].initial;
        state[r].plan = plan;
        next[r] = state[r];
    }
    plan->recording = true;
    for (uint64_t s = 0; s < steps; s++) {
        plan_reserve(plan, (s + 1) * (uint64_t)per_step - 1);
        for (int round = 0;; round++) {
            if (round > per_step + 2) {
                fprintf(stderr, "kineta-synth: internal error: collectives do not settle\n");
                exit(1);
            }
            for (int r = 0; r < nranks; r++) {
                Ev *buf = next[r].ev;
                size_t cap = next[r].cap;
                next[r] = state[r];
                next[r].ev = buf;
                next[r].cap = cap;
                build_step(&next[r], FIRST_STEP + s);
            }
            if (!update_ends(plan, m, s * (uint64_t)per_step, per_step, scratch))
                break;
        }
        for (int r = 0; r < nranks; r++) {
            Ev *buf = state[r].ev;
            size_t cap = state[r].cap;
            state[r] = next[r];
            next[r].ev = buf;
            next[r].cap = cap;
        }
    }
    plan->recording = false;
    for (int r = 0; r < nranks; r++) {
        free(state[r].ev);
        free(next[r].ev);
    }
    free(state);
    free(next);
    free(scratch);
}

static void put_i64_list(Writer *w, const int64_t *v, const int *idx, int n)
{
    PUT(w, "[");
    for (int i = 0; i < n; i++) {
        w_need(w, 64);
        put_str(w, i ? ", " : "");
        put_i64(w, v[idx[i]]);
    }
    PUT(w, "]");
}

typedef struct {
    int64_t wait;
    uint64_t last, first, count;
} RankArrivals;

static bool coll_implicit_sync(CollKind k)
{
    return k == C_ALLGATHER || k == C_ALLREDUCE || k == C_REDUCESCATTER;
}

/* One group instance of a slot: its members' true arrivals and end. */
static void write_truth_instance(Writer *w, const Model *m, const CollPlan *plan, uint64_t slot, const int *members,
                                 int n, bool first_entry, RankArrivals *ra)
{
    CollKind k = coll_kind_at(m, slot);
    const int64_t *a = plan->arrive + slot * (uint64_t)plan->nranks;
    int gfirst, size, gid = coll_group(m, COLL_KINDS[k].pg, members[0], &gfirst, &size);
    int last = 0, firsta = 0;
    for (int i = 1; i < n; i++) {
        if (a[members[i]] > a[members[last]])
            last = i;
        if (a[members[i]] < a[members[firsta]])
            firsta = i;
    }
    w_need(w, EVENT_ROOM);
    put_str(w, first_entry ? "\n    {" : ",\n    {");
    PUT(w, "\"slot\": ");
    put_u64(w, slot);
    PUT(w, ", \"step\": ");
    put_u64(w, FIRST_STEP + slot / (uint64_t)coll_slots_per_step(m));
    PUT(w, ", \"kind\": \"");
    put_str(w, COLL_KINDS[k].coll_name);
    PUT(w, "\", \"pg\": \"");
    put_u64(w, (uint64_t)coll_pg_number(COLL_KINDS[k].pg, gid));
    PUT(w, "\", \"seq\": ");
    put_u64(w, coll_seq(m, slot));
    PUT(w, ", \"implicit_sync\": ");
    put_str(w, coll_implicit_sync(k) ? "true" : "false");
    PUT(w, ", \"latency_ns\": ");
    put_i64(w, coll_latency(m, slot));
    PUT(w, ", \"end_ns\": ");
    put_i64(w, plan->end[slot * (uint64_t)plan->nranks + (uint64_t)members[0]]);
    PUT(w, ", \"last_rank\": ");
    put_u64(w, (uint64_t)members[last]);
    PUT(w, ", \"first_rank\": ");
    put_u64(w, (uint64_t)members[firsta]);
    PUT(w, ", \"ranks\": ");
    PUT(w, "[");
    for (int i = 0; i < n; i++) {
        w_need(w, 64);
        put_str(w, i ? ", " : "");
        put_u64(w, (uint64_t)members[i]);
    }
    PUT(w, "], \"start_ns\": ");
    put_i64_list(w, a, members, n);
    PUT(w, "}");
    if (!coll_implicit_sync(k))
        return;
    for (int i = 0; i < n; i++) {
        ra[members[i]].wait += a[members[last]] - a[members[i]];
        ra[members[i]].count++;
    }
    ra[members[last]].last++;
    ra[members[firsta]].first++;
}

void write_truth_collectives(Writer *w, const Options *o, const RankPlan *plans, const CollPlan *plan)
{
    const Model *m = &plans[0].model;
    int n = plan->nranks, *members = malloc((size_t)n * sizeof *members);
    RankArrivals *ra = calloc((size_t)n, sizeof *ra);
    if (!members || !ra) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    PUT(w, ",\n  \"collectives\": {\n    \"clock_offset_ns\": [");
    for (int r = 0; r < n; r++) {
        w_need(w, 64);
        put_str(w, r ? ", " : "");
        put_i64(w, plans[r].clock_offset - plans[0].clock_offset);
    }
    PUT(w, "],\n    \"straggler_rank\": ");
    put_i64(w, o->straggler_rank);
    PUT(w, ", \"straggler_ns\": ");
    put_i64(w, o->straggler_rank >= 0 ? o->straggler_ns : 0);
    PUT(w, ", \"slow_rank\": ");
    put_i64(w, o->slow_rank);
    PUT(w, ", \"slow_pct\": ");
    put_i64(w, o->slow_rank >= 0 ? o->slow_pct : 0);
    PUT(w, ",\n    \"instances\": [");
    bool first_entry = true;
    for (uint64_t slot = 0; slot < plan->nslots; slot++) {
        PgClass pg = COLL_KINDS[coll_kind_at(m, slot)].pg;
        for (int g0 = 0; g0 < n; g0++) { /* each group once, at its first rank */
            int first, size, k = 0;
            if (coll_group(m, pg, g0, &first, &size) < 0 || first != g0)
                continue;
            for (int r = first; r < first + size; r++)
                members[k++] = r;
            write_truth_instance(w, m, plan, slot, members, k, first_entry, ra);
            first_entry = false;
        }
    }
    PUT(w, "\n    ],\n    \"per_rank\": [");
    for (int r = 0; r < n; r++) {
        w_need(w, 256);
        put_str(w, r ? ",\n      {\"rank\": " : "\n      {\"rank\": ");
        put_u64(w, (uint64_t)r);
        PUT(w, ", \"implicit_sync\": ");
        put_u64(w, ra[r].count);
        PUT(w, ", \"total_wait_ns\": ");
        put_i64(w, ra[r].wait);
        PUT(w, ", \"arrived_last\": ");
        put_u64(w, ra[r].last);
        PUT(w, ", \"arrived_first\": ");
        put_u64(w, ra[r].first);
        PUT(w, "}");
    }
    PUT(w, "\n    ]\n  }");
    free(members);
    free(ra);
}
