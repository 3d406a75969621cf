/* test_cache_invalidate.c — the columnar cache is used only while it is
 * right: a cache file is mapped when its input is unchanged, and rebuilt
 * (never trusted) after the input is edited (even with its size and mtime
 * kept), truncated, touched or swapped with another file by rename, and
 * when the cache file itself is truncated, damaged, of another version or
 * another input's.  A cache directory that cannot be written is a note,
 * not a failure; concurrent loads share one cache file.                  */
#include "load/cache.h"
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sandbox {
    char dir[64];        /* inputs */
    char cache[96];      /* cache directory */
} sandbox;

static void sandbox_new(sandbox *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/kineta-test-cachei-XXXXXX");
    CHECK(mkdtemp(s->dir) != NULL);
    snprintf(s->cache, sizeof s->cache, "%s/cache", s->dir);
}

static void sandbox_free(sandbox *s)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    CHECK_INT(system(cmd), 0);
}

/* A two-event trace whose kernel is called `kernel` (same length: same size). */
static void write_trace(const char *path, const char *kernel, int64_t kernel_ts)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":0},\"traceEvents\":[\n"
               "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,"
               "\"ts\":100,\"dur\":5,\"args\":{\"correlation\":7,\"note\":\"raw\"}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":20,"
               "\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}}\n]}\n",
            kernel, (long long)kernel_ts);
    fclose(f);
}

static kt_trace *load(const char *path, const char *cache)
{
    kt_load_options o = { .size = sizeof o, .cache_dir = cache };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    const char *p[] = { path };
    kt_status st = kt_load(p, 1, &o, &t, &fail);
    kt_diags_free(fail);
    return st == KT_OK ? t : NULL;
}

static const char *kernel_name(const kt_trace *t)
{
    const kt_rank *r = t->ranks[0];
    for (size_t i = 0; i < r->ev.n; i++)
        if (r->ev.kind[i] == KT_K_KERNEL) return kt_strtab_get(t->strs, r->ev.name[i]);
    return "";
}

/* Load path: CHECK that it was (not) mapped, that its kernel is `kernel`
 * and that the load reported `notes` notes, each a rejected cache file.  */
static void expect_notes(const char *path, const char *cache, bool mapped, const char *kernel, int notes)
{
    kt_trace *t = load(path, cache);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->ranks[0]->cache_map != NULL, mapped);
    CHECK_STR(kernel_name(t), kernel);
    CHECK_INT(kt_diags_count(kt_trace_diags(t)), notes);
    for (size_t i = 0; i < kt_diags_count(kt_trace_diags(t)); i++) {
        const kt_diag *d = kt_diags_get(kt_trace_diags(t), i);
        CHECK_INT(d->level, KT_DIAG_INFO);
        CHECK(strstr(d->message, "its cache file was not used (") != NULL);
    }
    /* the raw args stay readable from the input */
    char *text = NULL;
    size_t len;
    CHECK_INT(kt_event_args_json(t->ranks[0], 0, &text, &len), KT_OK);
    CHECK(text && strstr(text, "\"raw\""));
    free(text);
    kt_trace_free(t);
}

static void expect(const char *path, const char *cache, bool mapped, const char *kernel)
{
    expect_notes(path, cache, mapped, kernel, 0);
}

/* Files in dir (the cache files and any temporary file left behind). */
static int count_files(const char *dir, char *last, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') {
            n++;
            int len = snprintf(last, cap, "%s/%s", dir, e->d_name);
            if (len < 0 || (size_t)len >= cap) last[0] = '\0'; /* no path rather than a cut one */
        }
    if (d) closedir(d);
    return n;
}

