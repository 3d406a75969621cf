/*
 * cache_map.c — a rank from its cache file, mapped instead of parsed.
 *
 * The file is mapped private and writable: the event columns and typed
 * args point straight into the mapping (no copy; pages come from the page
 * cache), and the few values that must change — string ids, when this
 * run's string table gives the rank's strings other ids than the file's
 * local ones — are rewritten in place, copy-on-write, never in the file.
 * A cache file is trusted only after its header, key, layout, path, every
 * section's bounds, sizes and checksum check out, every count is what its
 * section's length holds, every event's typed args are in the args
 * section, and every string id and index entry it rewrites or copies is
 * in range; anything else returns false and the caller parses the input
 * (and rewrites the cache file), saying why when the file was this
 * input's (header and key right) and still rejected.
 * The checksums detect damage, not forgery: the cache directory is the
 * user's own, and columns used as they are (event ids, id references) are
 * not checked value by value — that pass would cost as much as the read.
 */
#include "cache.h"
#include "model/index.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct mapping {
    unsigned char *base;
    size_t len;
    kt_cache_header h;
} mapping;

static const void *sec_ptr(const mapping *m, int id) { return m->base + m->h.sec[id].off; }
static uint64_t sec_len(const mapping *m, int id) { return m->h.sec[id].len; }

static bool header_ok(mapping *m, const kt_cache_key *key)
{
    if (m->len < sizeof m->h) return false;
    memcpy(&m->h, m->base, sizeof m->h);
    const kt_cache_header *h = &m->h;
    return !memcmp(h->magic, KT_CACHE_MAGIC, sizeof h->magic) && h->version == KT_CACHE_VERSION &&
           h->endian == KT_CACHE_ENDIAN && h->layout == kt_cache_layout() && h->file_bytes == m->len &&
           h->header_sum == kt_cache_sum_of(h, offsetof(kt_cache_header, header_sum)) &&
           !memcmp(&h->key, key, sizeof *key);
}

/* The checksums of a set of sections (bins[i] == bin), on one thread. */
typedef struct sum_job {
    const mapping *m;
    const int *bins;
    int bin;
    bool ok;
} sum_job;

static void *check_sums(void *arg)
{
    sum_job *j = arg;
    j->ok = true;
    for (int i = 0; i < KT_CS__COUNT && j->ok; i++) {
        const kt_cache_section *s = &j->m->h.sec[i];
        if (j->bins[i] == j->bin) j->ok = kt_cache_sum_of(j->m->base + s->off, s->len) == s->sum;
    }
    return NULL;
}

/* Bounds of every section, then their checksums on two threads, sections
 * split into two bins of about equal bytes (largest first): reading every
 * byte of the file is most of what mapping it costs.                    */
static bool sections_ok(const mapping *m)
{
    int bins[KT_CS__COUNT];
    uint64_t load[2] = { 0, 0 };
    bool done[KT_CS__COUNT] = { false };
    for (int i = 0; i < KT_CS__COUNT; i++) {
        const kt_cache_section *s = &m->h.sec[i];
        if (s->off < sizeof m->h || s->off % KT_CACHE_ALIGN || s->off > m->len || s->len > m->len - s->off)
            return false;
    }
    for (int k = 0; k < KT_CS__COUNT; k++) {
        int big = -1;
        for (int i = 0; i < KT_CS__COUNT; i++)
            if (!done[i] && (big < 0 || m->h.sec[i].len > m->h.sec[big].len)) big = i;
        done[big] = true;
        bins[big] = load[1] < load[0];
        load[bins[big]] += m->h.sec[big].len;
    }
    sum_job a = { .m = m, .bins = bins, .bin = 0 }, b = { .m = m, .bins = bins, .bin = 1 };
    kt_run_pair(check_sums, &a, &b, true);
    return a.ok && b.ok;
}

/* Section id holds exactly n values of elem bytes.  Divides the section's
 * length rather than multiplying the count: a count read from the file is
 * any 64-bit value, and n * elem could wrap to the length of an empty
 * section.                                                               */
static bool holds(const mapping *m, int id, uint64_t n, uint64_t elem)
{
    uint64_t len = sec_len(m, id);
    return len % elem == 0 && len / elem == n;
}

