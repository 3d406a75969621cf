/*
 * cache_key.c — what makes a cache file belong to an input: the input's
 * key (path, inode, size, mtime, hashes of its ends), the file's name in
 * the cache directory, the layout signature, and the checksum that guards
 * every byte of a cache file.
 *
 * Why these fields: size and mtime catch edits, truncation and `touch`;
 * the inode catches a file swapped in by rename (mv keeps mtimes); the
 * hashes of the first and last MiB catch content changes that keep size
 * and mtime (a copy with `cp -p`, a clock set back), without reading the
 * whole input, which would cost as much as a parse's I/O.
 */
#include "cache.h"

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

void kt_cache_sum_init(kt_cache_sum *s)
{
    *s = (kt_cache_sum){ .lane = { 0 } };
}

/* Fletcher-style over four 64-bit lanes (lane[k] the sums, lane[k+4] the
 * sums of sums, so the order of words counts): a 32-byte block per round,
 * with no multiply chain, so it runs at
 * memory speed: the checksum must not cost more than reading the model.
 * The final mix is in sum_final.                                        */
static void blocks(kt_cache_sum *s, const unsigned char *p, size_t nblocks)
{
    uint64_t a0 = s->lane[0], a1 = s->lane[1], a2 = s->lane[2], a3 = s->lane[3];
    uint64_t b0 = s->lane[4], b1 = s->lane[5], b2 = s->lane[6], b3 = s->lane[7];
    for (size_t i = 0; i < nblocks; i++, p += 32) {
        a0 += load64(p), a1 += load64(p + 8), a2 += load64(p + 16), a3 += load64(p + 24);
        b0 += a0, b1 += a1, b2 += a2, b3 += a3;
    }
    s->lane[0] = a0, s->lane[1] = a1, s->lane[2] = a2, s->lane[3] = a3;
    s->lane[4] = b0, s->lane[5] = b1, s->lane[6] = b2, s->lane[7] = b3;
}

void kt_cache_sum_add(kt_cache_sum *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->total += len;
    if (s->ntail) {
        size_t take = 32 - s->ntail < len ? 32 - s->ntail : len;
        memcpy(s->tail + s->ntail, p, take);
        s->ntail += take, p += take, len -= take;
        if (s->ntail < 32) return;
        blocks(s, s->tail, 1);
        s->ntail = 0;
    }
    blocks(s, p, len / 32);
    memcpy(s->tail, p + len / 32 * 32, len % 32);
    s->ntail = len % 32;
}

uint64_t kt_cache_sum_final(const kt_cache_sum *s)
{
    uint64_t h = s->total * P1;
    for (int k = 0; k < 8; k++) h = rotl(h ^ (s->lane[k] * P2), 31) * P1;
    for (size_t i = 0; i < s->ntail; i++) h = rotl(h ^ (s->tail[i] * P1), 11) * P2;
    h ^= h >> 33;
    h *= P2;
    return h ^ (h >> 29);
}

uint64_t kt_cache_sum_of(const void *data, size_t len)
{
    kt_cache_sum s;
    kt_cache_sum_init(&s);
    kt_cache_sum_add(&s, data, len);
    return kt_cache_sum_final(&s);
}

uint64_t kt_cache_layout(void)
{
    return (uint64_t)sizeof(kt_arg) | (uint64_t)sizeof(kt_cache_header) << 8 |
           (uint64_t)sizeof(kt_cache_scalars) << 20 | (uint64_t)KT_ARG__COUNT << 32 |
           (uint64_t)KT_K__COUNT << 40 | (uint64_t)KT_CS__COUNT << 48;
}

/* Hash of len bytes at off (len 0: an empty input). */
static bool hash_range(int fd, uint64_t off, size_t len, uint64_t *out)
{
    char *buf = malloc(len ? len : 1);
    if (!buf) return false;
    size_t got = kt_pread_full(fd, buf, len, off, NULL);
    if (got == len) *out = kt_cache_sum_of(buf, len);
    free(buf);
    return got == len;
}

bool kt_cache_key_of(const char *path, kt_cache_key *key, char *abs_path, size_t cap)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved) || strlen(resolved) >= cap) return false;
    int fd = open(resolved, O_RDONLY);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    *key = (kt_cache_key){ 0 };
    if (ok) {
        uint64_t size = (uint64_t)st.st_size;
        size_t span = size < KT_CACHE_HASH_SPAN ? (size_t)size : KT_CACHE_HASH_SPAN;
        key->size = size;
        key->dev = (uint64_t)st.st_dev;
        key->ino = (uint64_t)st.st_ino;
        key->mtime_s = (int64_t)st.st_mtim.tv_sec;
        key->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
        ok = hash_range(fd, 0, span, &key->head_hash) && hash_range(fd, size - span, span, &key->tail_hash);
    }
    close(fd);
    if (!ok) return false;
    strcpy(abs_path, resolved);
    key->path_hash = kt_cache_sum_of(resolved, strlen(resolved));
    return true;
}

bool kt_cache_file_name(const char *dir, const kt_cache_key *key, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%016llx.ktc", dir, (unsigned long long)key->path_hash);
    return n > 0 && (size_t)n < cap;
}

kt_status kt_cache_default_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(buf, cap, "%s/kineta", xdg); /* XDG: relative ones are ignored */
    else if (home && home[0]) n = snprintf(buf, cap, "%s/.cache/kineta", home);
    else return KT_EUSAGE;
    return n > 0 && (size_t)n < cap ? KT_OK : KT_EUSAGE;
}
