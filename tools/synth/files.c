/*
 * files.c — whole trace files: header, metadata, steps, footer; each rank's plan and
 * the number of steps that meets a target size.
 */
#include "synth.h"

static void put_device_properties(Writer *w, Vendor v)
{
    PUT(w, "  \"deviceProperties\": [");
    for (int d = 0; d < DEVICES_PER_NODE; d++) {
        char buf[1024];
        if (v == VENDOR_ROCM)
            snprintf(buf, sizeof buf,
                     "%s\n    {\n      \"id\": %d, \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 206141652992,\n"
                     "      \"computeMajor\": 9, \"computeMinor\": 4,\n"
                     "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                     "      \"regsPerBlock\": 65536, \"warpSize\": 64,\n"
                     "      \"sharedMemPerBlock\": 65536, \"numSms\": 304\n"
                     "    , \"maxSharedMemoryPerMultiProcessor\": 65536\n    }",
                     d ? "," : "", d);
        else
            snprintf(buf, sizeof buf,
                     "%s\n    {\n      \"id\": %d, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85096972288,\n"
                     "      \"computeMajor\": 8, \"computeMinor\": 0,\n"
                     "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                     "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                     "      \"sharedMemPerBlock\": 49152, \"numSms\": 108\n"
                     "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 166912, "
                     "\"sharedMemPerMultiprocessor\": 167936\n    }",
                     d ? "," : "", d);
        put_str(w, buf);
    }
    PUT(w, "\n  ],\n");
}

static void put_rank_list(Writer *w, int world)
{
    PUT(w, "[");
    for (int r = 0; r < world; r++) {
        if (r)
            PUT(w, ", ");
        put_u64(w, (uint64_t)r);
    }
    PUT(w, "]");
}

