/*
 * rocprof_csv.c — rocprofv3's CSV output (`--output-format csv`) into the
 * model: a directory of one run's *_trace.csv files, or one of them (its
 * siblings with the same prefix are read with it).
 *
 * What a file holds is told by its header, never its name: Kernel_Name →
 * dispatches, Direction → copies, Domain + Function → API calls and
 * markers (by each row's domain).  Columns are found by name, so both the
 * older set (integer Agent_Id, no Stream_Id) and the newer one ("Agent 4",
 * Stream_Id, rocpd's GUID column and spellings) read the same.  Agents are
 * numbered as devices in order of their ids among the kernels' agents.
 */
#include "load/csv_rows.h"
#include "load/readers.h"
#include "rocprof_common.h"
#include "model/i64map.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct csv_run {
    kt_build *b;
    kt_agent_map agents;
    kt_i64map seen_calls; /* (pid, correlation id) of API calls read: a call
                             in two files of the run counts once      */
    uint64_t rows, dropped;
} csv_run;

#define COLS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static bool row_times(csv_run *run, const kt_csv *c, int start, int end, int64_t *ts, int64_t *dur)
{
    int64_t a, z;
    if (!kt_csv_int(c, start, &a) || !kt_csv_int(c, end, &z) || z < a) {
        run->dropped++;
        return false;
    }
    *ts = a;
    *dur = z - a;
    return true;
}

static int64_t int_or(const kt_csv *c, int col, int64_t dflt)
{
    int64_t v;
    return kt_csv_int(c, col, &v) ? v : dflt;
}

static uint32_t field_str(csv_run *run, kt_csv_field f) { return kt_build_str(run->b, f.s, f.n); }

/* Kernel agents numbered by id: a first pass over the kernel file. */
static void number_agents(csv_run *run, const char *text, size_t len)
{
    kt_csv c;
    int64_t ids[256];
    size_t n = 0;
    if (kt_csv_open(&c, text, len)) {
        int col = kt_csv_col(&c, COLS("Agent_Id"));
        while (col >= 0 && kt_csv_next_cols(&c, (size_t)col + 1) && n < 256) {
            int64_t a;
            if (!kt_csv_int(&c, col, &a)) continue;
            size_t k = 0;
            while (k < n && ids[k] != a) k++;
            if (k == n) ids[n++] = a;
        }
    }
    kt_csv_close(&c);
    for (size_t i = 1; i < n; i++) /* sort: few agents */
        for (size_t k = i; k > 0 && ids[k - 1] > ids[k]; k--) {
            int64_t t = ids[k];
            ids[k] = ids[k - 1], ids[k - 1] = t;
        }
    for (size_t i = 0; i < n; i++) kt_agent_add(&run->agents, ids[i], (int64_t)i, true);
}

static void read_kernels(csv_run *run, kt_csv *c)
{
    int agent = kt_csv_col(c, COLS("Agent_Id")), queue = kt_csv_col(c, COLS("Queue_Id")),
        stream = kt_csv_col(c, COLS("Stream_Id")), name = kt_csv_col(c, COLS("Kernel_Name")),
        corr = kt_csv_col(c, COLS("Correlation_Id")), start = kt_csv_col(c, COLS("Start_Timestamp")),
        end = kt_csv_col(c, COLS("End_Timestamp")),
        lds = kt_csv_col(c, COLS("LDS_Block_Size", "Group_Segment_Size")),
        g[3] = { kt_csv_col(c, COLS("Grid_Size_X")), kt_csv_col(c, COLS("Grid_Size_Y")), kt_csv_col(c, COLS("Grid_Size_Z")) },
        w[3] = { kt_csv_col(c, COLS("Workgroup_Size_X")), kt_csv_col(c, COLS("Workgroup_Size_Y")),
                 kt_csv_col(c, COLS("Workgroup_Size_Z")) };
    while (kt_csv_next(c) && !run->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_KERNEL);
        run->rows++;
        if (!row_times(run, c, start, end, &op.ts, &op.dur)) continue;
        op.device = kt_agent_gpu(&run->agents, int_or(c, agent, 0));
        if (!kt_csv_int(c, stream, &op.stream)) op.stream = int_or(c, queue, 0);
        op.corr = int_or(c, corr, -1);
        op.name = field_str(run, kt_csv_get(c, name));
        op.shared_mem = int_or(c, lds, -1);
        for (int k = 0; k < 3; k++) op.grid[k] = int_or(c, g[k], 0), op.block[k] = int_or(c, w[k], 0);
        kt_build_gpu(run->b, &op);
    }
}

