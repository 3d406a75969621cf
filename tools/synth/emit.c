/*
 * emit.c — events written byte for byte in native libkineto's layout, pass by pass
 * (CPU threads, Python tracer, activity buffers).
 */
#include "synth.h"

void begin_event(Emitter *e, Ph ph)
{
    w_need(e->w, EVENT_ROOM);
    if (e->t->events)
        PUT(e->w, ",\n  {");
    else
        PUT(e->w, "\n  {");
    e->t->events++;
    e->t->ph[ph]++;
}

void put_pid_tid(Emitter *e, uint64_t pid, uint64_t tid)
{
    PUT(e->w, "\"pid\": ");
    put_u64(e->w, pid);
    PUT(e->w, ", \"tid\": ");
    put_u64(e->w, tid);
}

static void put_name(Writer *w, const Ev *ev)
{
    put_str(w, ev->name);
    if (ev->suffix >= 0)
        put_u64(w, (uint64_t)ev->suffix);
}

/* A complete event is written as complete_begin, the name, complete_rest, the args,
 * end_args:
 *   "ph": "X", "cat": C, "name": "NAME", "pid": P, "tid": T,
 *   "ts": TS, "dur": DUR,
 *   "args": { ... } */
void complete_begin(Emitter *e, Cat cat)
{
    Writer *w = e->w;
    e->t->cat[cat]++;
    PUT(w, "\n    \"ph\": \"X\", \"cat\": \"");
    put_str(w, CAT_NAMES[cat]);
    PUT(w, "\", \"name\": \"");
}

void complete_rest(Emitter *e, uint64_t pid, uint64_t tid, int64_t ts, int64_t dur)
{
    Writer *w = e->w;
    PUT(w, "\", ");
    put_pid_tid(e, pid, tid);
    PUT(w, ",\n    \"ts\": ");
    put_time(w, ts);
    PUT(w, ", \"dur\": ");
    put_time(w, dur);
    PUT(w, ",\n    \"args\": {\n      ");
}

void end_args(Writer *w)
{
    PUT(w, "\n    }\n  }");
}

static void flow_event(Emitter *e, bool start, const char *cat, uint64_t id, uint64_t pid,
                       uint64_t tid, int64_t ts)
{
    Writer *w = e->w;
    begin_event(e, start ? PH_S : PH_F);
    put_str(w, start ? "\n    \"ph\": \"s\", \"id\": " : "\n    \"ph\": \"f\", \"id\": ");
    put_u64(w, id);
    PUT(w, ", ");
    put_pid_tid(e, pid, tid);
    PUT(w, ", \"ts\": ");
    put_time(w, ts);
    PUT(w, ",\n    \"cat\": \"");
    put_str(w, cat);
    PUT(w, "\", \"name\": \"");
    put_str(w, cat);
    put_str(w, start ? "\"\n  }" : "\", \"bp\": \"e\"\n  }");
}

static uint64_t thread_tid(const Emitter *e, const Ev *ev)
{
    return ev->thread == THREAD_MAIN ? e->pid : e->autograd_tid;
}

/* "[first, first+1, ...]" */
static void put_rank_range(Writer *w, int first, int size)
{
    PUT(w, "[");
    for (int r = 0; r < size; r++) {
        put_str(w, r ? ", " : "");
        put_u64(w, (uint64_t)(first + r));
    }
    PUT(w, "]");
}

/* --collectives: the metadata PyTorch writes on record_param_comms and (newer versions)
 * on the NCCL kernel, for one slot of this rank. */
