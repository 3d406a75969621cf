/*
 * cache.h — the columnar cache: one parsed rank's model in a binary file
 * that a later load maps instead of parsing the JSON again (docs/cache.md).
 *
 * Why a file per input, keyed by what identifies the input's bytes: a
 * 1 GiB trace parses in ~2 s, its model maps in a fraction of that, and a
 * user re-running analyses on the same traces pays the parse once.  The
 * cache must never change an answer, so a cache file is used only when its
 * key (path, inode, size, mtime, hash of the first and last MiB), version,
 * layout and every checksum match; anything else is rebuilt.
 *
 * Layout: a fixed header (magic, version, layout signature, total size, the
 * key, a table of sections with their checksums, the header's checksum),
 * then the sections, each 64-byte aligned: the rank's strings (re-interned
 * on load, in their original id order), the event columns exactly as in
 * memory (string-id columns in the file's local ids), typed args, the id
 * table, raw category counts, devices, metadata JSON and the file's reports.
 */
#ifndef KT_LOAD_CACHE_H
#define KT_LOAD_CACHE_H

#include "load_internal.h"

#include <stdint.h>

#define KT_CACHE_MAGIC "KTCACHE\0"
/* 2: the file's reports include negative durations and misplaced pids (a
 * version-1 cache would replay its reports without them).  4: the raw
 * args' offset and length in one 8-byte column (kt_events.args_at).  5:
 * an event's (pid, tid) as a slot in a table of threads.  6: its stream
 * in that table too.  7: an XLA profile's launches inside cpu_ops named by
 * their hlo_op and hlo_module (a version-6 cache holds them without).   */
#define KT_CACHE_VERSION 7u
#define KT_CACHE_ALIGN 64u
#define KT_CACHE_HASH_SPAN ((size_t)1 << 20) /* bytes hashed at each end */

/* What identifies an input's bytes. */
typedef struct kt_cache_key {
    uint64_t size, dev, ino;
    int64_t mtime_s, mtime_ns;
    uint64_t head_hash, tail_hash; /* first / last KT_CACHE_HASH_SPAN bytes */
    uint64_t path_hash;            /* of the absolute path                 */
} kt_cache_key;

enum {
    KT_CS_PATH, KT_CS_SCALARS, KT_CS_STROFF, KT_CS_STRBYTES,
    KT_CS_TS, KT_CS_DUR, KT_CS_NAME, KT_CS_CAT, KT_CS_PH, KT_CS_KIND, KT_CS_NARGS,
    KT_CS_THREAD, KT_CS_THREADS, KT_CS_CORR, KT_CS_EXT_ID, KT_CS_ARGI,
    KT_CS_ARGS_AT,
    KT_CS_ARGS, KT_CS_IDS, KT_CS_XCAT_ID, KT_CS_XCAT_COUNT, KT_CS_DEVICES,
    KT_CS_META, KT_CS_DIAGS,
    /* the indexes the loader builds (model/index.h), when it built them */
    KT_CS_IDX_STREAMS, KT_CS_IDX_STREAM_EVENTS, KT_CS_IDX_LINK, KT_CS_IDX_LAUNCHED,
    KT_CS_IDX_CPU_STEPS, KT_CS_IDX_GPU_STEPS,
    KT_CS__COUNT
};

typedef struct kt_cache_section {
    uint64_t off, len, sum;
} kt_cache_section;

typedef struct kt_cache_header {
    char magic[8];
    uint32_t version;
    uint32_t endian;        /* KT_CACHE_ENDIAN as written                 */
    uint64_t layout;        /* kt_cache_layout(): struct sizes, enum counts */
    uint64_t file_bytes;    /* size of the whole cache file                */
    kt_cache_key key;
    kt_cache_section sec[KT_CS__COUNT];
    uint64_t header_sum;    /* checksum of every byte above               */
} kt_cache_header;

#define KT_CACHE_ENDIAN 0x01020304u