static void write_header(Writer *w, const RankPlan *p)
{
    int world = p->model.world_size;
    PUT(w, "\n{\n  \"schemaVersion\": 1,\n");
    put_device_properties(w, p->model.vendor);
    PUT(w, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
    put_u64(w, (uint64_t)p->rank);
    PUT(w, ", \"world_size\": ");
    put_u64(w, (uint64_t)world);
    PUT(w, ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
           "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
    put_u64(w, (uint64_t)world);
    PUT(w, ", \"ranks\": ");
    put_rank_list(w, world);
    PUT(w, "}], \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": [");
}

static void metadata_event(Emitter *e, const char *what, const char *pid_text, uint64_t pid,
                           uint64_t tid, int64_t ts, const char *key, const char *str_val,
                           uint64_t num_val)
{
    Writer *w = e->w;
    begin_event(e, PH_M);
    PUT(w, "\n    \"name\": \"");
    put_str(w, what);
    PUT(w, "\", \"ph\": \"M\", \"ts\": ");
    put_time(w, ts);
    if (pid_text) {
        PUT(w, ",\n    \"pid\": \"");
        put_str(w, pid_text);
        PUT(w, "\", \"tid\": ");
        put_u64(w, tid);
    } else {
        PUT(w, ", ");
        put_pid_tid(e, pid, tid);
    }
    PUT(w, ",\n    \"args\": {\n      \"");
    put_str(w, key);
    PUT(w, "\": ");
    if (str_val) {
        put_json_string(w, str_val);
    } else {
        put_u64(w, num_val);
    }
    end_args(w);
}

static void emit_gpu_step_annotations(Emitter *e, const RankPlan *p)
{
    Writer *w = e->w;
    for (uint64_t i = 0; i < p->steps; i++) {
        const GpuStepSpan *s = &p->spans[i];
        begin_event(e, PH_X);
        complete_begin(e, CAT_GPU_USER_ANN);
        PUT(w, "ProfilerStep#");
        put_u64(w, s->step);
        complete_rest(e, (uint64_t)e->device, (uint64_t)e->stream_ids[0], s->ts, s->dur);
        PUT(w, "\"External id\": ");
        put_u64(w, s->ext_id);
        end_args(w);
    }
}

static void emit_metadata(Emitter *e, const RankPlan *p)
{
    bool rocm = p->model.vendor == VENDOR_ROCM;
    const char *proc = rocm ? "python3" : "python3.10";
    int64_t ts = p->start_ns;
    char label[64];
    metadata_event(e, "process_name", NULL, e->pid, 0, ts, "name", proc, 0);
    metadata_event(e, "process_labels", NULL, e->pid, 0, ts, "labels", "CPU", 0);
    metadata_event(e, "process_sort_index", NULL, e->pid, 0, ts, "sort_index", NULL, e->pid);
    for (int d = 0; d < DEVICES_PER_NODE; d++) {
        snprintf(label, sizeof label, "GPU %d", d);
        metadata_event(e, "process_name", NULL, (uint64_t)d, 0, ts, "name", proc, 0);
        metadata_event(e, "process_labels", NULL, (uint64_t)d, 0, ts, "labels", label, 0);
        metadata_event(e, "process_sort_index", NULL, (uint64_t)d, 0, ts, "sort_index", NULL,
                       (rocm ? 5000000u : 16777216u) + (uint64_t)d);
    }
    for (int s = 0; s <= p->model.streams; s++) {
        uint64_t id = (uint64_t)e->stream_ids[s];
        snprintf(label, sizeof label, "stream %d ", e->stream_ids[s]);
        metadata_event(e, "thread_name", NULL, (uint64_t)e->device, id, ts, "name", label, 0);
        metadata_event(e, "thread_sort_index", NULL, (uint64_t)e->device, id, ts, "sort_index", NULL, id);
    }
    const uint64_t tids[2] = {e->pid, e->autograd_tid};
    const char *const roles[2] = {"pt_main_thread", "pt_autograd_0"};
    for (int i = 0; i < 2; i++) {
        snprintf(label, sizeof label, "thread %" PRIu64 " (%s)", tids[i], roles[i]);
        metadata_event(e, "thread_name", NULL, e->pid, tids[i], ts, "name", label, 0);
        metadata_event(e, "thread_sort_index", NULL, e->pid, tids[i], ts, "sort_index", NULL, tids[i]);
    }
}

static void global_instant(Emitter *e, const char *name, const char *pid, const char *tid, int64_t ts)
{
    Writer *w = e->w;
    begin_event(e, PH_I);
    PUT(w, "\n    \"name\": \"");
    put_str(w, name);
    PUT(w, "\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"");
    put_str(w, pid);
    PUT(w, "\", \"tid\": \"");
    put_str(w, tid);
    PUT(w, "\", \"ts\": ");
    put_time(w, ts);
    PUT(w, "\n  }");
}

static void emit_profiler_span(Emitter *e, const RankPlan *p)
{
    Writer *w = e->w;
    int64_t end = max64(p->cpu_end, e->t->last_end) + 1000;
    begin_event(e, PH_X);
    e->t->cat[CAT_TRACE]++;
    PUT(w, "\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    put_time(w, p->start_ns);
    PUT(w, ", \"dur\": ");
    put_time(w, end - p->start_ns);
    PUT(w, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\","
           "\n    \"args\": {\n      \"Op count\": 0");
    end_args(w);
    metadata_event(e, "process_sort_index", "Spans", 0, 0, p->start_ns, "sort_index", NULL, 536870912);
    global_instant(e, "Iteration Start: PyTorch Profiler", "Traces", "Trace PyTorch Profiler", p->start_ns);
    global_instant(e, "Record Window End", "", "", end);
}

static void write_footer(Writer *w, const char *trace_name)
{
    w_need(w, EVENT_ROOM);
    PUT(w, "\n  ],\n  \"traceName\": ");
    put_json_string(w, trace_name);
    PUT(w, ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": " BASE_TIME_NANOSECONDS "\n}");
}

static void gen_init(Gen *g, const Model *m, uint64_t seed, int rank, int64_t start_ns)
{
    *g = (Gen){.m = m, .rng = {mix(seed, (uint64_t)rank + 1)}, .now = start_ns};
    g->total_alloc = INT64_C(1) << 30;
}

/* CUDA: default stream 7, created streams 20, 24, ...; ROCm: stream 0 as roctracer
 * reports it, then small ids for the extra streams. */
int stream_id(const Model *m, int s)
{
    if (m->vendor == VENDOR_ROCM)
        return s;
    return s == 0 ? 7 : 16 + 4 * s;
}

static void emitter_init(Emitter *e, Writer *w, Truth *t, const RankPlan *p)
{
    const Model *m = &p->model;
    *e = (Emitter){.w = w, .t = t, .m = m, .device = p->rank % DEVICES_PER_NODE, .rank = p->rank};
    uint64_t h = mix(p->o->seed, (uint64_t)p->rank + 7);
    e->pid = 100000 + h % 3000000;
    e->autograd_tid = e->pid + 1 + (h >> 32) % 9000;
    for (int s = 0; s <= m->streams; s++) {
        e->stream_ids[s] = stream_id(m, s);
        if (m->vendor == VENDOR_ROCM && s == 0)
            snprintf(e->rocm_stream_ptr[s], sizeof e->rocm_stream_ptr[s], "0x0");
        else
            snprintf(e->rocm_stream_ptr[s], sizeof e->rocm_stream_ptr[s], "0x%" PRIx64,
                     UINT64_C(0x55d7a4e3c000) + (uint64_t)s * 0x1000);
    }
    size_t cap = (size_t)m->world_size * 8 + 8;
    e->pg_ranks = malloc(cap);
    if (!e->pg_ranks) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    size_t len = (size_t)snprintf(e->pg_ranks, cap, "[");
    for (int r = 0; r < m->world_size; r++)
        len += (size_t)snprintf(e->pg_ranks + len, cap - len, r ? ", %d" : "%d", r);
    snprintf(e->pg_ranks + len, cap - len, "]");
    for (int k = 0; k < NUM_GPU_OPS; k++)
        e->kernel_tail[k] = is_kernel(k) ? format_kernel_tail(m->vendor, k) : NULL;
}

static void emitter_free(Emitter *e)
{
    free(e->pg_ranks);
    for (int k = 0; k < NUM_GPU_OPS; k++)
        free(e->kernel_tail[k]);
}

/* Writes one rank's trace (to `path`, or nowhere when path is NULL: size estimation) and
 * returns its uncompressed size. */
uint64_t write_rank(RankPlan *p, const char *path, const char *trace_name, Truth *t)
{
    Writer w;
    Emitter e;
    Gen g;
    w_open(&w, path, p->o->gzip, p->o->ns);
    *t = (Truth){.first_start = -1};
    emitter_init(&e, &w, t, p);
    p->spans = calloc(p->steps, sizeof *p->spans);
    if (!p->spans) {
        fprintf(stderr, "kineta-synth: out of memory\n");
        exit(1);
    }
    write_header(&w, p);
    for (Pass pass = 0; pass < NUM_PASSES; pass++) {
        g = p->initial;
        g.ev = NULL;
        g.n = g.cap = 0;
        for (uint64_t s = 0; s < p->steps; s++) {
            build_step(&g, FIRST_STEP + s);
            emit_step(&e, &g, pass);
            if (pass == PASS_GPU) {
                truth_flush(t, gen_watermark(&g));
                p->spans[s] = (GpuStepSpan){FIRST_STEP + s, g.gpu_first, g.gpu_last - g.gpu_first, g.step_ext_id};
            }
        }
        p->cpu_end = g.now;
        free(g.ev);
    }
    truth_flush(t, INT64_MAX);
    emit_gpu_step_annotations(&e, p);
    emit_metadata(&e, p);
    emit_profiler_span(&e, p);
    write_footer(&w, trace_name);
    w_close(&w);
    emitter_free(&e);
    free(p->spans);
    p->spans = NULL;
    free(t->pending);
    t->pending = NULL;
    return w.bytes;
}

/* --clock-skew: the rank's clock runs this far ahead of true time (0 without it). */
int64_t clock_offset(const Options *o, int rank)
{
    if (!o->skew_ns)
        return 0;
    int64_t v = (int64_t)(mix(o->seed, (uint64_t)rank + 500) % (uint64_t)(2 * o->skew_ns + 1)) - o->skew_ns;
    int64_t q = o->ns ? 1 : 1000;
    return v - v % q;
}

void plan_rank(RankPlan *p, const Options *o, int rank)
{
    *p = (RankPlan){.o = o, .rank = rank};
    p->model = (Model){
        .vendor = o->vendor,
        .streams = o->streams,
        .graphs = o->graphs,
        .quantum = o->ns ? 1 : 1000,
        .layers = 4 + (int)(mix(o->seed, 0) % 5),
        .world_size = o->ranks,
        .collectives = o->collectives,
        .seed = o->seed,
    };
    /* ranks start a few µs apart, like real unsynchronised clocks */
    p->start_ns = TRACE_BASE_US * 1000 + (int64_t)(mix(o->seed, (uint64_t)rank + 99) % 5000) * 1000;
    p->clock_offset = clock_offset(o, rank);
    p->start_ns += p->clock_offset;
    gen_init(&p->initial, &p->model, o->seed, rank, p->start_ns + 50000);
    p->initial.rank = rank;
    p->initial.clock_offset = p->clock_offset;
    p->initial.straggle_ns = rank == o->straggler_rank ? o->straggler_ns : 0;
    p->initial.slow_pct = rank == o->slow_rank ? o->slow_pct : 0;
}

static uint64_t rank_bytes(const Options *o, int rank, uint64_t steps)
{
    RankPlan p;
    Truth t;
    plan_rank(&p, o, rank);
    p.steps = steps;
    return write_rank(&p, NULL, "", &t);
}

/* Steps are statistically identical, so two short dry runs give the per-step size and
 * the fixed overhead; the step count then follows from the target size. */
uint64_t steps_for_size(const Options *o)
{
    uint64_t b2 = rank_bytes(o, 0, 2), b4 = rank_bytes(o, 0, 4);
    uint64_t per_step = (b4 - b2) / 2;
    uint64_t fixed = b2 > 2 * per_step ? b2 - 2 * per_step : 0;
    if (o->size <= fixed + per_step)
        return 1;
    return (o->size - fixed + per_step / 2) / per_step;
}