static void set_mtime(const char *path, time_t sec)
{
    struct timespec ts[2] = { { .tv_sec = sec }, { .tv_sec = sec } };
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

/* A new sandbox whose trace in (kernel kA) was parsed once: its cache file. */
static void cached_trace(sandbox *s, char *in, size_t incap, char *file, size_t cap)
{
    sandbox_new(s);
    snprintf(in, incap, "%s/rank0.json", s->dir);
    write_trace(in, "kA", 110);
    expect(in, s->cache, false, "kA");
    CHECK_INT(count_files(s->cache, file, cap), 1);
    CHECK(strstr(file, ".ktc") != NULL);
}

TEST(cache_is_written_then_mapped)
{
    sandbox s;
    char in[128], file[256];
    cached_trace(&s, in, sizeof in, file, sizeof file);
    expect(in, s.cache, true, "kA");
    expect(in, NULL, false, "kA"); /* no cache asked for: parsed */
    sandbox_free(&s);
}

TEST(cache_is_rebuilt_after_the_input_is_edited)
{
    sandbox s;
    sandbox_new(&s);
    char in[128], file[256];
    snprintf(in, sizeof in, "%s/rank0.json", s.dir);
    write_trace(in, "kA", 110);
    set_mtime(in, 1700000000);
    expect(in, s.cache, false, "kA");
    write_trace(in, "kB", 110); /* same size; mtime set back: only the content differs */
    set_mtime(in, 1700000000);
    expect(in, s.cache, false, "kB");
    expect(in, s.cache, true, "kB");
    write_trace(in, "kC", 111); /* a plain edit */
    expect(in, s.cache, false, "kC");
    CHECK_INT(count_files(s.cache, file, sizeof file), 1); /* rewritten in place */
    sandbox_free(&s);
}

TEST(cache_is_rebuilt_after_the_input_is_truncated)
{
    sandbox s;
    sandbox_new(&s);
    char in[128];
    snprintf(in, sizeof in, "%s/rank0.json", s.dir);
    write_trace(in, "kA", 110);
    expect(in, s.cache, false, "kA");
    struct stat st;
    CHECK(stat(in, &st) == 0);
    CHECK(truncate(in, st.st_size / 2) == 0); /* cut inside the kernel event */
    kt_trace *t = load(in, s.cache);
    if (t) { /* recovered: only what precedes the cut */
        CHECK(!t->ranks[0]->cache_map);
        CHECK_STR(kernel_name(t), "");
        CHECK(kt_diags_count(kt_trace_diags(t)) > 0);
    }
    kt_trace_free(t);
    sandbox_free(&s);
}

TEST(cache_is_rebuilt_after_the_input_is_touched)
{
    sandbox s;
    sandbox_new(&s);
    char in[128];
    snprintf(in, sizeof in, "%s/rank0.json", s.dir);
    write_trace(in, "kA", 110);
    set_mtime(in, 1700000000);
    expect(in, s.cache, false, "kA");
    expect(in, s.cache, true, "kA");
    set_mtime(in, 1700000001);
    expect(in, s.cache, false, "kA");
    expect(in, s.cache, true, "kA");
    sandbox_free(&s);
}

TEST(cache_follows_inputs_swapped_by_rename)
{
    sandbox s;
    sandbox_new(&s);
    char a[128], b[128], tmp[128];
    snprintf(a, sizeof a, "%s/a.json", s.dir);
    snprintf(b, sizeof b, "%s/b.json", s.dir);
    snprintf(tmp, sizeof tmp, "%s/tmp.json", s.dir);
    write_trace(a, "kA", 110);
    write_trace(b, "kB", 110);
    set_mtime(a, 1700000000); /* same size, same mtime: mv keeps both */
    set_mtime(b, 1700000000);
    expect(a, s.cache, false, "kA");
    expect(b, s.cache, false, "kB");
    CHECK(rename(a, tmp) == 0 && rename(b, a) == 0 && rename(tmp, b) == 0);
    expect(a, s.cache, false, "kB");
    expect(b, s.cache, false, "kA");
    expect(a, s.cache, true, "kB");
    expect(b, s.cache, true, "kA");
    sandbox_free(&s);
}

/* ---- damaged cache files ----------------------------------------------------- */
static void patch(const char *file, uint64_t off, const void *bytes, size_t n)
{
    int fd = open(file, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, bytes, n, (off_t)off) == (ssize_t)n);
    if (fd >= 0) close(fd);
}

static kt_cache_header header_of(const char *file)
{
    kt_cache_header h = { 0 };
    int fd = open(file, O_RDONLY);
    CHECK(fd >= 0 && read(fd, &h, sizeof h) == (ssize_t)sizeof h);
    if (fd >= 0) close(fd);
    return h;
}

static void copy_file(const char *from, const char *to)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    CHECK_INT(system(cmd), 0);
}

enum damage { TRUNCATED, EMPTY, FLIPPED_COLUMN, FLIPPED_HEADER, NEWER_VERSION, FOREIGN, DAMAGE_COUNT };

