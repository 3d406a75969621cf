/*
 * cache_write.c — writing a freshly parsed rank to its cache file.
 *
 * The rank's string ids belong to a string table shared by every rank of
 * this run, so they mean nothing to a later run: the strings the rank uses
 * are written as a local table (in their id order, so a reader interning
 * them in turn keeps their relative order) and the string-id columns in
 * local ids.  Every other column is written exactly as it is in memory, so
 * a reader can point the model at the mapped file.  The file is written
 * under a temporary name and renamed into place: a reader sees a whole
 * cache file or none, and two processes writing the same one both succeed.
 */
#include "cache.h"
#include "model/index.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the rank's strings -------------------------------------------------------- */
typedef struct strmap {
    uint32_t *local;  /* by global id: local id + 1, 0 = unused */
    uint32_t nglobal; /* ids below this can be used            */
    uint32_t nlocal;
} strmap;

static void note(strmap *m, uint32_t id, bool mark)
{
    if (id == KT_NONE) return;
    if (!mark) m->nglobal = id + 1 > m->nglobal ? id + 1 : m->nglobal;
    else m->local[id] = 1;
}

/* Every string id the rank holds: to size the map (mark false), to mark. */
static void visit_strings(const kt_rank *r, strmap *m, bool mark)
{
    for (size_t i = 0; i < r->ev.n; i++) {
        note(m, r->ev.name[i], mark);
        note(m, r->ev.cat[i], mark);
    }
    for (size_t i = 0; i < r->nargs; i++) {
        const kt_arg *a = &r->args[i];
        if (a->key >= KT_ARG_DYNAMIC) note(m, a->key - KT_ARG_DYNAMIC, mark);
        if (a->type == KT_ARGT_STR) note(m, a->v.s, mark);
    }
    for (size_t i = 0; i < r->ids.n; i++)
        if (kt_id_is_str(r->ids.v[i])) note(m, kt_id_str(r->ids.v[i]), mark);
    for (size_t i = 0; i < r->nxcat; i++) note(m, r->xcat_id[i], mark);
    for (size_t i = 0; i < r->ndevices; i++) note(m, r->device_names[i], mark);
    note(m, r->backend, mark);
}

static bool strmap_build(const kt_rank *r, strmap *m)
{
    *m = (strmap){ 0 };
    visit_strings(r, m, false);
    m->local = calloc(m->nglobal ? m->nglobal : 1, sizeof *m->local);
    if (!m->local) return false;
    visit_strings(r, m, true);
    for (uint32_t g = 0; g < m->nglobal; g++)
        if (m->local[g]) m->local[g] = ++m->nlocal;
    return true;
}

static uint32_t to_local(const strmap *m, uint32_t id)
{
    return id == KT_NONE ? KT_NONE : m->local[id] - 1;
}

/* ---- sections ------------------------------------------------------------------ */
typedef struct writer {
    FILE *f;
    uint64_t pos;
    kt_cache_header h;
    kt_cache_sum sum;
    int cur;
    bool ok;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (!w->ok || n == 0) return;
    if (fwrite(p, 1, n, w->f) != n) w->ok = false;
    kt_cache_sum_add(&w->sum, p, n);
    w->pos += n;
}

static void begin(writer *w, int id)
{
    static const char zeros[KT_CACHE_ALIGN];
    size_t pad = (size_t)((KT_CACHE_ALIGN - w->pos % KT_CACHE_ALIGN) % KT_CACHE_ALIGN);
    if (w->ok && pad && fwrite(zeros, 1, pad, w->f) != pad) w->ok = false;
    w->pos += pad;
    w->cur = id;
    w->h.sec[id].off = w->pos;
    kt_cache_sum_init(&w->sum);
}

static void end(writer *w)
{
    kt_cache_section *s = &w->h.sec[w->cur];
    s->len = w->pos - s->off;
    s->sum = kt_cache_sum_final(&w->sum);
}

static void section(writer *w, int id, const void *p, size_t n)
{
    begin(w, id);
    put(w, p, n);
    end(w);
}

