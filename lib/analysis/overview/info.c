/*
 * info.c — what is in these traces: per rank, the file, rank/world size,
 * devices, event counts as written, GPU streams, profiler steps, time span,
 * the launch APIs that enqueued GPU work, and how many warnings the loader
 * raised.
 *
 * It is the first command a user runs on unknown traces (is this ROCm? are
 * steps present? which streams are busy?), and the quickest check that the
 * loader saw what the file holds: the counts are taken from the file as
 * written, before normalization or --hta-compat.  Times are ns (exact).
 */
#include "model/index.h"
#include "model/model_build.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

static const char *device_type_name(kt_device_type d)
{
    switch (d) {
    case KT_DEV_CUDA: return "CUDA";
    case KT_DEV_ROCM: return "ROCm";
    case KT_DEV_MTIA: return "MTIA";
    case KT_DEV_CPU_ONLY: return "CPU";
    case KT_DEV_UNKNOWN: break;
    }
    return "unknown";
}

typedef struct col_spec {
    const char *name;
    kt_col_type type;
} col_spec;

static kt_table *new_table(const char *name, const col_spec *cols, size_t n)
{
    kt_table *t = kt_table_new(name);
    for (size_t c = 0; t && c < n; c++) kt_table_add_col(t, cols[c].name, cols[c].type, 0);
    return t;
}

/* ---- table "ranks" --------------------------------------------------------- */
enum { R_RANK, R_WORLD, R_FILE, R_DEVTYPE, R_DEVICES, R_EVENTS, R_LOADED, R_FIRST, R_LAST,
       R_WARNINGS, R_RANGES, R_FORMAT, R_PROFILER };

static kt_table *ranks_table(void)
{
    static const col_spec cols[] = {
        { "rank", KT_COL_INT }, { "world_size", KT_COL_INT }, { "file", KT_COL_STR },
        { "device_type", KT_COL_STR }, { "devices", KT_COL_STR }, { "events", KT_COL_INT },
        { "events_loaded", KT_COL_INT }, { "first_ts_ns", KT_COL_INT },
        { "last_end_ns", KT_COL_INT }, { "warnings", KT_COL_INT }, { "profiler_ranges", KT_COL_INT },
        { "format", KT_COL_STR }, { "profiler", KT_COL_STR }
    };
    return new_table("ranks", cols, sizeof cols / sizeof cols[0]);
}

static int64_t warnings_of(const kt_trace *t, const kt_rank *r)
{
    int64_t n = 0;
    for (size_t i = 0; i < t->diags.n; i++) {
        const kt_diag *d = &t->diags.d[i];
        n += d->level == KT_DIAG_WARNING && d->file && r->file && !strcmp(d->file, r->file);
    }
    return n;
}

/* deviceProperties names, ';'-separated (caller frees). */
static char *device_names(const kt_trace *t, const kt_rank *r)
{
    size_t len = 1;
    for (size_t i = 0; i < r->ndevices; i++) len += kt_strtab_len(t->strs, r->device_names[i]) + 1;
    char *s = calloc(len, 1);
    for (size_t i = 0; s && i < r->ndevices; i++) {
        if (i) strcat(s, ";");
        strcat(s, kt_strtab_get(t->strs, r->device_names[i]));
    }
    return s;
}

/* CUPTI range-profiler events (a trace of ranges instead of kernels:
 * `kineta cupti` reads them), from the complete-event counts by category. */
static int64_t profiler_ranges(const kt_trace *t, const kt_rank *r)
{
    for (size_t i = 0; i < r->nxcat; i++)
        if (!strcmp(kt_strtab_get(t->strs, r->xcat_id[i]), "cuda_profiler_range")) return (int64_t)r->xcat_count[i];
    return 0;
}

static bool add_rank_row(kt_table *tb, const kt_trace *t, const kt_rank *r)
{
    char *devs = device_names(t, r);
    if (!devs) return false;
    kt_table_add_row(tb);
    kt_table_set_int(tb, R_RANK, r->rank);
    if (r->world_size >= 0) kt_table_set_int(tb, R_WORLD, r->world_size);
    kt_table_set_str(tb, R_FILE, r->file ? r->file : "");
    kt_table_set_str(tb, R_DEVTYPE, device_type_name(r->device_type));
    kt_table_set_str(tb, R_DEVICES, devs);
    kt_table_set_int(tb, R_EVENTS, (int64_t)r->total_events);
    kt_table_set_int(tb, R_LOADED, (int64_t)r->ev.n);
    int64_t first = 0, last = 0;
    if (kt_summary_span(&r->summary, &first, &last)) {
        kt_table_set_int(tb, R_FIRST, first);
        kt_table_set_int(tb, R_LAST, last);
    }
    kt_table_set_int(tb, R_WARNINGS, warnings_of(t, r));
    kt_table_set_int(tb, R_RANGES, profiler_ranges(t, r));
    char fmt[64], prof[64];
    kt_table_set_str(tb, R_FORMAT, kt_rank_source(r, "kineta_format", fmt, sizeof fmt) ? fmt : "Kineto JSON");
    kt_table_set_str(tb, R_PROFILER, kt_rank_source(r, "kineta_profiler", prof, sizeof prof) ? prof : "PyTorch profiler");
    free(devs);
    return true;
}