static void put_coll_args(Emitter *e, uint64_t slot, bool cpu_op)
{
    Writer *w = e->w;
    const Model *m = e->m;
    CollKind k = coll_kind_at(m, slot);
    const CollKindInfo *ki = &COLL_KINDS[k];
    int first, size;
    int gid = coll_group(m, ki->pg, e->rank, &first, &size);
    uint64_t n = coll_nelems(m, slot), in = n, out = n;
    if (k == C_ALLGATHER)
        out = n * (uint64_t)size;
    if (k == C_REDUCESCATTER)
        out = n / (uint64_t)size;
    if (k == C_ALLTOALLV) {
        in = out = 0;
        for (int j = 0; j < size; j++) {
            in += a2a_split(m, slot, e->rank, first + j);
            out += a2a_split(m, slot, first + j, e->rank);
        }
    }
    PUT(w, "\"Collective name\": \"");
    put_str(w, k == C_SENDRECV && e->rank % 2 ? "recv" : ki->coll_name);
    PUT(w, "\", \"In msg nelems\": ");
    put_u64(w, in);
    PUT(w, ", \"Out msg nelems\": ");
    put_u64(w, out);
    PUT(w, ", \"Group size\": ");
    put_u64(w, (uint64_t)size);
    PUT(w, ", \"dtype\": \"");
    put_str(w, ki->dtype);
    PUT(w, "\", \"In split size\": \"[");
    for (int j = 0; k == C_ALLTOALLV && j < size; j++) {
        put_str(w, j ? ", " : "");
        put_u64(w, a2a_split(m, slot, e->rank, first + j));
    }
    PUT(w, "]\", \"Out split size\": \"[");
    for (int j = 0; k == C_ALLTOALLV && j < size; j++) {
        put_str(w, j ? ", " : "");
        put_u64(w, a2a_split(m, slot, first + j, e->rank));
    }
    PUT(w, "]\", \"Process Group Name\": \"");
    put_u64(w, (uint64_t)coll_pg_number(ki->pg, gid));
    PUT(w, "\", \"Process Group Description\": \"");
    put_str(w, ki->pg == PG_WORLD ? "default_pg" : ki->pg == PG_HALF ? "tp" : "pp");
    PUT(w, "\", \"Process Group Ranks\": \"");
    put_rank_range(w, first, size);
    PUT(w, "\", \"Seq\": ");
    put_u64(w, coll_seq(m, slot));
    if (cpu_op) {
        PUT(w, ", \"Rank\": ");
        put_u64(w, (uint64_t)e->rank);
        PUT(w, ", \"Ev Idx\": ");
        put_u64(w, e->ev_idx++);
    }
}

static void put_comms_args(Emitter *e, uint64_t nelems)
{
    Writer *w = e->w;
    if (e->m->collectives) {
        put_coll_args(e, nelems, true);
        return;
    }
    PUT(w, "\"Process Group Name\": \"0\", \"Global rank stride\": 1, \"Out msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Process Group Ranks\": \"");
    put_str(w, e->pg_ranks);
    PUT(w, "\", \"Group size\": ");
    put_u64(w, (uint64_t)e->m->world_size);
    PUT(w, ", \"Global rank start\": 0, \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    PUT(w, ", \"In msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"dtype\": \"Float\", "
           "\"Process Group Description\": \"default_pg\", \"Collective name\": \"allreduce\"");
}

static void emit_cpu_op(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    uint64_t tid = thread_tid(e, ev);
    begin_event(e, PH_X);
    complete_begin(e, ev->kind == EV_USER_ANN ? CAT_USER_ANN : CAT_CPU_OP);
    put_name(w, ev);
    complete_rest(e, e->pid, tid, ev->ts, ev->dur);
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    PUT(w, ",\"Record function id\": ");
    put_u64(w, ev->id);
    PUT(w, ", ");
    if (ev->style == ARGS_COMMS) {
        put_comms_args(e, ev->aux);
    } else {
        if (ev->style == ARGS_FWD_SEQ || ev->style == ARGS_BWD_SEQ) {
            PUT(w, "\"Sequence number\": ");
            put_u64(w, ev->aux);
            put_str(w, ev->style == ARGS_FWD_SEQ ? ", \"Fwd thread id\": 0, " : ", \"Fwd thread id\": 1, ");
        }
        PUT(w, "\"Ev Idx\": ");
        put_u64(w, e->ev_idx++);
    }
    end_args(w);
    if (ev->flow)
        flow_event(e, ev->style == ARGS_FWD_SEQ, "fwdbwd", ev->flow, e->pid, tid, ev->ts);
}