static void read_copies(csv_run *run, kt_csv *c)
{
    int dir = kt_csv_col(c, COLS("Direction", "Operation")), stream = kt_csv_col(c, COLS("Stream_Id")),
        src = kt_csv_col(c, COLS("Source_Agent_Id")), dst = kt_csv_col(c, COLS("Destination_Agent_Id")),
        corr = kt_csv_col(c, COLS("Correlation_Id")), start = kt_csv_col(c, COLS("Start_Timestamp")),
        end = kt_csv_col(c, COLS("End_Timestamp")), bytes = kt_csv_col(c, COLS("Bytes", "Size"));
    while (kt_csv_next(c) && !run->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_MEMCPY);
        run->rows++;
        if (!row_times(run, c, start, end, &op.ts, &op.dur)) continue;
        kt_csv_field d = kt_csv_get(c, dir);
        const char *name = kt_rocprof_copy_name(d.s, d.n);
        op.name = kt_build_str(run->b, name, strlen(name));
        int64_t to = kt_agent_device(&run->agents, int_or(c, dst, -1));
        op.device = to >= 0 ? to : kt_agent_gpu(&run->agents, int_or(c, src, 0));
        op.stream = int_or(c, stream, 0);
        op.corr = int_or(c, corr, -1);
        op.bytes = int_or(c, bytes, -1);
        kt_build_gpu(run->b, &op);
    }
}

static void read_calls(csv_run *run, kt_csv *c)
{
    int domain = kt_csv_col(c, COLS("Domain")), fn = kt_csv_col(c, COLS("Function")),
        pid = kt_csv_col(c, COLS("Process_Id")), tid = kt_csv_col(c, COLS("Thread_Id")),
        corr = kt_csv_col(c, COLS("Correlation_Id")), start = kt_csv_col(c, COLS("Start_Timestamp")),
        end = kt_csv_col(c, COLS("End_Timestamp"));
    while (kt_csv_next(c) && !run->b->oom) {
        kt_csv_field d = kt_csv_get(c, domain);
        kt_host_op op = { .kind = kt_rocprof_domain_kind(d.s, d.n) };
        run->rows++;
        if (op.kind == KT_K_OTHER || !row_times(run, c, start, end, &op.ts, &op.dur)) continue;
        op.corr = int_or(c, corr, -1);
        op.pid = int_or(c, pid, 0);
        if (op.corr >= 0 && run->seen_calls.key) { /* same process and id: the same call */
            uint32_t *seen = kt_i64map_slot(&run->seen_calls, op.corr ^ (op.pid << 40), KT_NONE);
            if (*seen == (uint32_t)op.kind) continue;
            *seen = (uint32_t)op.kind;
        }
        op.tid = int_or(c, tid, 0);
        op.name = field_str(run, kt_csv_get(c, fn));
        if (op.kind == KT_K_USER_ANNOTATION) op.corr = -1;
        kt_build_host(run->b, &op);
    }
}

typedef enum { CSV_NONE, CSV_KERNELS, CSV_COPIES, CSV_CALLS } csv_kind;

static csv_kind kind_of(const kt_csv *c)
{
    if (kt_csv_col(c, COLS("Kernel_Name")) >= 0) return CSV_KERNELS;
    if (kt_csv_col(c, COLS("Direction")) >= 0 && kt_csv_col(c, COLS("Start_Timestamp")) >= 0) return CSV_COPIES;
    if (kt_csv_col(c, COLS("Domain")) >= 0 && kt_csv_col(c, COLS("Function")) >= 0) return CSV_CALLS;
    return CSV_NONE;
}

/* One file's rows (pass 0: kernels only, pass 1: the rest). */
static void read_text(csv_run *run, const char *text, size_t len, int pass)
{
    kt_csv c;
    if (kt_csv_open(&c, text, len)) {
        csv_kind k = kind_of(&c);
        if (pass == 0 && k == CSV_KERNELS) read_kernels(run, &c);
        if (pass == 1 && k == CSV_COPIES) read_copies(run, &c);
        if (pass == 1 && k == CSV_CALLS) read_calls(run, &c);
    }
    if (c.oom) run->b->oom = true;
    kt_csv_close(&c);
}

/* ---- the files of one run ------------------------------------------------ */
typedef struct file_set {
    char **path;
    size_t n;
} file_set;

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

/* The trace files in dir whose name starts with prefix (sorted). */
static bool list_files(const char *dir, const char *prefix, file_set *fs)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, "trace.csv") || strncmp(e->d_name, prefix, strlen(prefix))) continue;
        char **p = realloc(fs->path, (fs->n + 1) * sizeof *p);
        if (!p) break;
        fs->path = p;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        if (!(fs->path[fs->n] = malloc(n))) break;
        snprintf(fs->path[fs->n++], n, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < fs->n; i++)
        for (size_t k = i; k > 0 && strcmp(fs->path[k - 1], fs->path[k]) > 0; k--) {
            char *t = fs->path[k];
            fs->path[k] = fs->path[k - 1], fs->path[k - 1] = t;
        }
    return true;
}