static bool index_sizes_ok(const mapping *m, const kt_cache_scalars *s)
{
    bool h = s->has_index != 0;
    return s->has_index <= 1 && s->nstream_events <= s->nev && s->launched_len <= 2 * s->nev &&
           s->ncpu_steps <= s->nev && s->ngpu_steps <= s->nev &&
           holds(m, KT_CS_IDX_STREAMS, h ? s->nstreams : 0, sizeof(kt_cache_stream)) &&
           holds(m, KT_CS_IDX_STREAM_EVENTS, h ? s->nstream_events : 0, 4) &&
           holds(m, KT_CS_IDX_LINK, h ? s->nev : 0, 4) && holds(m, KT_CS_IDX_LAUNCHED, h ? s->launched_len : 0, 4) &&
           holds(m, KT_CS_IDX_CPU_STEPS, h ? s->ncpu_steps : 0, sizeof(kt_cache_step)) &&
           holds(m, KT_CS_IDX_GPU_STEPS, h ? s->ngpu_steps : 0, sizeof(kt_cache_step));
}

/* Every section holds as many values as the scalars say, and no count is
 * beyond what the model's 32-bit indexes can address.                    */
static bool sizes_ok(const mapping *m, const kt_cache_scalars *s)
{
    uint64_t n = s->nev;
    static const struct { int id; uint64_t elem; } per_event[] = {
        { KT_CS_TS, 8 }, { KT_CS_DUR, 8 }, { KT_CS_NAME, 4 }, { KT_CS_CAT, 4 }, { KT_CS_PH, 1 },
        { KT_CS_KIND, 1 }, { KT_CS_NARGS, 1 }, { KT_CS_THREAD, 4 },
        { KT_CS_CORR, 4 }, { KT_CS_EXT_ID, 4 }, { KT_CS_ARGI, 4 }, { KT_CS_ARGS_AT, 8 },
    };
    if (n > KT_EVENTS_MAX || s->nargs > KT_ARGS_MAX || s->nids > KT_ID_REFS_MAX || s->nthreads > KT_THREADS_MAX ||
        s->nstrings >= KT_NONE)
        return false;
    for (size_t i = 0; i < sizeof per_event / sizeof *per_event; i++)
        if (!holds(m, per_event[i].id, n, per_event[i].elem)) return false;
    return holds(m, KT_CS_ARGS, s->nargs, sizeof(kt_arg)) && holds(m, KT_CS_IDS, s->nids, 8) &&
           holds(m, KT_CS_THREADS, s->nthreads, sizeof(kt_thread)) && holds(m, KT_CS_XCAT_ID, s->nxcat, 4) &&
           holds(m, KT_CS_XCAT_COUNT, s->nxcat, 8) && holds(m, KT_CS_DEVICES, s->ndevices, 4) &&
           holds(m, KT_CS_STROFF, s->nstrings + 1, 8) && (s->has_meta || sec_len(m, KT_CS_META) == 0) &&
           index_sizes_ok(m, s);
}

/* ---- strings --------------------------------------------------------------------- */
typedef struct remap {
    uint32_t *global; /* by local id */
    uint32_t n;
    bool identity;    /* global[i] == i for every i: nothing to rewrite */
} remap;

static bool intern_strings(const mapping *m, uint32_t n, kt_strtab *strs, remap *rm)
{
    const uint64_t *off = sec_ptr(m, KT_CS_STROFF);
    const char *bytes = sec_ptr(m, KT_CS_STRBYTES);
    uint64_t total = sec_len(m, KT_CS_STRBYTES);
    *rm = (remap){ .global = malloc((n ? n : 1) * sizeof *rm->global), .n = n, .identity = true };
    if (!rm->global || off[0] != 0 || off[n] != total) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (off[i + 1] < off[i] || off[i + 1] > total) return false;
        rm->global[i] = kt_strtab_intern(strs, bytes + off[i], off[i + 1] - off[i]);
        if (rm->global[i] == KT_NONE) return false;
        rm->identity &= rm->global[i] == i;
    }
    return true;
}

/* One string id through the map; false when the file's id is out of range. */
static bool map_id(const remap *rm, uint32_t *id)
{
    if (*id == KT_NONE) return true;
    if (*id >= rm->n) return false;
    if (!rm->identity) *id = rm->global[*id];
    return true;
}

/* When the ids come out the same (one rank, the common case) the columns
 * are left alone: no pass over them (the checksums already vouch for their
 * bytes), and no page copied.                                            */
static bool map_column(const remap *rm, uint32_t *col, size_t n)
{
    if (rm->identity) return true;
    for (size_t i = 0; i < n; i++)
        if (!map_id(rm, &col[i])) return false;
    return true;
}