#define CHUNK 8192

/* A string-id column in local ids. */
static void put_strid_column(writer *w, int id, const uint32_t *col, size_t n, const strmap *m)
{
    uint32_t buf[CHUNK];
    begin(w, id);
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        for (size_t j = 0; j < k; j++) buf[j] = to_local(m, col[i + j]);
        put(w, buf, k * sizeof *buf);
    }
    end(w);
}

static void put_args(writer *w, const kt_rank *r, const strmap *m)
{
    kt_arg buf[CHUNK];
    begin(w, KT_CS_ARGS);
    for (size_t i = 0; i < r->nargs; i += CHUNK) {
        size_t k = r->nargs - i < CHUNK ? r->nargs - i : CHUNK;
        memcpy(buf, r->args + i, k * sizeof *buf);
        for (size_t j = 0; j < k; j++) {
            if (buf[j].key >= KT_ARG_DYNAMIC) buf[j].key = KT_ARG_DYNAMIC + to_local(m, buf[j].key - KT_ARG_DYNAMIC);
            if (buf[j].type == KT_ARGT_STR) buf[j].v.s = to_local(m, buf[j].v.s);
        }
        put(w, buf, k * sizeof *buf);
    }
    end(w);
}

static void put_ids(writer *w, const kt_rank *r, const strmap *m)
{
    begin(w, KT_CS_IDS);
    for (size_t i = 0; i < r->ids.n; i++) {
        int64_t v = r->ids.v[i];
        if (kt_id_is_str(v)) v = KT_STRID_TAG | to_local(m, kt_id_str(v));
        put(w, &v, sizeof v);
    }
    end(w);
}

static void put_strings(writer *w, const strmap *m, const kt_strtab *strs)
{
    uint64_t off = 0;
    begin(w, KT_CS_STROFF);
    put(w, &off, sizeof off);
    for (uint32_t g = 0; g < m->nglobal; g++)
        if (m->local[g]) {
            off += kt_strtab_len(strs, g);
            put(w, &off, sizeof off);
        }
    end(w);
    begin(w, KT_CS_STRBYTES);
    for (uint32_t g = 0; g < m->nglobal; g++)
        if (m->local[g]) put(w, kt_strtab_get(strs, g), kt_strtab_len(strs, g));
    end(w);
}

static void put_small_tables(writer *w, const kt_rank *r, const strmap *m)
{
    put_strid_column(w, KT_CS_XCAT_ID, r->xcat_id, r->nxcat, m);
    section(w, KT_CS_XCAT_COUNT, r->xcat_count, r->nxcat * sizeof *r->xcat_count);
    put_strid_column(w, KT_CS_DEVICES, r->device_names, r->ndevices, m);
    section(w, KT_CS_META, r->meta_json, r->meta_json ? strlen(r->meta_json) : 0);
}

/* Reports as records: level u32, length u32, offset i64, message bytes. */
static void put_diags(writer *w, const kt_diags *d)
{
    begin(w, KT_CS_DIAGS);
    for (size_t i = 0; i < d->n; i++) {
        uint32_t lv = (uint32_t)d->d[i].level, len = (uint32_t)strlen(d->d[i].message);
        int64_t off = d->d[i].offset;
        put(w, &lv, sizeof lv);
        put(w, &len, sizeof len);
        put(w, &off, sizeof off);
        put(w, d->d[i].message, len);
    }
    end(w);
}

