/*
 * derived.c — telling the traces kineta wrote from the traces it reads.
 *
 * Overlays and counter traces are copies of an input trace, written by
 * default beside it (as HTA writes its own), so loading that directory
 * again would load each rank twice and fail ("rank 0 is also the rank
 * of ...").  Each copy names its source in a member right after its first
 * '{' (trace_sink.c), which a look at the first decompressed bytes finds:
 * no parse, no guess from the file name.
 */
#include "load_internal.h"

#include <string.h>
#include <zlib.h>

#define HEAD_BYTES 1024 /* the member is near the start: '{' then it */

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}

bool kt_derived_trace(const char *path, char *source, size_t cap)
{
    gzFile g = gzopen(path, "rb"); /* reads plain files as they are */
    if (!g) return false;
    char head[HEAD_BYTES + 1];
    int n = gzread(g, head, HEAD_BYTES);
    gzclose(g);
    if (n <= 0) return false;
    head[n] = '\0';
    const char *key = "\"" KT_SOURCE_KEY "\"", *p = skip_blanks(head);
    if (*p != '{') return false;
    p = skip_blanks(p + 1);
    if (strncmp(p, key, strlen(key))) return false;
    p = skip_blanks(p + strlen(key));
    if (*p != ':' || *(p = skip_blanks(p + 1)) != '"') return false;
    const char *end = ++p;
    while (*end && *end != '"') end += end[0] == '\\' && end[1] ? 2 : 1; /* the name as written, escapes too */
    if (cap) snprintf(source, cap, "%.*s", (int)(end - p), p);
    return true;
}
