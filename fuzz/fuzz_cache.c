/*
 * fuzz_cache.c — libFuzzer harness for the cache reader (make fuzz).
 *
 * The bytes are a cache file.  Its checksums detect damage, not forgery
 * (load/cache_map.c), so the harness forges what a crafted file would:
 * it writes this run's magic, version, layout, size and key into the
 * header, the input's path into the path section (when it is inside the
 * file), and every checksum right — the fuzzer's mutations then reach the
 * counts, sections and values behind them.  Whatever the bytes,
 * kt_cache_map must either refuse the file or give a rank whose every
 * event's thread, typed args and strings are in range, without crashing,
 * leaking or undefined behaviour.  Seeds: cache files the CLI writes for
 * fuzz/seeds (make fuzz).
 */
#include "load/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], trace[128], abs_path[4096];
static kt_cache_key key;

static void cleanup(void)
{
    unlink(trace);
    rmdir(dir);
}

/* The input every cache file is forged for: a trace the key is taken of. */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/kineta-fuzz-cache-XXXXXX");
    if (!mkdtemp(dir)) abort();
    snprintf(trace, sizeof trace, "%s/rank0.json", dir);
    FILE *f = fopen(trace, "w");
    if (!f) abort();
    fputs("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]}\n",
          f);
    fclose(f);
    if (!kt_cache_key_of(trace, &key, abs_path, sizeof abs_path)) abort();
    atexit(cleanup);
}

/* data as a cache file of the trace, with its header and checksums right. */
static unsigned char *forge(const uint8_t *data, size_t size)
{
    unsigned char *b = calloc(1, size);
    if (!b) abort();
    memcpy(b, data, size);
    kt_cache_header h;
    memcpy(&h, b, sizeof h);
    memcpy(h.magic, KT_CACHE_MAGIC, sizeof h.magic);
    h.version = KT_CACHE_VERSION;
    h.endian = KT_CACHE_ENDIAN;
    h.layout = kt_cache_layout();
    h.file_bytes = size;
    h.key = key;
    size_t plen = strlen(abs_path);
    kt_cache_section *p = &h.sec[KT_CS_PATH];
    if (p->off <= size && plen <= size - p->off) {
        p->len = plen;
        memcpy(b + p->off, abs_path, plen);
    }
    for (int i = 0; i < KT_CS__COUNT; i++) {
        kt_cache_section *s = &h.sec[i];
        if (s->off <= size && s->len <= size - s->off) s->sum = kt_cache_sum_of(b + s->off, s->len);
    }
    h.header_sum = kt_cache_sum_of(&h, offsetof(kt_cache_header, header_sum));
    memcpy(b, &h, sizeof h);
    return b;
}

static void check(const kt_rank *r, const kt_strtab *strs)
{
    const kt_events *e = &r->ev;
    for (size_t i = 0; i < e->n; i++) {
        if (e->thread[i] >= e->nthreads) abort();
        if (e->nargs[i] && (size_t)e->argi[i] + e->nargs[i] > r->nargs) abort();
        (void)kt_event_arg(r, (uint32_t)i, KT_ARG_DEVICE);
        (void)kt_strtab_get(strs, e->name[i]);
        (void)kt_strtab_get(strs, e->cat[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) setup();
    if (size < sizeof(kt_cache_header)) return 0;
    char name[4096];
    if (!kt_cache_file_name(dir, &key, name, sizeof name)) abort();
    unsigned char *b = forge(data, size);
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(b, 1, size, f) != size) abort();
    fclose(f);
    free(b);
    kt_strtab *strs = kt_strtab_new();
    kt_file_job j = { .path = trace, .explicit_rank = -1, .dist_rank = -1 };
    const char *why = NULL;
    if (kt_cache_map(dir, &key, abs_path, &j, strs, true, &why)) {
        check(j.rank, strs);
        kt_rank_free(j.rank);
    }
    kt_diags_clear(&j.diags);
    kt_strtab_free(strs);
    unlink(name);
    return 0;
}