/* Per-rank values that are not columns (KT_CS_SCALARS). */
typedef struct kt_cache_scalars {
    int64_t world_size, dist_rank, schema_version, base_time_ns;
    uint64_t gzip, file_bytes, json_bytes, total_events, ns_resolution, shape_args, events_end, events_open, has_base_time;
    uint64_t by_ph[128];
    int64_t first_ts, last_end, origin;
    uint64_t gpu_work, hip_calls, cuda_calls, mtia_calls;
    uint64_t backend;       /* local string id or KT_NONE                  */
    uint64_t nev, nargs, nids, nthreads, nxcat, ndevices, nstrings, has_meta;
    uint64_t has_index, nstreams, nstream_events, launched_len, ncpu_steps, ngpu_steps;
    int64_t cpu_step_maxdur, gpu_step_maxdur;
} kt_cache_scalars;

/* Index records without pointers or padding (KT_CS_IDX_STREAMS / _STEPS). */
typedef struct kt_cache_stream {
    int64_t device, stream;
    uint64_t first, n;       /* its events: stream_events[first .. first+n) */
} kt_cache_stream;
typedef struct kt_cache_step {
    int64_t num, ev, ts, dur;
} kt_cache_step;

/* ---- cache_key.c ---------------------------------------------------------- */
/* Streaming 64-bit checksum (not cryptographic: it detects damage). */
typedef struct kt_cache_sum {
    uint64_t lane[8];
    unsigned char tail[32];
    size_t ntail;
    uint64_t total;
} kt_cache_sum;
void kt_cache_sum_init(kt_cache_sum *s);
void kt_cache_sum_add(kt_cache_sum *s, const void *data, size_t len);
uint64_t kt_cache_sum_final(const kt_cache_sum *s);
uint64_t kt_cache_sum_of(const void *data, size_t len);

/* The layout signature a cache file must carry to be read by this build. */
uint64_t kt_cache_layout(void);
/* The key of the input at path now (false when it cannot be read). */
bool kt_cache_key_of(const char *path, kt_cache_key *key, char *abs_path, size_t cap);
/* dir/<hash of the absolute path>.ktc into out (false if it does not fit). */
bool kt_cache_file_name(const char *dir, const kt_cache_key *key, char *out, size_t cap);

/* ---- cache_map.c ------------------------------------------------------------
 * Fill j (rank, reports, distributedInfo rank) from the cache file for
 * j->path when it is valid for key; false (nothing changed) otherwise,
 * with *why saying what was wrong when the file was key's but its
 * contents were rejected (NULL when there was none, or a stale one).
 * with_index: restore the rank's indexes too when the file has them.      */
bool kt_cache_map(const char *dir, const kt_cache_key *key, const char *abs_path, kt_file_job *j,
                  kt_strtab *strs, bool with_index, const char **why);

/* ---- cache_write.c ----------------------------------------------------------
 * Write j's freshly parsed rank into dir (created if missing) under key,
 * through a temporary file renamed into place.  Nothing is written when
 * the input changed since key was taken.  false with why in err.          */
bool kt_cache_write(const char *dir, const kt_cache_key *key, const char *abs_path, const kt_file_job *j,
                    const kt_strtab *strs, char *err, size_t errcap);

/* ---- cache_job.c: the loader's hook -------------------------------------------- */
typedef struct kt_cache_ticket {
    bool keyed;                /* the cache is asked for and the input has a key */
    const char *rejected;      /* why its cache file was not used (kt_cache_map) */
    kt_cache_key key;
    char abs_path[4096];
} kt_cache_ticket;
/* Before parsing j: true when j was filled from the cache (j->status set). */
bool kt_cache_load_job(const kt_load_ctx *ctx, kt_file_job *j, kt_cache_ticket *t);
/* After parsing j successfully (and building its indexes, which are
 * written too when built): write its cache file (a note on failure).     */
void kt_cache_store_job(const kt_load_ctx *ctx, kt_file_job *j, const kt_cache_ticket *t);

#endif /* KT_LOAD_CACHE_H */