static bool map_args(const remap *rm, kt_arg *args, size_t n)
{
    if (rm->identity) return true;
    for (size_t i = 0; i < n; i++) {
        kt_arg *a = &args[i];
        if (a->type > KT_ARGT_STR) return false;
        if (a->key >= KT_ARG_DYNAMIC) {
            uint32_t id = a->key - KT_ARG_DYNAMIC;
            if (!map_id(rm, &id)) return false;
            a->key = KT_ARG_DYNAMIC + id;
        }
        if (a->type == KT_ARGT_STR) {
            uint32_t id = a->v.s;
            if (!map_id(rm, &id)) return false;
            a->v.s = id;
        }
    }
    return true;
}

/* ---- the rank ---------------------------------------------------------------------- */
static void set_scalars(kt_rank *r, const kt_cache_scalars *s)
{
    r->world_size = (int)s->world_size;
    r->schema_version = s->schema_version;
    r->base_time_ns = s->base_time_ns;
    r->gzip = s->gzip;
    r->file_bytes = s->file_bytes;
    r->json_bytes = s->json_bytes;
    r->total_events = s->total_events;
    r->ns_resolution = s->ns_resolution;
    r->shape_args = s->shape_args;
    r->events_end = s->events_end;
    r->events_open = s->events_open;
    r->has_base_time = s->has_base_time;
    memcpy(r->by_ph, s->by_ph, sizeof r->by_ph);
    r->summary.first_ts = s->first_ts;
    r->summary.last_end = s->last_end;
    r->summary.origin = s->origin;
    r->summary.gpu_work = s->gpu_work;
    r->summary.hip_calls = s->hip_calls;
    r->summary.cuda_calls = s->cuda_calls;
    r->summary.mtia_calls = s->mtia_calls;
}

static void point_columns(kt_rank *r, const mapping *m, const kt_cache_scalars *s)
{
    kt_events *e = &r->ev;
#define P(col, id) e->col = (void *)sec_ptr(m, id)
    P(ts, KT_CS_TS); P(dur, KT_CS_DUR); P(name, KT_CS_NAME); P(cat, KT_CS_CAT); P(ph, KT_CS_PH);
    P(kind, KT_CS_KIND); P(nargs, KT_CS_NARGS); P(thread, KT_CS_THREAD); P(threads, KT_CS_THREADS);
    P(corr, KT_CS_CORR); P(ext_id, KT_CS_EXT_ID); P(argi, KT_CS_ARGI);
    P(args_at, KT_CS_ARGS_AT);
#undef P
    e->n = e->cap = s->nev;
    e->nthreads = e->cap_threads = (uint32_t)s->nthreads;
    e->mapped = true;
}

/* Every event's thread slot names a thread of the table, and its typed
 * args are in the args section (the analyses read args[argi + k]).       */
static bool events_ok(const kt_rank *r)
{
    const kt_events *e = &r->ev;
    uint64_t bad = 0;
    for (size_t i = 0; i < e->n; i++)
        bad |= (e->thread[i] >= e->nthreads) | (e->nargs[i] && (uint64_t)e->argi[i] + e->nargs[i] > r->nargs);
    return !bad;
}

/* The id table, re-put value by value so its hash is rebuilt; each value
 * must get the next index, as when it was written.                       */
static bool restore_ids(kt_rank *r, const mapping *m, uint64_t n, const remap *rm)
{
    const int64_t *v = sec_ptr(m, KT_CS_IDS);
    for (uint64_t i = 0; i < n; i++) {
        int64_t x = v[i];
        int32_t col;
        if (kt_id_is_str(x)) {
            uint32_t id = kt_id_str(x);
            if (!map_id(rm, &id) || id == KT_NONE) return false;
            x = KT_STRID_TAG | id;
        }
        if ((x >= KT_ID_SMALL_MIN && x <= KT_ID_SMALL_MAX) || !kt_rank_id_put_big(r, x, &col) ||
            r->ids.n != i + 1)
            return false;
    }
    return true;
}

/* A string-id table copied out of the mapping, in this run's ids. */
static bool copy_strids(const mapping *m, int id, size_t n, const remap *rm, uint32_t **out)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out) return false;
    memcpy(*out, sec_ptr(m, id), n * sizeof **out);
    for (size_t i = 0; i < n; i++)
        if (!map_id(rm, &(*out)[i])) return false;
    return true;
}