static void fill_scalars(kt_cache_scalars *s, const kt_file_job *j, const strmap *m)
{
    const kt_rank *r = j->rank;
    memset(s, 0, sizeof *s);
    s->world_size = r->world_size;
    s->dist_rank = j->dist_rank;
    s->schema_version = r->schema_version;
    s->base_time_ns = r->base_time_ns;
    s->gzip = r->gzip;
    s->file_bytes = r->file_bytes;
    s->json_bytes = r->json_bytes;
    s->total_events = r->total_events;
    s->ns_resolution = r->ns_resolution;
    s->shape_args = r->shape_args;
    s->events_end = r->events_end;
    s->events_open = r->events_open;
    s->has_base_time = r->has_base_time;
    memcpy(s->by_ph, r->by_ph, sizeof s->by_ph);
    s->first_ts = r->summary.first_ts;
    s->last_end = r->summary.last_end;
    s->origin = r->summary.origin;
    s->gpu_work = r->summary.gpu_work;
    s->hip_calls = r->summary.hip_calls;
    s->cuda_calls = r->summary.cuda_calls;
    s->mtia_calls = r->summary.mtia_calls;
    s->backend = to_local(m, r->backend);
    s->nev = r->ev.n;
    s->nargs = r->nargs;
    s->nids = r->ids.n;
    s->nthreads = r->ev.nthreads;
    s->nxcat = r->nxcat;
    s->ndevices = r->ndevices;
    s->nstrings = m->nlocal;
    s->has_meta = r->meta_json != NULL;
    const kt_index *x = r->idx;
    if (!x) return;
    s->has_index = 1;
    s->nstreams = x->nstreams;
    for (size_t i = 0; i < x->nstreams; i++) s->nstream_events += x->streams[i].n;
    s->launched_len = x->launched_len;
    s->ncpu_steps = x->ncpu_steps;
    s->ngpu_steps = x->ngpu_steps;
    s->cpu_step_maxdur = x->cpu_step_maxdur;
    s->gpu_step_maxdur = x->gpu_step_maxdur;
}

/* ---- the indexes (empty sections when they were not built) --------------------- */
static void put_steps(writer *w, int id, const kt_step *st, size_t n)
{
    begin(w, id);
    for (size_t i = 0; i < n; i++) {
        kt_cache_step c = { .num = st[i].num, .ev = st[i].ev, .ts = st[i].ts, .dur = st[i].dur };
        put(w, &c, sizeof c);
    }
    end(w);
}

static void put_index(writer *w, const kt_rank *r)
{
    const kt_index *x = r->idx;
    size_t nst = x ? x->nstreams : 0, nse = 0;
    begin(w, KT_CS_IDX_STREAMS);
    for (size_t i = 0; i < nst; i++) {
        kt_cache_stream c = { .device = x->streams[i].device, .stream = x->streams[i].stream,
                              .first = (uint64_t)(x->streams[i].ev - x->stream_events), .n = x->streams[i].n };
        put(w, &c, sizeof c);
        nse += x->streams[i].n;
    }
    end(w);
    section(w, KT_CS_IDX_STREAM_EVENTS, x ? x->stream_events : NULL, nse * sizeof(uint32_t));
    section(w, KT_CS_IDX_LINK, x ? x->link : NULL, x ? r->ev.n * sizeof *x->link : 0);
    section(w, KT_CS_IDX_LAUNCHED, x ? x->launched : NULL, x ? x->launched_len * sizeof *x->launched : 0);
    put_steps(w, KT_CS_IDX_CPU_STEPS, x ? x->cpu_steps : NULL, x ? x->ncpu_steps : 0);
    put_steps(w, KT_CS_IDX_GPU_STEPS, x ? x->gpu_steps : NULL, x ? x->ngpu_steps : 0);
}

static void put_columns(writer *w, const kt_events *e, const strmap *m)
{
    size_t n = e->n;
    section(w, KT_CS_TS, e->ts, n * sizeof *e->ts);
    section(w, KT_CS_DUR, e->dur, n * sizeof *e->dur);
    put_strid_column(w, KT_CS_NAME, e->name, n, m);
    put_strid_column(w, KT_CS_CAT, e->cat, n, m);
    section(w, KT_CS_PH, e->ph, n);
    section(w, KT_CS_KIND, e->kind, n);
    section(w, KT_CS_NARGS, e->nargs, n);
    section(w, KT_CS_THREAD, e->thread, n * sizeof *e->thread);
    section(w, KT_CS_THREADS, e->threads, (size_t)e->nthreads * sizeof *e->threads);
    section(w, KT_CS_CORR, e->corr, n * sizeof *e->corr);
    section(w, KT_CS_EXT_ID, e->ext_id, n * sizeof *e->ext_id);
    section(w, KT_CS_ARGI, e->argi, n * sizeof *e->argi);
    section(w, KT_CS_ARGS_AT, e->args_at, n * sizeof *e->args_at);
}