static void free_files(file_set *fs)
{
    for (size_t i = 0; i < fs->n; i++) free(fs->path[i]);
    free(fs->path);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *d = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (d = malloc((size_t)n + 1))) *len = fread(d, 1, (size_t)n, f);
    }
    fclose(f);
    return d;
}

/* The run's other files beside one of them: same directory, same prefix
 * (the name up to "kernel_trace.csv", "hip_api_trace.csv", ...).       */
static bool sibling_files(const char *path, file_set *fs)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], prefix[1024];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    static const char *const kinds[] = { "kernel_trace.csv", "hip_api_trace.csv", "hip_runtime_trace.csv",
                                         "hip_trace.csv", "hsa_api_trace.csv", "memory_copy_trace.csv",
                                         "marker_api_trace.csv", "rccl_api_trace.csv", "rccl_trace.csv" };
    size_t keep = strlen(base);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (ends_with(base, kinds[i])) keep = strlen(base) - strlen(kinds[i]);
    if (keep == strlen(base)) return false; /* another name: read alone */
    snprintf(prefix, sizeof prefix, "%.*s", (int)keep, base);
    return list_files(dir, prefix, fs);
}

static size_t count_lines(const char *s, size_t n)
{
    size_t k = 1;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + n - p))); p++) k++;
    return k;
}

/* The model's room for the run's rows, taken at once: each file's lines
 * by what its header says it holds.                                      */
static size_t expect_rows(csv_run *run, char *const *text, const size_t *len, size_t n)
{
    size_t lines = 0, gpu = 0, kernels = 0;
    for (size_t i = 0; i < n; i++) {
        if (!text[i]) continue;
        size_t k = count_lines(text[i], len[i]);
        kt_csv c;
        csv_kind kind = kt_csv_open(&c, text[i], len[i]) ? kind_of(&c) : CSV_NONE;
        kt_csv_close(&c);
        lines += k;
        gpu += kind == CSV_KERNELS || kind == CSV_COPIES ? k : 0;
        kernels += kind == CSV_KERNELS ? k : 0;
    }
    kt_build_expect(run->b, lines + 2 * gpu, 8 * kernels + 2 * (gpu - kernels));
    return lines;
}

/* Texts of a run: agents from the kernels first, then kernels, then the
 * rest (copies need the agents the kernels ran on).                     */
static void read_texts(csv_run *run, char *const *text, const size_t *len, size_t n)
{
    size_t lines = expect_rows(run, text, len, n);
    if (!kt_i64map_init(&run->seen_calls, lines)) {
        run->b->oom = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (text[i]) number_agents(run, text[i], len[i]);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (text[i]) read_text(run, text[i], len[i], pass);
}

/* Each file held whole (held_len[i] > 0) or, when it cannot be, read. */
static void read_files(csv_run *run, const file_set *fs, kt_diags *diags)
{
    size_t n = fs->n ? fs->n : 1;
    char **text = calloc(n, sizeof *text);
    size_t *len = calloc(n, sizeof *len), *held_len = calloc(n, sizeof *held_len);
    if (!text || !len || !held_len) run->b->oom = true;
    for (size_t i = 0; text && len && held_len && i < fs->n; i++)
        if (!(text[i] = (char *)kt_read_whole(fs->path[i], &len[i], &held_len[i])) && !(text[i] = slurp(fs->path[i], &len[i])))
            kt_diags_add(diags, KT_DIAG_WARNING, fs->path[i], -1, "cannot read this file of the run (skipped)");
    if (text && len && held_len) read_texts(run, text, len, fs->n);
    for (size_t i = 0; text && held_len && i < fs->n; i++) {
        if (held_len[i]) kt_free_whole(text[i], held_len[i]);
        else free(text[i]);
    }
    free(text);
    free(len);
    free(held_len);
}

kt_status kt_read_rocprof_csv(const kt_reader_in *in, kt_build *b)
{
    csv_run run = { .b = b };
    kt_build_source(b, "rocprofv3 CSV", "rocprofv3", "ROCm");
    file_set fs = { 0 };
    bool listed = in->data ? in->is_file && sibling_files(in->path, &fs) && fs.n : list_files(in->path, "", &fs);
    if (listed) read_files(&run, &fs, in->diags);
    else if (in->data) read_texts(&run, (char *const[]){ (char *)in->data }, &in->len, 1); /* this file alone */
    free_files(&fs);
    kt_i64map_free(&run.seen_calls);
    if (b->oom) return KT_ENOMEM;
    if (run.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu rows without valid Start/End_Timestamp (skipped)",
                     (unsigned long long)run.dropped);
    if (b->r->ev.n == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1,
                     in->data ? "rocprofv3 CSV with no kernel, copy or API rows (%llu rows read)"
                              : "no rocprofv3 *_trace.csv rows in this directory (%llu rows read)",
                     (unsigned long long)run.rows);
        return KT_EINPUT;
    }
    return KT_OK;
}