static bool restore_tables(kt_rank *r, const mapping *m, const kt_cache_scalars *s, const remap *rm)
{
    r->nxcat = s->nxcat;
    r->ndevices = s->ndevices;
    r->xcat_count = malloc((s->nxcat ? s->nxcat : 1) * sizeof *r->xcat_count);
    if (!r->xcat_count || !copy_strids(m, KT_CS_XCAT_ID, s->nxcat, rm, &r->xcat_id) ||
        !copy_strids(m, KT_CS_DEVICES, s->ndevices, rm, &r->device_names))
        return false;
    memcpy(r->xcat_count, sec_ptr(m, KT_CS_XCAT_COUNT), s->nxcat * sizeof *r->xcat_count);
    if (s->backend > KT_NONE) return false;
    r->backend = (uint32_t)s->backend;
    if (!map_id(rm, &r->backend)) return false;
    if (s->has_meta && !(r->meta_json = strndup(sec_ptr(m, KT_CS_META), sec_len(m, KT_CS_META))))
        return false;
    return true;
}

static bool restore_diags(const mapping *m, kt_file_job *j)
{
    const unsigned char *p = sec_ptr(m, KT_CS_DIAGS), *end = p + sec_len(m, KT_CS_DIAGS);
    while (p < end) {
        uint32_t lv, len;
        int64_t off;
        if ((size_t)(end - p) < 16) return false;
        memcpy(&lv, p, 4);
        memcpy(&len, p + 4, 4);
        memcpy(&off, p + 8, 8);
        p += 16;
        if (lv > KT_DIAG_ERROR || len > (size_t)(end - p)) return false;
        if (!kt_diags_add(&j->diags, (kt_diag_level)lv, j->path, off, "%.*s", (int)len, (const char *)p))
            return false;
        p += len;
    }
    return true;
}

/* ---- the indexes: copied out (kt_index_free frees them), every event id
 * checked against the rank's events --------------------------------------------- */
static uint32_t *copy_ids(const mapping *m, int id, size_t n, uint64_t below, bool none_ok)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!out) return NULL;
    memcpy(out, sec_ptr(m, id), n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        if (out[i] >= below && !(none_ok && out[i] == KT_NONE)) {
            free(out);
            return NULL;
        }
    return out;
}

