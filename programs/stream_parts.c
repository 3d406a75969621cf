/*
 * stream_parts.c — one process's per-file maps as bytes, for process 0.
 *
 * Under MPI only partials cross the network: for each file a process
 * mapped, its status, rank, origin and tables (kt_tables_serialize).  The
 * receiver knows which files each process owned (the same balanced
 * assignment is computed everywhere), so the file order is implicit.
 * Layout per file: u8 present, u8 selected, u8 explained, i32 status, i32 rank,
 * i64 origin, u64 length, the tables' bytes (length 0: no tables).
 */
#include "cli_stream.h"

#include <stdlib.h>
#include <string.h>

static bool put(unsigned char **buf, size_t *len, size_t *cap, const void *src, size_t n)
{
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 1024;
        while (c < *len + n) c *= 2;
        unsigned char *p = realloc(*buf, c);
        if (!p) return false;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, src, n);
    *len += n;
    return true;
}

static bool put_part(const rank_part *p, unsigned char **buf, size_t *len, size_t *cap)
{
    unsigned char *tb = NULL;
    size_t tlen = 0;
    if (p->tables && kt_tables_serialize(p->tables, &tb, &tlen) != KT_OK) return false;
    uint8_t flags[3] = { p->present, p->selected, p->explained };
    int32_t status = (int32_t)p->status, rank = p->rank;
    uint64_t n = tlen;
    bool ok = put(buf, len, cap, flags, 3) && put(buf, len, cap, &status, 4) && put(buf, len, cap, &rank, 4) &&
              put(buf, len, cap, &p->origin, 8) && put(buf, len, cap, &n, 8) && (!tlen || put(buf, len, cap, tb, tlen));
    free(tb);
    return ok;
}

bool stream_parts_encode(const rank_part *parts, const int *owner, size_t n, int who, unsigned char **buf,
                         size_t *len)
{
    size_t cap = 0;
    *buf = NULL;
    *len = 0;
    for (size_t i = 0; i < n; i++)
        if (owner[i] == who && !put_part(&parts[i], buf, len, &cap)) {
            free(*buf);
            *buf = NULL;
            return false;
        }
    return true;
}

/* The processes share one binary and architecture: fixed-width fields in
 * host order; only the tables (which carry strings) use the wire format.  */
static bool take(const unsigned char **p, size_t *left, void *dst, size_t n)
{
    if (*left < n) return false;
    memcpy(dst, *p, n);
    *p += n;
    *left -= n;
    return true;
}

static bool get_part(const unsigned char **p, size_t *left, rank_part *part)
{
    uint8_t flags[3];
    int32_t status, rank;
    uint64_t n;
    if (!take(p, left, flags, 3) || !take(p, left, &status, 4) || !take(p, left, &rank, 4) ||
        !take(p, left, &part->origin, 8) || !take(p, left, &n, 8) || n > *left)
        return false;
    part->present = flags[0];
    part->selected = flags[1];
    part->explained = flags[2];
    part->status = (kt_status)status;
    part->rank = rank;
    if (n && kt_tables_deserialize(*p, (size_t)n, &part->tables) != KT_OK) return false;
    *p += n;
    *left -= n;
    return true;
}

bool stream_parts_decode(const unsigned char *buf, size_t len, const int *owner, size_t n, int who,
                         rank_part *parts)
{
    for (size_t i = 0; i < n; i++)
        if (owner[i] == who && !get_part(&buf, &len, &parts[i])) return false;
    return len == 0;
}