static void emit_python(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    begin_event(e, PH_X);
    complete_begin(e, CAT_PYTHON);
    put_name(w, ev);
    complete_rest(e, e->pid, e->pid, ev->ts, ev->dur);
    PUT(w, "\"Python parent id\": ");
    if (ev->aux)
        put_u64(w, ev->aux);
    else
        PUT(w, "null");
    PUT(w, ", \"Python id\": ");
    put_u64(w, ev->id);
    PUT(w, ", \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    end_args(w);
}

static void emit_mem_instant(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    begin_event(e, PH_I);
    PUT(w, "\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    ");
    put_pid_tid(e, e->pid, thread_tid(e, ev));
    PUT(w, ",\n    \"ts\": ");
    put_time(w, ev->ts);
    PUT(w, ",\n    \"args\": {\n      \"Ev Idx\": ");
    put_u64(w, e->ev_idx++);
    PUT(w, ", \"Device Type\": 1, \"Device Id\": ");
    put_u64(w, (uint64_t)e->device);
    PUT(w, ", \"Addr\": ");
    put_u64(w, ev->id);
    PUT(w, ", \"Bytes\": ");
    put_i64(w, ev->val);
    PUT(w, ", \"Total Allocated\": ");
    put_u64(w, ev->aux);
    PUT(w, ", \"Total Reserved\": ");
    put_u64(w, ev->aux + (UINT64_C(1) << 31));
    end_args(w);
}

static void put_geometry(Writer *w, const char *sep, const int v[3])
{
    put_str(w, sep);
    PUT(w, "[");
    put_u64(w, (uint64_t)v[0]);
    PUT(w, ", ");
    put_u64(w, (uint64_t)v[1]);
    PUT(w, ", ");
    put_u64(w, (uint64_t)v[2]);
    PUT(w, "]");
}

static void emit_runtime_args_rocm(Emitter *e, const Ev *ev, const Ev *gpu, int cid)
{
    Writer *w = e->w;
    const GpuOpTpl *t = &GPU_OPS[ev->tpl];
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    if (ev->api == API_LAUNCH || ev->api == API_LAUNCH_EXT) {
        PUT(w, ",          \"kernel\": \"");
        put_str(w, gpu_op_name(VENDOR_ROCM, ev->tpl));
        PUT(w, "\", \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
        PUT(w, ",      \"stream\": \"");
        put_str(w, e->rocm_stream_ptr[ev->stream]);
        PUT(w, "\",      \"grid\": ");
        put_geometry(w, "", t->grid);
        put_geometry(w, ",      \"block\": ", t->block);
        PUT(w, ",      \"shared memory\": ");
        put_u64(w, (uint64_t)t->smem);
    } else if (ev->api == API_MEMCPY) {
        PUT(w, ",          \"stream\": \"");
        put_str(w, e->rocm_stream_ptr[ev->stream]);
        PUT(w, "\", \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
        PUT(w, ", \"src\": \"0x55674ecd4180\", \"dst\": \"0x7fda0e810200\", \"size\": \"");
        put_u64(w, gpu ? (uint64_t)gpu->val : 0);
        put_str(w, ev->tpl == M_HTOD ? "\", \"kind\": \"1\"" : "\", \"kind\": \"2\"");
    } else {
        PUT(w, ",      \"cid\": ");
        put_u64(w, (uint64_t)cid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
    }
}

static void emit_runtime(Emitter *e, const Ev *ev, const Ev *gpu)
{
    Writer *w = e->w;
    const ApiName *api = &API_NAMES[e->m->vendor][ev->api];
    uint64_t tid = thread_tid(e, ev);
    begin_event(e, PH_X);
    complete_begin(e, CAT_RUNTIME);
    put_str(w, api->name);
    complete_rest(e, e->pid, tid, ev->ts, ev->dur);
    if (e->m->vendor == VENDOR_ROCM) {
        emit_runtime_args_rocm(e, ev, gpu, api->cbid);
    } else {
        PUT(w, "\"External id\": ");
        put_u64(w, ev->ext_id);
        PUT(w, ",      \"cbid\": ");
        put_u64(w, (uint64_t)api->cbid);
        PUT(w, ", \"correlation\": ");
        put_u64(w, ev->id);
    }
    end_args(w);
    if (api_has_flow((Api)ev->api))
        flow_event(e, true, "ac2g", ev->id, e->pid, tid, ev->ts);
    if (ev->api == API_GRAPH)
        e->t->graph_launches++;
}

/* Kernel geometry never changes for a given kernel, so its args tail is formatted once. */
char *format_kernel_tail(Vendor v, int tpl)
{
    const GpuOpTpl *t = &GPU_OPS[tpl];
    char *s = malloc(512);
    if (!s) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    if (v == VENDOR_ROCM) {
        snprintf(s, 512, ", \"kind\": \"Dispatch Kernel\",      \"grid\":     [%d, %d, %d], \"block\":     [%d, %d, %d]",
                 t->grid[0], t->grid[1], t->grid[2], t->block[0], t->block[1], t->block[2]);
        return s;
    }
    /* CUPTI-style occupancy figures for a 108-SM A100 */
    double blocks = (double)t->grid[0] * t->grid[1] * t->grid[2] / 108.0;
    int warps = (t->block[0] * t->block[1] * t->block[2] + 31) / 32;
    int occupancy = (int)(blocks * warps > 64 ? 100 : blocks * warps * 100 / 64);
    snprintf(s, 512,
             ",      \"registers per thread\": %d,      \"shared memory\": %d,      \"blocks per SM\": %.6f,"
             "      \"warps per SM\": %.6f,      \"grid\": [%d, %d, %d],      \"block\": [%d, %d, %d],"
             "      \"est. achieved occupancy %%\": %d",
             t->regs, t->smem, blocks, blocks * warps, t->grid[0], t->grid[1], t->grid[2], t->block[0],
             t->block[1], t->block[2], occupancy);
    return s;
}

static void put_nccl_kernel_args(Emitter *e, uint64_t nelems)
{
    Writer *w = e->w;
    if (e->m->collectives) {
        PUT(w, ", ");
        put_coll_args(e, nelems, false);
        return;
    }
    PUT(w, ", \"Collective name\": \"allreduce\", \"In msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Out msg nelems\": ");
    put_u64(w, nelems);
    PUT(w, ", \"Group size\": ");
    put_u64(w, (uint64_t)e->m->world_size);
    PUT(w, ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
           "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
           "\"Process Group Ranks\": \"");
    put_str(w, e->pg_ranks);
    PUT(w, "\"");
}

static void put_copy_args(Emitter *e, const Ev *ev)
{
    Writer *w = e->w;
    const GpuOpTpl *t = &GPU_OPS[ev->tpl];
    if (e->m->vendor == VENDOR_ROCM) {
        PUT(w, ", \"kind\": \"");
        put_str(w, t->copy_kind);
        PUT(w, "\"");
        return;
    }
    PUT(w, ",      \"bytes\": ");
    put_u64(w, (uint64_t)ev->val);
    PUT(w, ", \"memory bandwidth (GB/s)\": ");
    put_double(w, (double)ev->val / (double)ev->dur); /* bytes per ns == GB/s */
}

static Cat gpu_cat(int tpl)
{
    switch (GPU_OPS[tpl].cls) {
    case GPU_MEMCPY: return CAT_MEMCPY;
    case GPU_MEMSET: return CAT_MEMSET;
    default: return CAT_KERNEL;
    }
}

static void emit_gpu(Emitter *e, const Ev *ev, bool from_graph)
{
    Writer *w = e->w;
    Truth *t = e->t;
    int stream = e->stream_ids[ev->stream];
    bool rocm = e->m->vendor == VENDOR_ROCM;
    begin_event(e, PH_X);
    complete_begin(e, gpu_cat(ev->tpl));
    put_str(w, gpu_op_name(e->m->vendor, ev->tpl));
    complete_rest(e, (uint64_t)e->device, (uint64_t)stream, ev->ts, ev->dur);
    PUT(w, "\"External id\": ");
    put_u64(w, ev->ext_id);
    if (is_kernel(ev->tpl) && !rocm)
        PUT(w, ",      \"queued\": 0, \"device\": ");
    else
        PUT(w, ",      \"device\": ");
    put_u64(w, (uint64_t)e->device);
    put_str(w, rocm ? ", \"stream\": " : ", \"context\": 1,      \"stream\": ");
    put_u64(w, (uint64_t)stream);
    put_str(w, rocm ? ",      \"correlation\": " : ", \"correlation\": ");
    put_u64(w, ev->id);
    if (is_kernel(ev->tpl)) {
        put_str(w, e->kernel_tail[ev->tpl]);
        if (GPU_OPS[ev->tpl].cls == GPU_COMM)
            put_nccl_kernel_args(e, ev->aux);
        t->kcount[ev->tpl]++;
        t->ktime[ev->tpl] += ev->dur;
        t->graph_kernels += from_graph;
    } else {
        put_copy_args(e, ev);
    }
    end_args(w);
    flow_event(e, false, "ac2g", ev->id, (uint64_t)e->device, (uint64_t)stream, ev->ts);
    t->by_stream[ev->stream]++;
    truth_pending(t, ev->ts, ev->ts + ev->dur, GPU_OPS[ev->tpl].cls);
}

/* Native Kineto writes CPU ops thread by thread, then the Python tracer's events, then
 * the CUPTI/roctracer activity buffers (runtime calls interleaved with GPU activities).
 * Each pass writes one of those groups for one step. */
void emit_step(Emitter *e, const Gen *g, Pass pass)
{
    bool graph_run = false;
    for (size_t i = 0; i < g->n; i++) {
        const Ev *ev = &g->ev[i];
        switch ((EvKind)ev->kind) {
        case EV_CPU_OP:
        case EV_USER_ANN:
        case EV_MEM_INSTANT:
            if ((pass == PASS_MAIN_THREAD && ev->thread == THREAD_MAIN) ||
                (pass == PASS_AUTOGRAD_THREAD && ev->thread == THREAD_AUTOGRAD)) {
                if (ev->kind == EV_MEM_INSTANT)
                    emit_mem_instant(e, ev);
                else
                    emit_cpu_op(e, ev);
            }
            break;
        case EV_PYTHON:
            if (pass == PASS_PYTHON)
                emit_python(e, ev);
            break;
        case EV_RUNTIME:
            graph_run = ev->api == API_GRAPH;
            if (pass == PASS_GPU)
                emit_runtime(e, ev, i + 1 < g->n && g->ev[i + 1].kind == EV_GPU ? &g->ev[i + 1] : NULL);
            break;
        case EV_GPU:
            if (pass == PASS_GPU)
                emit_gpu(e, ev, graph_run);
            break;
        }
    }
}