static void damage(enum damage how, const char *file, const char *foreign)
{
    kt_cache_header h = header_of(file);
    unsigned char x = 0x5a;
    uint32_t version = KT_CACHE_VERSION + 1;
    switch (how) {
    case TRUNCATED: CHECK(truncate(file, (off_t)(h.file_bytes - 8)) == 0); break;
    case EMPTY: CHECK(truncate(file, 0) == 0); break;
    case FLIPPED_COLUMN: patch(file, h.sec[KT_CS_TS].off + 9, &x, 1); break;
    case FLIPPED_HEADER: patch(file, offsetof(kt_cache_header, sec) + 3, &x, 1); break;
    case NEWER_VERSION: patch(file, offsetof(kt_cache_header, version), &version, sizeof version); break;
    case FOREIGN: copy_file(foreign, file); break;
    case DAMAGE_COUNT: break;
    }
}

TEST(damaged_cache_files_are_rebuilt_not_trusted)
{
    sandbox s;
    sandbox_new(&s);
    char a[128], b[128], cache_a[256], other[256], saved_b[256];
    snprintf(a, sizeof a, "%s/a.json", s.dir);
    snprintf(b, sizeof b, "%s/b.json", s.dir);
    snprintf(saved_b, sizeof saved_b, "%s/b.ktc.saved", s.dir);
    write_trace(b, "kB", 110);
    expect(b, s.cache, false, "kB");
    CHECK_INT(count_files(s.cache, other, sizeof other), 1);
    copy_file(other, saved_b); /* b's cache file: foreign to a */
    write_trace(a, "kA", 110);
    for (int how = 0; how < DAMAGE_COUNT; how++) {
        expect(a, s.cache, how != 0, "kA"); /* the first pass writes it */
        kt_cache_key key;
        char abs[4096];
        CHECK(kt_cache_key_of(a, &key, abs, sizeof abs));
        CHECK(kt_cache_file_name(s.cache, &key, cache_a, sizeof cache_a));
        damage((enum damage)how, cache_a, saved_b);
        /* a checksum that fails in a file that is a's: said; stale ones not */
        expect_notes(a, s.cache, false, "kA", how == FLIPPED_COLUMN);
    }
    expect(a, s.cache, true, "kA");
    sandbox_free(&s);
}

/* ---- crafted cache files: checksums right, counts past their sections -------- */
static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*len);
    CHECK(b && fread(b, 1, *len, f) == *len);
    fclose(f);
    return b;
}

/* Rewrite file with its section and header checksums made right again. */
static void write_summed(const char *path, unsigned char *b, size_t len)
{
    kt_cache_header h;
    memcpy(&h, b, sizeof h);
    for (int i = 0; i < KT_CS__COUNT; i++) h.sec[i].sum = kt_cache_sum_of(b + h.sec[i].off, h.sec[i].len);
    h.header_sum = kt_cache_sum_of(&h, offsetof(kt_cache_header, header_sum));
    memcpy(b, &h, sizeof h);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
}

enum craft { HUGE_NXCAT, HUGE_NDEVICES, HUGE_NSTRINGS, HUGE_NSTREAMS, HUGE_NEV, ARGS_PAST_END, CRAFT_COUNT };

/* Counts chosen so that count * element size wraps to 0 in 64 bits: the
 * sections they size are made empty, which a multiplied count matches.  */
static void craft(enum craft how, unsigned char *b)
{
    kt_cache_header *h = (kt_cache_header *)b;
    kt_cache_scalars *s = (kt_cache_scalars *)(b + h->sec[KT_CS_SCALARS].off);
    switch (how) {
    case HUGE_NXCAT:
        s->nxcat = (uint64_t)1 << 62;
        h->sec[KT_CS_XCAT_ID].len = h->sec[KT_CS_XCAT_COUNT].len = 0;
        break;
    case HUGE_NDEVICES:
        s->ndevices = (uint64_t)1 << 62;
        h->sec[KT_CS_DEVICES].len = 0;
        break;
    case HUGE_NSTRINGS:
        s->nstrings = ((uint64_t)1 << 61) - 1;
        h->sec[KT_CS_STROFF].len = 0;
        break;
    case HUGE_NSTREAMS:
        CHECK_INT(s->has_index, 1);
        s->nstreams = (uint64_t)1 << 59;
        h->sec[KT_CS_IDX_STREAMS].len = 0;
        break;
    case HUGE_NEV:
        s->nev = (uint64_t)1 << 61; /* 8-byte columns wrap; the rest do not */
        break;
    case ARGS_PAST_END: {
        uint32_t *argi = (uint32_t *)(b + h->sec[KT_CS_ARGI].off);
        unsigned char *nargs = b + h->sec[KT_CS_NARGS].off;
        argi[0] = (uint32_t)s->nargs; /* one arg just past the args section */
        nargs[0] = 1;
        break;
    }
    case CRAFT_COUNT: break;
    }
}

