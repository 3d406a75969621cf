/*
 * rank_detect.c — which rank a trace file belongs to.
 *
 * Analyses compare ranks, so every file needs one and no two files may share
 * one.  Sources in order of trust: an explicit rank from the caller, the
 * file's distributedInfo.rank (read as JSON, so spacing and key order do not
 * matter — unlike HTA's line regex), a rank in the file name (rank-3,
 * rank_3, rank3, worker3), else 0 with a warning.
 */
#include "load_internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Digits after word (+ optional '-' or '_') at s, as a rank; -1 if none. */
static int rank_after(const char *s, size_t wlen)
{
    const char *d = s + wlen;
    if (*d == '-' || *d == '_') d++;
    if (!isdigit((unsigned char)*d)) return -1;
    long v = 0;
    for (; isdigit((unsigned char)*d); d++) {
        v = v * 10 + (*d - '0');
        if (v > 1000000000) return -1;
    }
    return (int)v;
}

int kt_rank_from_filename(const char *path)
{
    static const char *const words[] = { "rank", "worker" };
    for (const char *s = base_name(path); *s; s++) {
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t n = strlen(words[w]);
            if (strncasecmp(s, words[w], n) != 0) continue;
            int r = rank_after(s, n);
            if (r >= 0) return r;
        }
    }
    return -1;
}
