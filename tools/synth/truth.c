/*
 * truth.c — the ground truth kept while events are written (counts, GPU busy unions)
 * and the per-rank part of truth.json.
 */
#include "synth.h"

const char *const CAT_NAMES[NUM_CATS] = {
    "cpu_op", "user_annotation", "python_function", "cuda_runtime", "kernel",
    "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Trace",
};

static const char *const PH_NAMES[NUM_PH] = {"X", "s", "f", "i", "M"};

static void union_add(Union *u, int64_t s, int64_t e)
{
    if (u->open && s <= u->end) {
        if (e > u->end)
            u->end = e;
        return;
    }
    if (u->open)
        u->total += u->end - u->start;
    u->start = s;
    u->end = e;
    u->open = true;
}

static int64_t union_length(const Union *u)
{
    return u->total + (u->open ? u->end - u->start : 0);
}

void truth_pending(Truth *t, int64_t ts, int64_t end, GpuClass cls)
{
    if (t->npending == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->pending = realloc(t->pending, t->cap * sizeof *t->pending);
        if (!t->pending) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
    }
    t->pending[t->npending++] = (Interval){ts, end, (uint8_t)cls};
}

static int interval_cmp(const void *a, const void *b)
{
    const Interval *x = a, *y = b;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static void truth_absorb(Truth *t, const Interval *iv)
{
    if (t->first_start < 0 || iv->ts < t->first_start)
        t->first_start = iv->ts;
    if (iv->end > t->last_end)
        t->last_end = iv->end;
    union_add(&t->all, iv->ts, iv->end);
    if (iv->cls == GPU_COMPUTE || iv->cls == GPU_COMM)
        union_add(&t->kernels, iv->ts, iv->end);
    if (iv->cls == GPU_COMPUTE)
        union_add(&t->compute, iv->ts, iv->end);
    if (iv->cls == GPU_COMM)
        union_add(&t->comm, iv->ts, iv->end);
}

/* Unions need intervals in start order, but streams run independently.  No future
 * activity can start before `watermark` (see gen_watermark), so everything that starts
 * at or before it can be merged now; the rest waits for a later step. */
void truth_flush(Truth *t, int64_t watermark)
{
    if (t->npending == 0)
        return;
    qsort(t->pending, t->npending, sizeof *t->pending, interval_cmp);
    size_t i = 0;
    for (; i < t->npending && t->pending[i].ts <= watermark; i++)
        truth_absorb(t, &t->pending[i]);
    memmove(t->pending, t->pending + i, (t->npending - i) * sizeof *t->pending);
    t->npending -= i;
}

/* A future activity on stream s starts no earlier than both the stream's current end and
 * its launch, which happens after the CPU cursor. */
int64_t gen_watermark(const Gen *g)
{
    int64_t w = INT64_MAX;
    for (int s = 0; s <= g->m->streams; s++) {
        int64_t t = max64(g->stream_free[s], g->now);
        if (t < w)
            w = t;
    }
    return w;
}

/* ------------------------------------------------------------------------------------ */
/* Ground-truth file                                                                     */
/* ------------------------------------------------------------------------------------ */

static void put_key(Writer *w, const char *key)
{
    PUT(w, "\n      ");
    put_json_string(w, key);
    PUT(w, ": ");
}

static void put_u64_field(Writer *w, const char *key, uint64_t v)
{
    put_key(w, key);
    put_u64(w, v);
    PUT(w, ",");
}

static void put_kernel_map(Writer *w, const char *key, const Truth *t, Vendor v, bool time,
                           const char *after)
{
    put_key(w, key);
    PUT(w, "{");
    bool first = true;
    for (int k = 0; k < NUM_GPU_OPS; k++) {
        if (!is_kernel(k) || !t->kcount[k])
            continue;
        bool seen = false; /* several templates may share a vendor name: report once, summed */
        for (int j = 0; j < k; j++)
            seen |= is_kernel(j) && t->kcount[j] && !strcmp(gpu_op_name(v, j), gpu_op_name(v, k));
        if (seen)
            continue;
        uint64_t sum = 0;
        for (int j = k; j < NUM_GPU_OPS; j++)
            if (is_kernel(j) && !strcmp(gpu_op_name(v, j), gpu_op_name(v, k)))
                sum += time ? (uint64_t)t->ktime[j] : t->kcount[j];
        put_str(w, first ? "\n        " : ",\n        ");
        first = false;
        put_json_string(w, gpu_op_name(v, k));
        PUT(w, ": ");
        put_u64(w, sum);
    }
    PUT(w, "\n      }");
    put_str(w, after);
}

void write_truth_rank(Writer *w, const RankPlan *p, const Truth *t, const char *file,
                             uint64_t bytes, bool first)
{
    Vendor v = p->model.vendor;
    int64_t busy = union_length(&t->all);
    int64_t compute = union_length(&t->compute), comm = union_length(&t->comm);
    int64_t kernels = union_length(&t->kernels);
    w_need(w, EVENT_ROOM);
    put_str(w, first ? "\n    {" : ",\n    {");
    put_u64_field(w, "rank", (uint64_t)p->rank);
    put_key(w, "file");
    put_json_string(w, file);
    PUT(w, ",");
    put_u64_field(w, "bytes", bytes);
    put_u64_field(w, "total_events", t->events);
    put_key(w, "by_ph");
    PUT(w, "{");
    for (int i = 0; i < NUM_PH; i++) {
        put_str(w, i ? ", " : "");
        put_json_string(w, PH_NAMES[i]);
        PUT(w, ": ");
        put_u64(w, t->ph[i]);
    }
    PUT(w, "},");
    put_key(w, "complete_by_cat");
    PUT(w, "{");
    for (int i = 0; i < NUM_CATS; i++) {
        put_str(w, i ? ", " : "");
        put_json_string(w, CAT_NAMES[i]);
        PUT(w, ": ");
        put_u64(w, t->cat[i]);
    }
    PUT(w, "},");
    put_u64_field(w, "kernels", t->cat[CAT_KERNEL]);
    put_u64_field(w, "memcpy", t->cat[CAT_MEMCPY]);
    put_u64_field(w, "memset", t->cat[CAT_MEMSET]);
    put_key(w, "gpu_events_by_stream");
    PUT(w, "{");
    for (int s = 0; s <= p->model.streams; s++) {
        put_str(w, s ? ", \"" : "\"");
        put_u64(w, (uint64_t)stream_id(&p->model, s));
        PUT(w, "\": ");
        put_u64(w, t->by_stream[s]);
    }
    PUT(w, "},");
    put_u64_field(w, "comm_stream", (uint64_t)stream_id(&p->model, p->model.streams));
    put_key(w, "steps");
    PUT(w, "[");
    for (uint64_t s = 0; s < p->steps; s++) {
        put_str(w, s ? ", " : "");
        put_u64(w, FIRST_STEP + s);
        w_need(w, 64);
    }
    PUT(w, "],");
    put_u64_field(w, "gpu_busy_ns", (uint64_t)busy);
    put_u64_field(w, "gpu_idle_ns", (uint64_t)(t->last_end - t->first_start - busy));
    put_key(w, "gpu_span_ns");
    PUT(w, "[");
    put_u64(w, (uint64_t)t->first_start);
    PUT(w, ", ");
    put_u64(w, (uint64_t)t->last_end);
    PUT(w, "],");
    put_u64_field(w, "compute_busy_ns", (uint64_t)compute);
    put_u64_field(w, "comm_busy_ns", (uint64_t)comm);
    put_u64_field(w, "comm_compute_overlap_ns", (uint64_t)(compute + comm - kernels));
    put_u64_field(w, "graph_launches", t->graph_launches);
    put_u64_field(w, "graph_kernels", t->graph_kernels);
    if (p->model.collectives) {
        int64_t compute_kernels = 0;
        for (int k = 0; k < NUM_GPU_OPS; k++)
            compute_kernels += GPU_OPS[k].cls == GPU_COMPUTE ? t->ktime[k] : 0;
        put_u64_field(w, "compute_kernel_ns", (uint64_t)compute_kernels);
    }
    put_kernel_map(w, "kernel_time_by_name_ns", t, v, true, ",");
    put_kernel_map(w, "kernel_count_by_name", t, v, false, "\n    }");
}