TEST(cache_with_counts_past_its_sections_is_rejected_with_a_note)
{
    sandbox s;
    char in[128], file[256];
    cached_trace(&s, in, sizeof in, file, sizeof file);
    size_t len = 0;
    unsigned char *good = read_file(file, &len);
    if (!good) return;
    for (int how = 0; how < CRAFT_COUNT; how++) {
        unsigned char *b = malloc(len);
        memcpy(b, good, len);
        craft((enum craft)how, b);
        write_summed(file, b, len);
        free(b);
        expect_notes(in, s.cache, false, "kA", 1);
        expect(in, s.cache, true, "kA"); /* and rewritten */
    }
    free(good);
    sandbox_free(&s);
}

TEST(cache_directory_that_cannot_be_written_is_a_note)
{
    sandbox s;
    sandbox_new(&s);
    char in[128], blocked[160];
    snprintf(in, sizeof in, "%s/rank0.json", s.dir);
    snprintf(blocked, sizeof blocked, "%s/rank0.json/cache", s.dir); /* under a file */
    write_trace(in, "kA", 110);
    kt_trace *t = load(in, blocked);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(kt_diags_count(kt_trace_diags(t)), 1);
        const kt_diag *d = kt_diags_get(kt_trace_diags(t), 0);
        CHECK_INT(d->level, KT_DIAG_INFO);
        CHECK(strstr(d->message, "not cached") != NULL);
        CHECK_STR(kernel_name(t), "kA");
    }
    kt_trace_free(t);
    sandbox_free(&s);
}

typedef struct loader_arg {
    const char *path, *cache;
    bool ok;
} loader_arg;

static void *load_thread(void *p)
{
    loader_arg *a = p;
    kt_trace *t = load(a->path, a->cache);
    a->ok = t && !strcmp(kernel_name(t), "kA");
    kt_trace_free(t);
    return NULL;
}

TEST(concurrent_loads_share_one_cache_file)
{
    sandbox s;
    sandbox_new(&s);
    char in[128], file[256];
    snprintf(in, sizeof in, "%s/rank0.json", s.dir);
    write_trace(in, "kA", 110);
    pthread_t th[4];
    loader_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (loader_arg){ .path = in, .cache = s.cache };
        CHECK(pthread_create(&th[i], NULL, load_thread, &args[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].ok);
    }
    CHECK_INT(count_files(s.cache, file, sizeof file), 1); /* no temporary file left */
    expect(in, s.cache, true, "kA");
    sandbox_free(&s);
}

TEST(buffer_loads_ignore_the_cache)
{
    sandbox s;
    sandbox_new(&s);
    const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                       "\"ts\":1,\"dur\":2,\"args\":{\"stream\":7}}]}";
    kt_load_options o = { .size = sizeof o, .cache_dir = s.cache };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("rank0.json", json, strlen(json), &o, &t, &fail), KT_OK);
    kt_diags_free(fail);
    char file[256];
    CHECK_INT(count_files(s.cache, file, sizeof file), 0);
    kt_trace_free(t);
    sandbox_free(&s);
}

TEST(cache_default_dir_follows_xdg_then_home)
{
    char buf[256], *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *sx = xdg ? strdup(xdg) : NULL, *sh = home ? strdup(home) : NULL;
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    CHECK_INT(kt_cache_default_dir(buf, sizeof buf), KT_OK);
    CHECK_STR(buf, "/x/cache/kineta");
    setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG spec says ignore it */
    setenv("HOME", "/home/u", 1);
    CHECK_INT(kt_cache_default_dir(buf, sizeof buf), KT_OK);
    CHECK_STR(buf, "/home/u/.cache/kineta");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    CHECK_INT(kt_cache_default_dir(buf, sizeof buf), KT_EUSAGE);
    if (sx) setenv("XDG_CACHE_HOME", sx, 1);
    if (sh) setenv("HOME", sh, 1);
    free(sx);
    free(sh);
}