static void put_all(writer *w, const kt_file_job *j, const char *abs_path, const strmap *m,
                    const kt_strtab *strs)
{
    kt_cache_scalars sc;
    fill_scalars(&sc, j, m);
    w->pos = 0;
    w->ok = fwrite(&w->h, sizeof w->h, 1, w->f) == 1; /* placeholder */
    w->pos = sizeof w->h;
    section(w, KT_CS_PATH, abs_path, strlen(abs_path));
    section(w, KT_CS_SCALARS, &sc, sizeof sc);
    put_strings(w, m, strs);
    put_columns(w, &j->rank->ev, m);
    put_args(w, j->rank, m);
    put_ids(w, j->rank, m);
    put_small_tables(w, j->rank, m);
    put_diags(w, &j->diags);
    put_index(w, j->rank);
}

static void finish_header(writer *w, const kt_cache_key *key)
{
    memcpy(w->h.magic, KT_CACHE_MAGIC, sizeof w->h.magic);
    w->h.version = KT_CACHE_VERSION;
    w->h.endian = KT_CACHE_ENDIAN;
    w->h.layout = kt_cache_layout();
    w->h.file_bytes = w->pos;
    w->h.key = *key;
    w->h.header_sum = kt_cache_sum_of(&w->h, offsetof(kt_cache_header, header_sum));
    if (w->ok && (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(&w->h, sizeof w->h, 1, w->f) != 1)) w->ok = false;
}

/* mkdir -p, private to the user (the cache holds their traces' contents). */
static bool make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) return false;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];
            path[i] = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST) return false;
            path[i] = c;
        }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool same_key(const kt_cache_key *a, const kt_cache_key *b)
{
    return !memcmp(a, b, sizeof *a);
}

static bool write_file(FILE *f, const kt_cache_key *key, const char *abs_path, const kt_file_job *j,
                       const kt_strtab *strs, char *err, size_t errcap)
{
    strmap m;
    if (!strmap_build(j->rank, &m)) {
        snprintf(err, errcap, "out of memory");
        return false;
    }
    writer *w = calloc(1, sizeof *w);
    bool ok = w != NULL;
    if (ok) {
        w->f = f;
        put_all(w, j, abs_path, &m, strs);
        finish_header(w, key);
        ok = w->ok && fflush(f) == 0;
    }
    if (!ok) snprintf(err, errcap, "%s", w ? strerror(errno) : "out of memory");
    free(w);
    free(m.local);
    return ok;
}

bool kt_cache_write(const char *dir, const kt_cache_key *key, const char *abs_path, const kt_file_job *j,
                    const kt_strtab *strs, char *err, size_t errcap)
{
    char final[4096], tmp[4200];
    if (!make_dirs(dir) || !kt_cache_file_name(dir, key, final, sizeof final)) {
        snprintf(err, errcap, "cannot create the cache directory %s: %s", dir, strerror(errno));
        return false;
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", final);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        snprintf(err, errcap, "cannot write in %s: %s", dir, strerror(errno));
        if (fd >= 0) close(fd), unlink(tmp);
        return false;
    }
    bool ok = write_file(f, key, abs_path, j, strs, err, errcap);
    if (fclose(f) != 0 && ok) {
        snprintf(err, errcap, "%s", strerror(errno));
        ok = false;
    }
    kt_cache_key now;
    char again[4096];
    if (ok && !(kt_cache_key_of(abs_path, &now, again, sizeof again) && same_key(&now, key))) {
        snprintf(err, errcap, "the file changed while it was read");
        ok = false;
    }
    if (ok && rename(tmp, final) != 0) {
        snprintf(err, errcap, "cannot rename into %s: %s", final, strerror(errno));
        ok = false;
    }
    if (!ok) unlink(tmp);
    return ok;
}