static kt_step *copy_steps(const mapping *m, int id, size_t n, uint64_t nev)
{
    const kt_cache_step *c = sec_ptr(m, id);
    kt_step *out = malloc((n ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; i++) {
        if (c[i].ev < 0 || (uint64_t)c[i].ev >= nev) {
            free(out);
            return NULL;
        }
        out[i] = (kt_step){ .num = c[i].num, .ev = (uint32_t)c[i].ev, .ts = c[i].ts, .dur = c[i].dur };
    }
    return out;
}

static bool fill_streams(kt_index *x, const mapping *m, const kt_cache_scalars *s)
{
    const kt_cache_stream *c = sec_ptr(m, KT_CS_IDX_STREAMS);
    if (!(x->streams = calloc(s->nstreams ? s->nstreams : 1, sizeof *x->streams))) return false;
    x->nstreams = s->nstreams;
    for (size_t i = 0; i < s->nstreams; i++) {
        if (c[i].first > s->nstream_events || c[i].n > s->nstream_events - c[i].first ||
            c[i].stream < INT32_MIN || c[i].stream > INT32_MAX)
            return false;
        x->streams[i] = (kt_gpu_stream){ .device = c[i].device, .stream = (int32_t)c[i].stream,
                                         .ev = x->stream_events + c[i].first, .n = c[i].n };
    }
    return true;
}

/* Links: a GPU-side event's (kernel, memcpy, memset, cuda_sync: as
 * model/index_build.h) is its launching call, a call's is its group.    */
static bool links_ok(const kt_rank *r, const kt_index *x)
{
    for (size_t i = 0; i < r->ev.n; i++) {
        uint32_t l = x->link[i];
        bool gpu_side = kt_kind_is_gpu(r->ev.kind[i]) || r->ev.kind[i] == KT_K_CUDA_SYNC;
        if (l != KT_NONE && l >= (gpu_side ? r->ev.n : x->launched_len)) return false;
    }
    return true;
}

static bool restore_index(kt_rank *r, const mapping *m, const kt_cache_scalars *s)
{
    kt_index *x = calloc(1, sizeof *x);
    if (!x) return false;
    pthread_mutex_init(&x->lazy_lock, NULL);
    atomic_init(&x->call_tree_state, 0);
    atomic_init(&x->flows_state, 0);
    x->launched_len = s->launched_len;
    x->ncpu_steps = s->ncpu_steps;
    x->ngpu_steps = s->ngpu_steps;
    x->cpu_step_maxdur = s->cpu_step_maxdur;
    x->gpu_step_maxdur = s->gpu_step_maxdur;
    bool ok = (x->stream_events = copy_ids(m, KT_CS_IDX_STREAM_EVENTS, s->nstream_events, s->nev, false)) &&
              (x->link = copy_ids(m, KT_CS_IDX_LINK, s->nev, UINT32_MAX, true)) &&
              (x->launched = copy_ids(m, KT_CS_IDX_LAUNCHED, s->launched_len, s->nev + 1, false)) &&
              (x->cpu_steps = copy_steps(m, KT_CS_IDX_CPU_STEPS, s->ncpu_steps, s->nev)) &&
              (x->gpu_steps = copy_steps(m, KT_CS_IDX_GPU_STEPS, s->ngpu_steps, s->nev)) &&
              fill_streams(x, m, s) && links_ok(r, x);
    if (!ok) {
        kt_index_free(x);
        return false;
    }
    r->idx = x;
    return true;
}

/* NULL, or why the file's contents were rejected. */
static const char *build_rank(kt_rank *r, const mapping *m, kt_file_job *j, kt_strtab *strs, bool with_index)
{
    kt_cache_scalars s;
    if (sec_len(m, KT_CS_SCALARS) != sizeof s) return "its scalars section has the wrong size";
    memcpy(&s, sec_ptr(m, KT_CS_SCALARS), sizeof s);
    if (!sizes_ok(m, &s)) return "a count disagrees with its section's length";
    remap rm;
    bool ok = intern_strings(m, (uint32_t)s.nstrings, strs, &rm);
    set_scalars(r, &s);
    point_columns(r, m, &s);
    r->args = (kt_arg *)sec_ptr(m, KT_CS_ARGS);
    r->nargs = r->cap_args = s.nargs;
    ok = ok && events_ok(r) && map_column(&rm, r->ev.name, s.nev) && map_column(&rm, r->ev.cat, s.nev) &&
         map_args(&rm, r->args, s.nargs) && restore_ids(r, m, s.nids, &rm) && restore_tables(r, m, &s, &rm) &&
         restore_diags(m, j) && (!with_index || !s.has_index || restore_index(r, m, &s));
    j->dist_rank = s.dist_rank;
    free(rm.global);
    return ok ? NULL : "a value is out of range (or memory ran out)";
}

static bool map_file(const char *name, mapping *m)
{
    int fd = open(name, O_RDONLY);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size >= sizeof m->h;
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE; /* one pass over the page cache, not a fault per page */
#endif
    /* Populated read-only, then made writable: populating a writable private
     * mapping would copy every page; this way only pages written are.     */
    void *p = ok ? mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED) return false;
    if (mprotect(p, (size_t)st.st_size, PROT_READ | PROT_WRITE) != 0) {
        munmap(p, (size_t)st.st_size);
        return false;
    }
    m->base = p;
    m->len = (size_t)st.st_size;
    return true;
}

bool kt_cache_map(const char *dir, const kt_cache_key *key, const char *abs_path, kt_file_job *j,
                  kt_strtab *strs, bool with_index, const char **why)
{
    char name[4096];
    mapping m = { 0 };
    *why = NULL;
    if (!kt_cache_file_name(dir, key, name, sizeof name) || !map_file(name, &m)) return false;
    size_t plen = strlen(abs_path);
    bool ours = header_ok(&m, key);
    if (ours && !sections_ok(&m)) *why = "a section is outside the file or fails its checksum";
    if (!ours || *why || sec_len(&m, KT_CS_PATH) != plen || memcmp(sec_ptr(&m, KT_CS_PATH), abs_path, plen) != 0) {
        munmap(m.base, m.len);
        return false;
    }
    kt_rank *r = kt_rank_new();
    if (!r) {
        munmap(m.base, m.len);
        return false;
    }
    r->cache_map = m.base;
    r->cache_map_len = m.len;
    if (!(r->file = strdup(j->path)) || (*why = build_rank(r, &m, j, strs, with_index))) {
        kt_rank_free(r);
        kt_diags_clear(&j->diags);
        j->dist_rank = -1;
        return false;
    }
    j->rank = r;
    return true;
}