/* ---- table "events": counts as written, by ph and complete-event cat ----- */
enum { E_RANK, E_GROUP, E_KEY, E_COUNT };

static kt_table *events_table(void)
{
    static const col_spec cols[] = {
        { "rank", KT_COL_INT }, { "group", KT_COL_STR }, { "key", KT_COL_STR },
        { "count", KT_COL_INT }
    };
    return new_table("events", cols, sizeof cols / sizeof cols[0]);
}

static void add_count_row(kt_table *tb, int rank, const char *group, const char *key, uint64_t n)
{
    kt_table_add_row(tb);
    kt_table_set_int(tb, E_RANK, rank);
    kt_table_set_str(tb, E_GROUP, group);
    kt_table_set_str(tb, E_KEY, key);
    kt_table_set_int(tb, E_COUNT, (int64_t)n);
}

/* Categories by count, largest first (ties by name) for reading. */
typedef struct cat_count {
    const char *name;
    uint64_t n;
} cat_count;

static int by_count_desc(const void *a, const void *b)
{
    const cat_count *x = a, *y = b;
    if (x->n != y->n) return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

static bool add_event_rows(kt_table *tb, const kt_trace *t, const kt_rank *r)
{
    for (int ph = 1; ph < 128; ph++)
        if (r->by_ph[ph]) add_count_row(tb, r->rank, "ph", (char[]){ (char)ph, 0 }, r->by_ph[ph]);
    cat_count *cc = malloc((r->nxcat ? r->nxcat : 1) * sizeof *cc);
    if (!cc) return false;
    for (size_t i = 0; i < r->nxcat; i++)
        cc[i] = (cat_count){ kt_strtab_get(t->strs, r->xcat_id[i]), r->xcat_count[i] };
    qsort(cc, r->nxcat, sizeof *cc, by_count_desc);
    for (size_t i = 0; i < r->nxcat; i++) add_count_row(tb, r->rank, "complete_cat", cc[i].name, cc[i].n);
    free(cc);
    return true;
}

/* ---- table "streams" ------------------------------------------------------- */
enum { S_RANK, S_DEVICE, S_STREAM, S_EVENTS, S_KERNELS, S_MEMCPY, S_MEMSET, S_SYNC, S_FIRST, S_LAST };

static kt_table *streams_table(void)
{
    static const col_spec cols[] = {
        { "rank", KT_COL_INT }, { "device", KT_COL_INT }, { "stream", KT_COL_INT },
        { "events", KT_COL_INT }, { "kernels", KT_COL_INT }, { "memcpy", KT_COL_INT },
        { "memset", KT_COL_INT }, { "sync", KT_COL_INT }, { "first_ts_ns", KT_COL_INT },
        { "last_end_ns", KT_COL_INT }
    };
    return new_table("streams", cols, sizeof cols / sizeof cols[0]);
}

static void add_stream_rows(kt_table *tb, const kt_rank *r)
{
    for (size_t q = 0; q < r->idx->nstreams; q++) {
        const kt_gpu_stream *s = &r->idx->streams[q];
        int64_t count[KT_K__COUNT] = { 0 }, last = 0;
        for (size_t k = 0; k < s->n; k++) {
            uint32_t i = s->ev[k];
            count[r->ev.kind[i]]++;
            if (r->ev.ts[i] + r->ev.dur[i] > last) last = r->ev.ts[i] + r->ev.dur[i];
        }
        kt_table_add_row(tb);
        kt_table_set_int(tb, S_RANK, r->rank);
        if (!kt_id_is_str(s->device)) kt_table_set_int(tb, S_DEVICE, s->device);
        kt_table_set_int(tb, S_STREAM, s->stream);
        kt_table_set_int(tb, S_EVENTS, (int64_t)s->n);
        kt_table_set_int(tb, S_KERNELS, count[KT_K_KERNEL]);
        kt_table_set_int(tb, S_MEMCPY, count[KT_K_MEMCPY]);
        kt_table_set_int(tb, S_MEMSET, count[KT_K_MEMSET]);
        kt_table_set_int(tb, S_SYNC, count[KT_K_CUDA_SYNC]);
        kt_table_set_int(tb, S_FIRST, r->ev.ts[s->ev[0]]);
        kt_table_set_int(tb, S_LAST, last);
    }
}

/* ---- table "steps" --------------------------------------------------------- */
enum { P_RANK, P_SIDE, P_STEP, P_TS, P_DUR, P_DEVICE };

static kt_table *steps_table(void)
{
    static const col_spec cols[] = {
        { "rank", KT_COL_INT }, { "side", KT_COL_STR }, { "step", KT_COL_INT },
        { "ts_ns", KT_COL_INT }, { "dur_ns", KT_COL_INT }, { "device", KT_COL_INT }
    };
    return new_table("steps", cols, sizeof cols / sizeof cols[0]);
}

static void add_step_rows(kt_table *tb, const kt_rank *r, const kt_step *steps, size_t n, bool gpu)
{
    for (size_t k = 0; k < n; k++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, P_RANK, r->rank);
        kt_table_set_str(tb, P_SIDE, gpu ? "gpu" : "cpu");
        kt_table_set_int(tb, P_STEP, steps[k].num);
        kt_table_set_int(tb, P_TS, steps[k].ts);
        kt_table_set_int(tb, P_DUR, steps[k].dur);
        int64_t dev = kt_event_pid(r, steps[k].ev);
        if (gpu && !kt_id_is_str(dev)) kt_table_set_int(tb, P_DEVICE, dev);
    }
}

/* ---- table "launch_apis": calls that enqueued GPU work, by name --------- */
enum { L_RANK, L_NAME, L_CALLS, L_GPU_EVENTS };

static kt_table *launch_table(void)
{
    static const col_spec cols[] = {
        { "rank", KT_COL_INT }, { "name", KT_COL_STR }, { "calls", KT_COL_INT },
        { "gpu_events", KT_COL_INT }
    };
    return new_table("launch_apis", cols, sizeof cols / sizeof cols[0]);
}

typedef struct launch_api {
    uint32_t name;
    int64_t calls, gpu_events;
} launch_api;

/* Rows in order of first appearance in the file: the index's launched
 * groups are in their calls' file order (no walk over every event).      */
static bool add_launch_rows(kt_table *tb, const kt_trace *t, const kt_rank *r)
{
    const kt_index *idx = r->idx;
    size_t ncalls = 0, napis = 0;
    for (size_t g = 0; g < idx->launched_len; g += 1 + idx->launched[g]) ncalls++;
    /* by name id: a launch group's API is one array access away (a hash
     * map was most of this table's cost on 500 k launches) */
    size_t nnames = kt_strtab_count(t->strs) + 1; /* the last: calls without a name */
    uint32_t *slot_of = kt_none_array(nnames);
    launch_api *apis = malloc((ncalls < nnames ? ncalls + 1 : nnames) * sizeof *apis);
    bool ok = apis && slot_of;
    for (size_t g = 0; ok && g < idx->launched_len; g += 1 + idx->launched[g]) {
        uint32_t call = kt_gpu_launcher(r, idx->launched[g + 1]), name = r->ev.name[call];
        if (name >= nnames) name = (uint32_t)nnames - 1;
        if (slot_of[name] == KT_NONE) {
            slot_of[name] = (uint32_t)napis;
            apis[napis++] = (launch_api){ r->ev.name[call], 0, 0 };
        }
        apis[slot_of[name]].calls++;
        apis[slot_of[name]].gpu_events += idx->launched[g];
    }
    for (size_t k = 0; ok && k < napis; k++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, L_RANK, r->rank);
        kt_table_set_str(tb, L_NAME, kt_strtab_get(t->strs, apis[k].name));
        kt_table_set_int(tb, L_CALLS, apis[k].calls);
        kt_table_set_int(tb, L_GPU_EVENTS, apis[k].gpu_events);
    }
    free(slot_of);
    free(apis);
    return ok;
}

/* ---- kt_info ---------------------------------------------------------------- */
enum { T_RANKS, T_EVENTS, T_STREAMS, T_STEPS, T_LAUNCH, T__COUNT };

static bool add_rank(kt_table **tb, const kt_trace *t, const kt_rank *r)
{
    if (!add_rank_row(tb[T_RANKS], t, r) || !add_event_rows(tb[T_EVENTS], t, r)) return false;
    add_stream_rows(tb[T_STREAMS], r);
    add_step_rows(tb[T_STEPS], r, r->idx->cpu_steps, r->idx->ncpu_steps, false);
    add_step_rows(tb[T_STEPS], r, r->idx->gpu_steps, r->idx->ngpu_steps, true);
    return add_launch_rows(tb[T_LAUNCH], t, r);
}

kt_status kt_info(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out)
{
    kt_table *tb[T__COUNT] = { ranks_table(), events_table(), streams_table(), steps_table(),
                               launch_table() };
    bool ok = true;
    for (size_t k = 0; k < T__COUNT; k++) ok = ok && tb[k];
    for (size_t k = 0; ok && k < t->nranks; k++)
        if (kt_rank_selected(sel, t->ranks[k]->rank)) ok = add_rank(tb, t, t->ranks[k]);
    for (size_t k = 0; k < T__COUNT; k++) ok = ok && !kt_table_failed(tb[k]);
    kt_tables *ts = ok ? kt_tables_new() : NULL;
    for (size_t k = 0; k < T__COUNT; k++) {
        if (ts && kt_tables_add(ts, tb[k])) continue;
        if (!ts) kt_table_free(tb[k]);
        ok = false;
    }
    if (!ok) {
        kt_tables_free(ts);
        return KT_ENOMEM;
    }
    *out = ts;
    return KT_OK;
}
